// The tokenizer: just enough of C++'s lexical rules to find the constructs cpusim-rewrite
// changes and never look inside a comment, a string or a number; line markers and other
// directives are read here too.
#include "tokens.h"

#include <algorithm>
#include <cstdio>

namespace cpusim::rewrite {
namespace {

// Where the tokenizer stands in the original sources, as g++'s line markers tell it.
struct position {
  int line = 1, file = 0;
  bool user = true;
};

// The end of a directive that starts at `i`: the end of its line, backslash-newlines included.
size_t directive_end(const std::string& t, size_t i) {
  while (i < t.size() && t[i] != '\n') i += (t[i] == '\\' && i + 1 < t.size() && t[i + 1] == '\n') ? 2 : 1;
  return i;
}

// A line marker (`# 12 "file" flags`; flag 3 marks a system header) moves `at`; any other
// directive becomes a token.
void take_directive(source& src, size_t begin, size_t end, position& at) {
  const std::string d = src.text.substr(begin, end - begin);
  int number = 0, consumed = 0;
  char name[4096];
  if (std::sscanf(d.c_str(), "# %d \"%4095[^\"]\"%n", &number, name, &consumed) >= 2 ||
      std::sscanf(d.c_str(), "#line %d \"%4095[^\"]\"%n", &number, name, &consumed) >= 2) {
    src.files.push_back(name);
    at.file = int(src.files.size()) - 1;
    at.user = d.find(" 3", size_t(consumed)) == std::string::npos;
    at.line = number - 1;  // the newline ending the marker brings it to `number`
  } else {
    src.tokens.push_back({directive, begin, end, at.line, at.file, at.user});
  }
}

bool raw_string_prefix(const std::string& word) {
  return word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR";
}

bool encoding_prefix(const std::string& word) { return word == "u8" || word == "u" || word == "U" || word == "L"; }

// The end of R"delim( ... )delim", whose opening quote is at `quote`.
size_t raw_string_end(const std::string& t, size_t quote) {
  const size_t open = t.find('(', quote);
  const std::string close = ")" + t.substr(quote + 1, open - quote - 1) + "\"";
  const size_t end = t.find(close, open);
  return end == std::string::npos ? t.size() : end + close.size();
}

// The end of a pp-number (digits, '.', digit separators, exponent signs) that starts at `i`.
size_t number_end(const std::string& t, size_t i) {
  for (++i; i < t.size(); ++i) {
    const char p = t[i - 1], d = t[i];
    if (!(ident_char(d) || d == '.' || (d == '\'' && i + 1 < t.size() && ident_char(t[i + 1])) ||
          ((d == '+' || d == '-') && (p == 'e' || p == 'E' || p == 'p' || p == 'P'))))
      break;
  }
  return i;
}

// The end of a string or character literal whose opening quote is at `i`; an unterminated
// one ends with its line.
size_t quoted_end(const std::string& t, size_t i) {
  const char quote = t[i];
  ++i;
  while (i < t.size() && t[i] != quote && t[i] != '\n') i += t[i] == '\\' ? 2 : 1;
  return i + 1;
}

// The end of a comment that starts at `i` (a line comment ends before its newline); `i` when
// none starts there.
size_t comment_end(const std::string& t, size_t i) {
  if (t.compare(i, 2, "//") == 0) return std::min(t.find('\n', i), t.size());
  if (t.compare(i, 2, "/*") != 0) return i;
  const size_t end = t.find("*/", i + 2);
  return end == std::string::npos ? t.size() : end + 2;
}

}  // namespace

void tokenize(source& src) {
  const std::string& t = src.text;
  size_t i = 0;
  position at;
  bool line_start = true;
  src.files.push_back("<stdin>");
  while (i < t.size()) {
    const char c = t[i];
    const char next = i + 1 < t.size() ? t[i + 1] : '\0';
    if (c == '\n') {
      ++at.line, ++i, line_start = true;
      continue;
    }
    if (std::isspace((unsigned char)c)) {
      ++i;
      continue;
    }
    const size_t begin = i;
    if (c == '#' && line_start) {
      i = directive_end(t, i);
      take_directive(src, begin, i, at);
      continue;
    }
    line_start = false;
    if (const size_t end = comment_end(t, i); end != i) {
      for (; i < end; ++i) at.line += t[i] == '\n';
      continue;
    }
    kind k = punct;
    if (ident_start(c)) {
      while (i < t.size() && ident_char(t[i])) ++i;
      k = identifier;
      const std::string word = t.substr(begin, i - begin);
      const bool quoted = i < t.size() && (t[i] == '"' || t[i] == '\'');
      if (quoted && t[i] == '"' && raw_string_prefix(word)) {
        i = raw_string_end(t, i);
        k = literal;
      } else if (quoted && encoding_prefix(word)) {
        continue;  // the literal follows as its own token
      }
    } else if (std::isdigit((unsigned char)c) || (c == '.' && std::isdigit((unsigned char)next))) {
      i = number_end(t, i);
      k = number;
    } else if (c == '"' || c == '\'') {
      i = quoted_end(t, i);
      k = literal;
    } else {
      i += c == ':' && next == ':' ? 2 : 1;
    }
    const int start_line = at.line;
    for (size_t j = begin; j < i; ++j) at.line += t[j] == '\n';
    src.tokens.push_back({k, begin, i, start_line, at.file, at.user});
  }
}

}  // namespace cpusim::rewrite
