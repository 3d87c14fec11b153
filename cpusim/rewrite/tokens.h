// cpusim-rewrite's view of its input: the preprocessed text and its tokens, each placed at its
// line in the original sources by g++'s line markers, so that an error names the file:line a
// student wrote.
#pragma once

#include <cctype>
#include <cstring>
#include <string>
#include <vector>

namespace cpusim::rewrite {

enum kind { identifier, number, literal, punct, directive };

struct token {
  kind k;
  size_t begin, end;  // byte range in the input
  int line;           // line in `file`
  int file;           // index into files
  bool user;          // not from a system header
};

struct source {
  std::string text;
  std::vector<token> tokens;
  std::vector<std::string> files;

  std::string str(size_t i) const { return text.substr(tokens[i].begin, tokens[i].end - tokens[i].begin); }
  bool is(size_t i, const char* s) const {
    return i < tokens.size() && tokens[i].end - tokens[i].begin == std::strlen(s) &&
           text.compare(tokens[i].begin, tokens[i].end - tokens[i].begin, s) == 0;
  }
  bool adjacent(size_t i) const { return i + 1 < tokens.size() && tokens[i].end == tokens[i + 1].begin; }
};

inline bool ident_start(char c) { return std::isalpha((unsigned char)c) || c == '_' || c == '$'; }
inline bool ident_char(char c) { return std::isalnum((unsigned char)c) || c == '_' || c == '$'; }

// Splits src.text into src.tokens, following g++'s line markers (tokenize.cpp).
void tokenize(source& src);

}  // namespace cpusim::rewrite
