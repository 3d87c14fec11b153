// The rewriting pass of cpusim-rewrite: one walk over the tokens that keeps track of scopes and
// statements and collects edits, replacements of byte ranges that never add or remove a newline.
// Each construct it rewrites or refuses has its file:
//   rewriter.cpp   the walk, scopes, bracket matching, the output
//   launch.cpp     kernel<<<...>>>(...) launches, and the kernels' template parameters they need;
//                  cudaLaunchKernel and cudaLaunchCooperativeKernel calls
//   shared.cpp     __shared__ declarations
//   refusals.cpp   what needs a GPU or turns off a check: inline PTX, no_sanitize attributes
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tokens.h"

namespace cpusim::rewrite {

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

  bool run();  // false after an error, which it has printed
  std::string output();

 private:
  // rewriter.cpp
  void error(size_t i, const std::string& message);
  size_t match(size_t open) const;
  size_t match_back(size_t close) const;
  kind kind_at(size_t i) const;
  size_t match_angle(size_t open) const;
  std::string flat(size_t a, size_t b) const;
  scope open_scope(const scope& here, size_t stmt, size_t brace, size_t after_template, bool global, bool device) const;
  void blank_pragma(size_t i);

  // launch.cpp
  kernel_info template_params(size_t open, size_t close) const;
  void note_kernel(size_t i, bool is_template, const kernel_info& params);
  size_t launch(size_t i, const scope& here);
  size_t launched_identifier(size_t i, size_t& targs_open) const;
  size_t qualified_begin(size_t last) const;
  size_t configuration_end(size_t i) const;
  bool names_instance(size_t kernel, size_t targs_open, size_t name_end) const;
  size_t launch_call(size_t i, const scope& here);
  size_t argument_end(size_t first, size_t close) const;

  // shared.cpp
  struct shared_parts;
  struct declarator_parts;
  size_t shared_declaration(size_t i, const scope& here);
  size_t declaration_begin(size_t i) const;
  size_t declaration_end(size_t i) const;
  bool split_declaration(size_t first, size_t last, shared_parts& d);
  bool take_type(shared_parts& d) const;
  declarator_parts read_declarator(const std::vector<size_t>& tokens) const;
  static std::string shared_definition(const shared_parts& d, const declarator_parts& p, scope::kind_t where);

  // refusals.cpp
  bool inline_asm(size_t i) const;
  bool turns_off_a_check(size_t i) const;

  source& src_;
  bool cu_;
  int errors_ = 0;
  std::vector<edit> edits_;
  std::map<std::string, kernel_info> kernels_;
};

}  // namespace cpusim::rewrite
