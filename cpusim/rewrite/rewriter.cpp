// The rewriting pass's walk (rewriter.h): which scope and statement each token is in, and the
// constructs small enough to rewrite in place; the output with the edits applied.
#include "rewriter.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace cpusim::rewrite {

// One pass over the tokens, a branch per construct it rewrites. Long because it stays one
// function on purpose: the branches share the statement's state (where it began, whether it is
// __global__ or __device__, its template), which helpers would each have to be handed.
bool rewriter::run() {
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
    } else if (t.user && (src_.is(i, "cudaLaunchKernel") || src_.is(i, "cudaLaunchCooperativeKernel")) &&
               src_.is(i + 1, "(")) {
      i = launch_call(i, here);
    } else if (t.user && inline_asm(i)) {
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

std::string rewriter::output() {
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

void rewriter::error(size_t i, const std::string& message) {
  const token& t = src_.tokens[i];
  std::fprintf(stderr, "%s:%d: error: %s\n", src_.files[t.file].c_str(), t.line, message.c_str());
  ++errors_;
}

// The index of the token that closes the bracket opened at `open` ("(", "[" or "{"); match_back
// goes the other way; match_angle closes a "<" of template arguments.
size_t rewriter::match(size_t open) const {
  int depth = 0;
  for (size_t j = open; j < src_.tokens.size(); ++j) {
    const std::string s = src_.str(j);
    if (s == "(" || s == "[" || s == "{") ++depth;
    if (s == ")" || s == "]" || s == "}")
      if (--depth == 0) return j;
  }
  return src_.tokens.size() - 1;
}

size_t rewriter::match_back(size_t close) const {
  int depth = 0;
  for (size_t j = close + 1; j-- > 0;) {
    const std::string s = src_.str(j);
    if (s == ")" || s == "]" || s == "}") ++depth;
    if (s == "(" || s == "[" || s == "{")
      if (--depth == 0) return j;
  }
  return 0;
}

kind rewriter::kind_at(size_t i) const { return i < src_.tokens.size() ? src_.tokens[i].k : punct; }

size_t rewriter::match_angle(size_t open) const {
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
std::string rewriter::flat(size_t a, size_t b) const {
  std::string s;
  for (size_t j = a; j < b; ++j) {
    if (!s.empty() && (ident_char(s.back()) || s.back() == ',') && ident_char(src_.text[src_.tokens[j].begin]))
      s += ' ';
    s += src_.str(j);
  }
  return s;
}

scope rewriter::open_scope(const scope& here, size_t stmt, size_t brace, size_t after_template, bool global,
                           bool device) const {
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

void rewriter::blank_pragma(size_t i) {
  std::istringstream words(src_.str(i).substr(1));
  std::string pragma, name;
  words >> pragma >> name;
  if (pragma == "pragma" && (name == "unroll" || name == "nounroll" || name.rfind("nv_", 0) == 0 ||
                             name == "diag_suppress" || name == "diag_default" || name == "diag_warning"))
    edits_.push_back({src_.tokens[i].begin, src_.tokens[i].end, ""});
}

}  // namespace cpusim::rewrite
