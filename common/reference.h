// fp64 references computed on the CPU from the same fp32 inputs the kernel saw.
// Alongside each matmul/dot value they return its magnitude sum Σ|a·b|, which scales the
// error bound (see compare.h): rounding errors are relative to the terms summed, not to
// the result, which can be small by cancellation.
#pragma once

#include <cstdint>
#include <vector>

namespace lab {

// Reference for the rows `rows` of C = A·B (A: M×K, B: K×N, row-major). A full check of a
// 4096³ product costs minutes of CPU time, so large problems are checked on sampled rows.
struct MatmulReference {
  int N = 0;
  std::vector<int> rows;          // which rows of C were computed
  std::vector<double> value;      // rows.size() × N: Σ_k a_ik·b_kj
  std::vector<double> magnitude;  // rows.size() × N: Σ_k |a_ik·b_kj|
};
MatmulReference matmul_reference(const float* A, const float* B, int M, int N, int K,
                                 const std::vector<int>& rows);

// The rows to check: all of them when M·N·K is at most `full_limit`, otherwise the first and
// last rows plus `samples` rows drawn with the seed.
std::vector<int> rows_to_check(int M, int N, int K, uint64_t seed, int samples = 64,
                               double full_limit = 1 << 28);

struct DotReference {
  double value = 0.0;      // Σ a_i·b_i
  double magnitude = 0.0;  // Σ |a_i·b_i|
};
DotReference dot_reference(const float* a, const float* b, int64_t n);

// out (cols × rows) = inᵀ (in: rows × cols).
std::vector<float> transpose_reference(const float* in, int rows, int cols);

}  // namespace lab
