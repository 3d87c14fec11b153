// cpusim-rewrite: turns preprocessed CUDA C++ (g++ -E output) into C++ that g++ compiles against
// the cpusim runtime. It rewrites what C++ cannot express:
//   kernel<<<grid, block, smem, stream>>>(args)   a call of ::cpusim::launch
//   __shared__ T a[N];                            a reference to the block's copy of `a`
//   extern __shared__ T d[];                      a pointer to the block's dynamic shared memory
//   return; in a kernel                           also records the line, for barrier diagnostics
// and removes __global__/__device__, which have no C++ meaning. It never adds or removes a
// newline, and leaves g++'s line markers alone, so every diagnostic points at the original
// file:line. Inline PTX and launches from device code are rejected with such a diagnostic.
//
// Usage: cpusim-rewrite [--cu] IN.ii OUT.ii    (--cu: a .cu file, where asm() is PTX)
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

// ---- tokens ----
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

bool ident_start(char c) { return std::isalpha((unsigned char)c) || c == '_' || c == '$'; }
bool ident_char(char c) { return std::isalnum((unsigned char)c) || c == '_' || c == '$'; }

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

// Splits preprocessed text into tokens, following g++'s line markers.
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

// ---- the rewriting pass ----
struct edit {
  size_t begin, end;
  std::string text;
};

struct kernel_info {
  bool is_template = false;
  bool ambiguous = false;  // declared both as a template and not, or with a parameter pack
  int required = 0;        // template parameters without a default
};

struct scope {
  enum kind_t { file_scope, class_scope, code_scope } kind;
  bool device;  // in the body of a __global__ or __device__ function
  bool kernel;  // in the body of a __global__ function
};

class rewriter {
 public:
  rewriter(source& s, bool cu) : src_(s), cu_(cu) {}

  // One pass over the tokens, a branch per construct it rewrites. It stays one function (63
  // lines) on purpose: the branches share the statement's state (where it began, whether it is
  // __global__ or __device__, its template), which helpers would each have to be handed.
  bool run() {
    std::vector<scope> scopes{{scope::file_scope, false, false}};
    size_t stmt = 0;  // first token of the current statement
    bool stmt_global = false, stmt_device = false;
    kernel_info stmt_template;
    bool stmt_has_template = false;
    size_t after_template = 0;
    auto reset = [&](size_t next) {
      stmt = next;
      stmt_global = stmt_device = stmt_has_template = false;
      stmt_template = {};
      after_template = next;
    };
    const size_t n = src_.tokens.size();
    for (size_t i = 0; i < n; ++i) {
      const token& t = src_.tokens[i];
      const scope& here = scopes.back();
      if (t.k == directive) {
        if (t.user) blank_pragma(i);
        continue;
      }
      if (src_.is(i, ";")) {
        reset(i + 1);
      } else if (src_.is(i, "{")) {
        scopes.push_back(open_scope(here, stmt, i, after_template, stmt_global, stmt_device));
        reset(i + 1);
      } else if (src_.is(i, "}")) {
        if (scopes.size() > 1) scopes.pop_back();
        reset(i + 1);
      } else if (src_.is(i, "template") && src_.is(i + 1, "<") && here.kind != scope::code_scope) {
        const size_t close = match_angle(i + 1);
        stmt_template = template_params(i + 1, close);
        stmt_has_template = true;
        after_template = close + 1;
        i = close;
      } else if (src_.is(i, "__global__")) {
        stmt_global = true;
        note_kernel(i, stmt_has_template, stmt_template);
        edits_.push_back({t.begin, t.end, ""});
      } else if (src_.is(i, "__device__") || src_.is(i, "__host__")) {
        stmt_device |= src_.is(i, "__device__");
        edits_.push_back({t.begin, t.end, ""});
      } else if (src_.is(i, "__noinline__") && !src_.is(i - 1, "(")) {
        edits_.push_back({t.begin, t.end, "__attribute__((noinline))"});
      } else if (src_.is(i, "__shared__")) {
        i = shared_declaration(i, here);
        reset(i + 1);
      } else if (src_.is(i, "<") && src_.adjacent(i) && src_.is(i + 1, "<") && src_.adjacent(i + 1) &&
                 src_.is(i + 2, "<") && t.user) {
        i = launch(i, here);
      } else if (t.user && cu_ && (src_.is(i, "asm") || src_.is(i, "__asm__") || src_.is(i, "__asm")) &&
                 (src_.is(i + 1, "(") || src_.is(i + 1, "volatile") || src_.is(i + 1, "__volatile__") ||
                  src_.is(i + 1, "goto"))) {
        error(i, "inline assembly (asm) needs a GPU: the CPU backend (cpusim) cannot run inline PTX");
      } else if (t.user && turns_off_a_check(i)) {
        error(i, "'" + src_.str(i) + "' turns off a check of the CPU backend (cpusim), which stands for a GPU's own "
                 "fault or compute-sanitizer's finding there: it is not allowed");
      } else if (t.user && here.kernel && src_.is(i, "return") && src_.is(i + 1, ";")) {
        edits_.push_back({t.begin, t.end, "return ::cpusim::kernel_return(__builtin_FILE(), __builtin_LINE())"});
      }
    }
    return errors_ == 0;
  }

  std::string output() {
    std::stable_sort(edits_.begin(), edits_.end(), [](const edit& a, const edit& b) { return a.begin < b.begin; });
    std::string out;
    size_t pos = 0;
    for (const edit& e : edits_) {
      out.append(src_.text, pos, e.begin - pos);
      out += e.text;
      for (size_t j = e.begin; j < e.end; ++j)
        if (src_.text[j] == '\n') out += '\n';  // keep every line where it was
      pos = e.end;
    }
    out.append(src_.text, pos, std::string::npos);
    return out;
  }

 private:
  // GCC's attributes that exempt a function from the sanitizers cpucc compiles with
  // (-fsanitize=alignment, address, thread): a kernel could hide its misaligned access, its
  // out-of-bounds index or its race from the checks that a GPU makes by itself.
  bool turns_off_a_check(size_t i) const {
    static const char* const names[] = {"no_sanitize", "__no_sanitize__", "no_sanitize_address", "__no_sanitize_address__",
                                        "no_sanitize_thread", "__no_sanitize_thread__", "no_sanitize_undefined",
                                        "__no_sanitize_undefined__", "no_address_safety_analysis",
                                        "__no_address_safety_analysis__", "disable_sanitizer_instrumentation",
                                        "__disable_sanitizer_instrumentation__"};
    for (const char* name : names)
      if (src_.is(i, name)) return true;
    return false;
  }

  void error(size_t i, const std::string& message) {
    const token& t = src_.tokens[i];
    std::fprintf(stderr, "%s:%d: error: %s\n", src_.files[t.file].c_str(), t.line, message.c_str());
    ++errors_;
  }

  // The index of the token that closes the bracket opened at `open` ("(", "[" or "{"); match_back
  // goes the other way; match_angle closes a "<" of template arguments.
  size_t match(size_t open) const {
    int depth = 0;
    for (size_t j = open; j < src_.tokens.size(); ++j) {
      const std::string s = src_.str(j);
      if (s == "(" || s == "[" || s == "{") ++depth;
      if (s == ")" || s == "]" || s == "}")
        if (--depth == 0) return j;
    }
    return src_.tokens.size() - 1;
  }
  size_t match_back(size_t close) const {
    int depth = 0;
    for (size_t j = close + 1; j-- > 0;) {
      const std::string s = src_.str(j);
      if (s == ")" || s == "]" || s == "}") ++depth;
      if (s == "(" || s == "[" || s == "{")
        if (--depth == 0) return j;
    }
    return 0;
  }
  kind kind_at(size_t i) const { return i < src_.tokens.size() ? src_.tokens[i].k : punct; }
  size_t match_angle(size_t open) const {
    int depth = 0;
    for (size_t j = open; j < src_.tokens.size(); ++j) {
      if (src_.is(j, "(") || src_.is(j, "[")) j = match(j);
      else if (src_.is(j, "<")) ++depth;
      else if (src_.is(j, ">") && --depth == 0) return j;
      else if (src_.is(j, ";") || src_.is(j, "{")) return j;
    }
    return src_.tokens.size() - 1;
  }

  // Source text of tokens [a, b), on one line.
  std::string flat(size_t a, size_t b) const {
    std::string s;
    for (size_t j = a; j < b; ++j) {
      if (!s.empty() && (ident_char(s.back()) || s.back() == ',') && ident_char(src_.text[src_.tokens[j].begin]))
        s += ' ';
      s += src_.str(j);
    }
    return s;
  }

  kernel_info template_params(size_t open, size_t close) const {
    kernel_info k;
    k.is_template = true;
    bool has_default = false, pack = false, empty = true;
    for (size_t j = open + 1; j <= close; ++j) {
      if (src_.is(j, "(") || src_.is(j, "[")) {
        j = match(j);
        continue;
      }
      if (src_.is(j, "<")) {
        j = match_angle(j);
        continue;
      }
      if (src_.is(j, ",") || j == close) {
        if (!empty && !has_default && !pack) ++k.required;
        k.ambiguous |= pack;
        has_default = pack = false;
        empty = true;
        continue;
      }
      empty = false;
      has_default |= src_.is(j, "=");
      pack |= src_.is(j, ".") && src_.is(j + 1, ".") && src_.is(j + 2, ".");
    }
    return k;
  }

  // After `__global__`: the kernel's name is the identifier before the first parameter list.
  void note_kernel(size_t i, bool is_template, const kernel_info& params) {
    for (size_t j = i + 1; j < src_.tokens.size() && !src_.is(j, ";") && !src_.is(j, "{"); ++j) {
      if (!src_.is(j, "(")) continue;
      const std::string before = src_.str(j - 1);
      if (src_.tokens[j - 1].k == identifier && before != "__attribute__" && before != "alignas" &&
          before != "__declspec" && before != "decltype") {
        kernel_info k = is_template ? params : kernel_info{};
        auto found = kernels_.find(before);
        if (found != kernels_.end() && found->second.is_template != k.is_template) k.ambiguous = true;
        kernels_[before] = k;
        return;
      }
      j = match(j);
    }
  }

  scope open_scope(const scope& here, size_t stmt, size_t brace, size_t after_template, bool global, bool device) const {
    if (here.kind == scope::code_scope) return here;
    if (src_.is(stmt, "namespace") || (src_.is(stmt, "inline") && src_.is(stmt + 1, "namespace")) ||
        (src_.is(stmt, "extern") && kind_at(stmt + 1) == literal))
      return {scope::file_scope, false, false};
    bool class_key = false, paren_after_key = false, assignment = false;
    for (size_t j = after_template; j < brace; ++j) {
      if (src_.is(j, "(")) {
        paren_after_key |= class_key;
        j = match(j);
        continue;
      }
      class_key |= src_.is(j, "class") || src_.is(j, "struct") || src_.is(j, "union") || src_.is(j, "enum");
      assignment |= src_.is(j, "=");
    }
    if (class_key && !paren_after_key && !assignment) return {scope::class_scope, false, false};
    if (assignment) return {scope::code_scope, false, false};
    return {scope::code_scope, global || device, global};
  }

  void blank_pragma(size_t i) {
    std::istringstream words(src_.str(i).substr(1));
    std::string pragma, name;
    words >> pragma >> name;
    if (pragma == "pragma" && (name == "unroll" || name == "nounroll" || name.rfind("nv_", 0) == 0 ||
                               name == "diag_suppress" || name == "diag_default" || name == "diag_warning"))
      edits_.push_back({src_.tokens[i].begin, src_.tokens[i].end, ""});
  }

  // kernel<<<config>>>(args) -> ::cpusim::launch(site, config, [&](auto&&... a) {...}(args))
  size_t launch(size_t i, const scope& here) {
    size_t targs_open = 0;
    const size_t kernel = launched_identifier(i, targs_open);
    if (kind_at(kernel) != identifier) {
      error(i, "cpusim cannot rewrite this kernel launch: write it as name<<<...>>>(...) or name<T><<<...>>>(...)");
      return i + 2;
    }
    const size_t name_begin = qualified_begin(kernel);
    const size_t gt = configuration_end(i), open = gt + 3;
    if (gt + 2 >= src_.tokens.size() || !src_.is(open, "(")) {
      error(i, "cpusim cannot rewrite this kernel launch: expected <<<...>>>(arguments)");
      return i + 2;
    }
    const size_t close = match(open);
    if (here.device) {
      error(i, "launching a kernel from device code (dynamic parallelism) needs a GPU: the CPU backend (cpusim) cannot run it");
      return close;
    }
    const std::string name = flat(name_begin, i);
    const std::string key = names_instance(kernel, targs_open, i) ? "::cpusim::kernel_key(" + name + ")" : "nullptr";
    edits_.push_back({src_.tokens[name_begin].begin, src_.tokens[i + 2].end,
                      "::cpusim::launch(::cpusim::launch_site{\"" + name +
                          "\", __builtin_FILE(), __builtin_LINE(), " + key + "}, "});
    edits_.push_back({src_.tokens[gt].begin, src_.tokens[open].end,
                      ", [&](auto&&... cpusim_args) { ::cpusim::check_kernel_args(cpusim_args...); "
                      "return [=]() { " + name + "(cpusim_args...); }; }("});
    edits_.push_back({src_.tokens[close].end, src_.tokens[close].end, ")"});
    return close;
  }

  // The token before the "<<<" at `i` that should be the kernel's identifier, past its
  // template arguments, whose "<" goes to `targs_open`.
  size_t launched_identifier(size_t i, size_t& targs_open) const {
    size_t j = i - 1;
    if (src_.is(j, ">")) {
      int depth = 0;
      for (; j > 0; --j) {
        if (src_.is(j, ">")) ++depth;
        else if (src_.is(j, "<") && --depth == 0) break;
      }
      targs_open = j;
      --j;
    }
    return j;
  }

  // The first token of the name that ends with the identifier at `last`: its qualification.
  size_t qualified_begin(size_t last) const {
    size_t begin = last;
    while (begin >= 2 && src_.is(begin - 1, "::") && src_.tokens[begin - 2].k == identifier) begin -= 2;
    if (begin >= 1 && src_.is(begin - 1, "::")) --begin;
    return begin;
  }

  // The first ">" of the ">>>" outside brackets that ends the configuration opened at `i`.
  size_t configuration_end(size_t i) const {
    size_t gt = i + 3;
    for (; gt + 2 < src_.tokens.size(); ++gt) {
      if (src_.is(gt, "(") || src_.is(gt, "[") || src_.is(gt, "{")) gt = match(gt);
      else if (src_.is(gt, ">") && src_.adjacent(gt) && src_.is(gt + 1, ">") && src_.adjacent(gt + 1) && src_.is(gt + 2, ">"))
        break;
    }
    return gt;
  }

  // Whether the launched instance can be named for kernel_key: not when its template arguments
  // are deduced or fewer than the template requires, nor when the kernel is ambiguous.
  bool names_instance(size_t kernel, size_t targs_open, size_t name_end) const {
    const auto info = kernels_.find(src_.str(kernel));
    const bool known = info != kernels_.end();
    if (targs_open == 0) return !known || !(info->second.is_template || info->second.ambiguous);
    int args = 1;
    for (size_t k = targs_open + 1; k + 1 < name_end; ++k) {
      if (src_.is(k, "(") || src_.is(k, "[")) k = match(k);
      else if (src_.is(k, "<")) k = match_angle(k);
      else args += src_.is(k, ",");
    }
    return known && !info->second.ambiguous && args >= info->second.required;
  }

  // A __shared__ declaration taken apart.
  struct shared_parts {
    bool is_extern = false;
    std::string align = "16";
    std::string type;  // the first declarator's, which the others share
    std::vector<std::vector<size_t>> declarators = std::vector<std::vector<size_t>>(1);
  };

  // One declarator's name, and the '*'s before it and the dimensions after it.
  struct declarator_parts {
    std::string stars, name, dims;
  };

  // A declaration with __shared__ (at token i), from its start to its ';'.
  size_t shared_declaration(size_t i, const scope& here) {
    const size_t first = declaration_begin(i), last = declaration_end(i);
    if (!src_.tokens[i].user) return last;  // no __shared__ in system headers; leave them be
    if (here.kind == scope::class_scope) {
      error(i, "a __shared__ variable cannot be a class member");
      return last;
    }
    shared_parts d;
    if (!split_declaration(first, last, d)) return last;
    if (!take_type(d)) {
      error(i, "cpusim cannot rewrite this __shared__ declaration");
      return last;
    }
    std::string text;
    for (const std::vector<size_t>& tokens : d.declarators) {
      const declarator_parts p = read_declarator(tokens);
      if (p.name.empty()) {
        error(i, "cpusim cannot rewrite this __shared__ declaration");
        return last;
      }
      text += shared_definition(d, p, here.kind);
    }
    // This edit replaces the whole declaration, including edits already made inside it.
    while (!edits_.empty() && edits_.back().begin >= src_.tokens[first].begin) edits_.pop_back();
    edits_.push_back({src_.tokens[first].begin, src_.tokens[last].end, text});
    return last;
  }

  // The first token of the declaration whose __shared__ is at `i`.
  size_t declaration_begin(size_t i) const {
    size_t first = i;
    while (first > 0 && !src_.is(first - 1, ";") && !src_.is(first - 1, "{") && !src_.is(first - 1, "}") &&
           !src_.is(first - 1, ":") && src_.tokens[first - 1].k != directive) {
      if (src_.is(first - 1, ")")) {  // only an attribute's parentheses belong to the declaration
        const size_t open = match_back(first - 1);
        if (open == 0 || !(src_.is(open - 1, "__attribute__") || src_.is(open - 1, "alignas"))) break;
        first = open;
      }
      --first;
    }
    return first;
  }

  // The ';' that ends the declaration whose __shared__ is at `i`.
  size_t declaration_end(size_t i) const {
    size_t last = i;
    while (last < src_.tokens.size() && !src_.is(last, ";")) {
      if (src_.is(last, "(") || src_.is(last, "[") || src_.is(last, "{")) last = match(last);
      ++last;
    }
    return last;
  }

  // Specifiers out, alignment noted, declarators split at top-level commas; false, after an
  // error, for an initializer.
  bool split_declaration(size_t first, size_t last, shared_parts& d) {
    int angle = 0;
    for (size_t j = first; j < last; ++j) {
      const std::string s = src_.str(j);
      if (s == "static" || s == "__shared__" || s == "__device__") continue;
      if (s == "extern") {
        d.is_extern = true;
        continue;
      }
      if (s == "__attribute__" || s == "alignas") {  // __align__(n) arrives as __attribute__((aligned(n)))
        const size_t end = match(j + 1);
        if (s == "alignas" && kind_at(j + 2) == number) d.align = src_.str(j + 2);
        for (size_t k = j + 1; k + 2 < end; ++k)
          if ((src_.is(k, "aligned") || src_.is(k, "__aligned__")) && src_.is(k + 1, "(") && kind_at(k + 2) == number)
            d.align = src_.str(k + 2);
        j = end;
        continue;
      }
      if (s == "(" || s == "[") {
        const size_t end = match(j);
        for (size_t k = j; k <= end; ++k) d.declarators.back().push_back(k);
        j = end;
        continue;
      }
      angle += (s == "<") - (s == ">");
      if (s == "," && angle == 0) {
        d.declarators.emplace_back();
        continue;
      }
      if (s == "=") {
        error(j, "a __shared__ variable cannot have an initializer");
        return false;
      }
      d.declarators.back().push_back(j);
    }
    return true;
  }

  // Moves the type out of the first declarator: everything before its name (and its '*'s).
  bool take_type(shared_parts& d) const {
    std::vector<size_t>& d0 = d.declarators[0];
    size_t name_at = d0.size();
    for (size_t k = 0; k < d0.size() && !src_.is(d0[k], "["); ++k)
      if (src_.tokens[d0[k]].k == identifier) name_at = k;
    size_t type_end = name_at;
    while (type_end > 0 && (src_.is(d0[type_end - 1], "*") || src_.is(d0[type_end - 1], "&"))) --type_end;
    if (name_at == d0.size() || type_end == 0) return false;
    d.type = flat(d0[0], d0[type_end - 1] + 1);
    d0.erase(d0.begin(), d0.begin() + long(type_end));
    return true;
  }

  declarator_parts read_declarator(const std::vector<size_t>& tokens) const {
    declarator_parts p;
    for (size_t k : tokens) {
      const std::string s = src_.str(k);
      if (p.name.empty() && (s == "*" || s == "&")) p.stars += s;
      else if (p.name.empty() && src_.tokens[k].k == identifier) p.name = s;
      else p.dims += s;
    }
    return p;
  }

  // What stands for one declarator: a reference to the block's copy of a static array, a
  // pointer to the dynamic shared memory for an extern one.
  static std::string shared_definition(const shared_parts& d, const declarator_parts& p, scope::kind_t where) {
    const std::string type = d.type + p.stars, site = "__builtin_FILE(), __builtin_LINE()";
    if (d.is_extern && where == scope::file_scope)
      return "static thread_local " + type + "* const& " + p.name + " = ::cpusim::dynamic_shared_ref<" + type + ">(); ";
    if (d.is_extern) return type + "* const " + p.name + " = ::cpusim::dynamic_shared<" + type + ">(); ";
    if (where == scope::file_scope)
      return "static ::cpusim::file_shared<" + type + p.dims + ", " + d.align + "> " + p.name + "{\"" + p.name +
             "\", " + site + "}; ";
    return "static char cpusim_site_" + p.name + "; auto& " + p.name + " = ::cpusim::static_shared<" + type + p.dims +
           ", " + d.align + ">(&cpusim_site_" + p.name + ", \"" + p.name + "\", " + site + "); ";
  }

  source& src_;
  bool cu_;
  int errors_ = 0;
  std::vector<edit> edits_;
  std::map<std::string, kernel_info> kernels_;
};

}  // namespace

int main(int argc, char** argv) {
  bool cu = false;
  int arg = 1;
  if (arg < argc && std::strcmp(argv[arg], "--cu") == 0) cu = true, ++arg;
  if (argc - arg != 2) {
    std::fprintf(stderr, "usage: cpusim-rewrite [--cu] IN.ii OUT.ii\n");
    return 2;
  }
  std::ifstream in(argv[arg], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cpusim-rewrite: cannot read %s\n", argv[arg]);
    return 2;
  }
  source src;
  src.text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  tokenize(src);
  rewriter r(src, cu);
  const bool ok = r.run();
  if (!ok) return 1;
  std::ofstream out(argv[arg + 1], std::ios::binary);
  out << r.output();
  return out ? 0 : 2;
}
