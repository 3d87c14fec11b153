// The three problems the labs solve (matrix product, transpose, dot product): their sizes,
// inputs, amount of work and the check of a result. Host code only: the grader's verdict
// process uses it without running any GPU code.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/compare.h"

namespace lab {

enum class Op { kMatmul, kTranspose, kDot };
const char* op_name(Op op);  // "matmul", "transpose", "dot"
bool parse_op(const std::string& name, Op* op);  // and back; false for another name

// One problem instance. Sizes may be 0, with the meaning harness/launchers.h gives them.
struct Case {
  Op op = Op::kMatmul;
  int64_t M = 0, N = 0, K = 0;  // kMatmul: A is M×K, B is K×N, C is M×N
  int64_t rows = 0, cols = 0;   // kTranspose: in is rows×cols, out is cols×rows
  int64_t n = 0;                // kDot: the vectors' length
  int64_t offset = 0;           // inputs and output start this many floats past an aligned
                                // address: launchers must not assume 16-byte alignment

  static Case matmul(int64_t M, int64_t N, int64_t K);
  static Case transpose(int64_t rows, int64_t cols);
  static Case dot(int64_t n);
  // The sizes as three numbers, as files and the serve protocol write them: M N K, rows cols 0,
  // n 0 0; and back, with the op's name. False for an op that is none of the three.
  void dims(int64_t out[3]) const;
  static bool from_dims(const std::string& op, const int64_t dims[3], Case* out);

  std::string describe() const;               // "M=17 N=31 K=13", "n=1025 offset=1"
  std::string text() const;                   // as the rubric writes a shape: "17x31x13", "1025@1"
  std::vector<std::string> size_args() const;  // a lab program's arguments: {"--m", "17", ...}
  bool empty() const;                         // a size is 0: no arithmetic (K = 0 still has outputs)
  std::vector<std::string> input_names() const;  // {"A", "B"}
  std::vector<size_t> input_counts() const;   // elements of each input
  size_t output_count() const;                // elements of the output
  int output_cols() const;                    // the output as a matrix: its row length
  double device_bytes() const;                // memory the inputs and output need
  size_t guard_floats() const;                // each of the output's guard zones: 256 of its rows

  // The work that measures speed: 2·M·N·K flops for a matmul; for the memory-bound ops
  // the fewest bytes that must cross device memory (each input read once, the output
  // written once).
  double flops() const;
  double min_bytes() const;
  bool compute_bound() const { return op == Op::kMatmul; }
  // The rate achieved in `ms` milliseconds, in TFLOP/s (compute bound) or TB/s.
  double rate(double ms) const;
  const char* rate_unit() const;
};

// Seeded inputs for a case, one vector per input.
std::vector<std::vector<float>> make_inputs(const Case& c, uint64_t seed);

// Compares an output with the fp64 reference computed from `inputs`. Large matrix products
// are checked on sampled rows (every element of the output is still required to be
// written); `full` checks every row.
CheckReport check_output(const Case& c, const std::vector<std::vector<float>>& inputs,
                         const float* output, uint64_t seed, bool full = false);

}  // namespace lab
