// __shared__ declarations: each declarator becomes a reference to the block's copy of a static
// array, or a pointer to the block's dynamic shared memory for an extern one (the runtime's
// static_shared, file_shared, dynamic_shared).
#include "rewriter.h"

namespace cpusim::rewrite {

// A __shared__ declaration taken apart.
struct rewriter::shared_parts {
  bool is_extern = false;
  std::string align = "16";
  std::string type;  // the first declarator's, which the others share
  std::vector<std::vector<size_t>> declarators = std::vector<std::vector<size_t>>(1);
};

// One declarator's name, and the '*'s before it and the dimensions after it.
struct rewriter::declarator_parts {
  std::string stars, name, dims;
};

// A declaration with __shared__ (at token i), from its start to its ';'.
size_t rewriter::shared_declaration(size_t i, const scope& here) {
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
size_t rewriter::declaration_begin(size_t i) const {
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
size_t rewriter::declaration_end(size_t i) const {
  size_t last = i;
  while (last < src_.tokens.size() && !src_.is(last, ";")) {
    if (src_.is(last, "(") || src_.is(last, "[") || src_.is(last, "{")) last = match(last);
    ++last;
  }
  return last;
}

// Specifiers out, alignment noted, declarators split at top-level commas; false, after an
// error, for an initializer.
bool rewriter::split_declaration(size_t first, size_t last, shared_parts& d) {
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
bool rewriter::take_type(shared_parts& d) const {
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

rewriter::declarator_parts rewriter::read_declarator(const std::vector<size_t>& tokens) const {
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
std::string rewriter::shared_definition(const shared_parts& d, const declarator_parts& p, scope::kind_t where) {
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

}  // namespace cpusim::rewrite
