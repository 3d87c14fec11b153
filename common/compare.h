// Checking a result against the reference, and a report a student can act on.
//
// The error bound. A float32 sum of K products, in any order, with or without FMA, has an
// error of at most about K·u·Σ|a·b| (u = 2^-24) in the worst case. That worst case is far
// too loose to be useful: at K = 4096 it would also accept results computed from TF32 or
// fp16 inputs. The workbook's inputs are independent and uniform in [-1, 1), and for such
// inputs rounding errors partly cancel: measured over every summation order we tried
// (sequential, reversed, pairwise, strided, tiled, FMA or not; K from 1 to 65536), the error
// stays below 5·u·Σ|a·b|. We accept up to kBoundFactor·u·Σ|a·b| per element, and for K <= 16
// that is also the worst case, so no correct fp32 kernel fails. fp16, bf16 or TF32 precision
// gives errors of hundreds to thousands of u·Σ|a·b| at the workbook's sizes and fails.
// tests/common/test_compare.cpp measures both claims. A transpose moves values without arithmetic:
// it must be bit-exact.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reference.h"

namespace lab {

constexpr double kUnitRoundoff = 0x1p-24;  // fp32, round to nearest
constexpr double kBoundFactor = 16.0;

inline double error_bound(double magnitude) { return kBoundFactor * kUnitRoundoff * magnitude; }

struct Mismatch {
  int64_t row = 0, col = 0;  // coordinates in the output
  float got = 0.0f;
  double expected = 0.0;
  double bound = 0.0;  // the largest accepted |got - expected|
};

struct CheckReport {
  int64_t checked = 0;    // elements compared
  int64_t wrong = 0;      // elements outside the bound (NaN included)
  int64_t unwritten = 0;  // elements still holding the NaN poison
  double max_abs_error = 0.0;     // over the finite results
  double max_error_ratio = 0.0;   // max |got - expected| / bound (<= 1 passes)
  std::vector<Mismatch> first;    // the first few (3) mismatches, in row-major order
  std::string hint;               // what the pattern of mismatches suggests

  bool pass() const { return wrong == 0; }
};

// Every element of C (M×N) in the reference's rows, each within error_bound(Σ|a·b|).
CheckReport check_matmul(const float* C, int M, int N, const MatmulReference& ref);

// got (rows × cols) must equal expected bit for bit (-0.0 and 0.0 differ; a NaN never equals).
// `input`, when given, is the un-transposed input (cols × rows): a result that equals it is a
// copy rather than a transpose, and the hint says so.
CheckReport check_exact(const float* got, const float* expected, int rows, int cols,
                        const float* input = nullptr);

CheckReport check_dot(float got, const DotReference& ref);

// The NaN poison of common/fill.h, bit for bit: an element nobody wrote.
bool is_poison(float x);

// How many of the N floats at X are NaN or infinite.
size_t count_nonfinite(const float* x, size_t n);

// Every element is a finite number: for the rows a sampled check skipped, which must still
// have been written.
CheckReport check_finite(const float* got, int64_t rows, int64_t cols);

// The verdict on its first line; then, each after `indent`, the first mismatches and the hint.
std::string format_report(const CheckReport& report, const char* indent = "  ");
// That first line alone, without its newline: "FAIL: 3 of 4096 elements wrong".
std::string verdict_line(const CheckReport& report);

}  // namespace lab
