// The few string helpers the grader, the bench and the tests share, written once.
#pragma once

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace tools {

// The whole file at PATH, its bytes as they are; "" when it cannot be read.
inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// How many times PART occurs in S, overlapping ones included.
inline int count_of(const std::string& s, const std::string& part) {
  int n = 0;
  for (size_t at = s.find(part); at != std::string::npos; at = s.find(part, at + 1)) ++n;
  return n;
}

// The lines, each ended by a newline.
inline std::string joined(const std::vector<std::string>& lines) {
  std::string all;
  for (const std::string& line : lines) all += line + "\n";
  return all;
}

// S without the blanks (spaces, tabs, carriage returns) at either end.
inline std::string trim(const std::string& s) {
  const size_t first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

// TEXT made safe inside HTML, SVG or XML elements and quoted attributes.
inline std::string xml_escape(const std::string& text) {
  std::string out;
  for (char ch : text) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += ch;
    }
  }
  return out;
}

}  // namespace tools
