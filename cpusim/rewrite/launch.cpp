// Kernel launches: kernel<<<config>>>(args) becomes a call of ::cpusim::launch, which needs to
// know the kernel's name and, to tell its instances apart, whether the launch names one; so the
// pass notes each __global__ function's template parameters here as it meets them. The launches
// through the runtime API, cudaLaunchKernel((void*)kernel, grid, block, args, ...) and
// cudaLaunchCooperativeKernel, get the kernel itself instead of the void* (launch.h).
#include "rewriter.h"

#include <algorithm>

namespace cpusim::rewrite {

// A template parameter list, from its "<" at `open` to its ">" at `close`: how many parameters a
// launch must name to name an instance.
kernel_info rewriter::template_params(size_t open, size_t close) const {
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
void rewriter::note_kernel(size_t i, bool is_template, const kernel_info& params) {
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

// kernel<<<config>>>(args) -> ::cpusim::launch(site, config, [&](auto&&... a) {...}(args))
size_t rewriter::launch(size_t i, const scope& here) {
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

// cudaLaunchKernel(CAST kernel, ...) -> cudaLaunchKernel(::cpusim::name_kernel("kernel", file, line, kernel), ...)
// CAST, when there is one, is (void*) or (const void*), or reinterpret_cast or static_cast to one.
size_t rewriter::launch_call(size_t i, const scope& here) {
  const size_t open = i + 1, close = match(open);
  if (here.device) {
    error(i, "launching a kernel from device code (dynamic parallelism) needs a GPU: the CPU backend (cpusim) cannot run it");
    return close;
  }
  size_t first = open + 1, last = argument_end(first, close);  // the kernel: tokens [first, last)
  if (first == last) return close;
  size_t kept_close = 0;  // a cast's ")" that closes name_kernel( instead
  if (src_.is(first, "(")) {
    const size_t cast_close = match(first);
    bool only_void_pointer = cast_close > first + 1;
    for (size_t j = first + 1; j < cast_close; ++j)
      only_void_pointer &= src_.is(j, "void") || src_.is(j, "const") || src_.is(j, "*") || src_.is(j, "volatile");
    if (only_void_pointer && cast_close + 1 < last) first = cast_close + 1;
  } else if ((src_.is(first, "reinterpret_cast") || src_.is(first, "static_cast")) && src_.is(first + 1, "<")) {
    const size_t gt = match_angle(first + 1);
    if (src_.is(gt + 1, "(") && match(gt + 1) == last - 1) {
      kept_close = last - 1;
      first = gt + 2;
      last = kept_close;
    }
  }
  std::string name = flat(src_.is(first, "&") ? first + 1 : first, last);
  for (char& c : name)
    if (c == '"' || c == '\\') c = '\'';
  edits_.push_back({src_.tokens[open + 1].begin, src_.tokens[first].begin,
                    "::cpusim::name_kernel(\"" + name + "\", __builtin_FILE(), __builtin_LINE(), "});
  if (kept_close == 0) edits_.push_back({src_.tokens[last - 1].end, src_.tokens[last - 1].end, ")"});
  return first;  // the walk goes on inside the arguments
}

// The end (a "," or the ")" at `close`) of the argument that begins at `first`, past brackets and
// template arguments.
size_t rewriter::argument_end(size_t first, size_t close) const {
  size_t j = first;
  while (j < close && !src_.is(j, ",")) {
    if (src_.is(j, "(") || src_.is(j, "[") || src_.is(j, "{")) j = match(j);
    else if (src_.is(j, "<") && j > first && kind_at(j - 1) == identifier) j = match_angle(j);
    ++j;
  }
  return std::min(j, close);
}

// The token before the "<<<" at `i` that should be the kernel's identifier, past its
// template arguments, whose "<" goes to `targs_open`.
size_t rewriter::launched_identifier(size_t i, size_t& targs_open) const {
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
size_t rewriter::qualified_begin(size_t last) const {
  size_t begin = last;
  while (begin >= 2 && src_.is(begin - 1, "::") && src_.tokens[begin - 2].k == identifier) begin -= 2;
  if (begin >= 1 && src_.is(begin - 1, "::")) --begin;
  return begin;
}

// The first ">" of the ">>>" outside brackets that ends the configuration opened at `i`.
size_t rewriter::configuration_end(size_t i) const {
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
bool rewriter::names_instance(size_t kernel, size_t targs_open, size_t name_end) const {
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

}  // namespace cpusim::rewrite
