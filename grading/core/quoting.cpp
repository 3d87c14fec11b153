#include "grading/core/quoting.h"

#include <sstream>

#include "grading/core/utf8.h"
#include "tools/text.h"

namespace grade {

using tools::contains;
using tools::joined;

std::vector<std::string> quote_output(const std::string& text, size_t max_lines) {
  std::vector<std::string> lines;
  std::string line;
  size_t total = 0;
  auto flush = [&] {
    if (lines.size() < max_lines) lines.push_back("  | " + utf8_prefix(line, 300));
    ++total;
    line.clear();
  };
  for (char ch : text) {
    if (ch == '\n') {
      flush();
    } else if (ch == '\t') {
      line += "  ";
    } else if (static_cast<unsigned char>(ch) >= 0x20 && ch != 0x7f) {
      line += ch;  // control characters (escape sequences) dropped
    }
  }
  if (!line.empty()) flush();
  if (total > lines.size()) lines.push_back("  | ... (" + std::to_string(total - lines.size()) + " more lines)");
  return lines;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::vector<std::string> report_lines(const std::string& output, const std::string& file,
                                      const std::vector<std::string>& markers, size_t max_lines) {
  std::vector<std::string> picked;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line) && picked.size() < max_lines;) {
    bool wanted = contains(line, file);
    for (const std::string& m : markers) wanted |= contains(line, m);
    if (wanted) picked.push_back(line);
  }
  return quote_output(joined(picked), max_lines);
}

}  // namespace grade
