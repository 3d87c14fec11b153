// The error bound must accept every correct fp32 result, whatever its summation order, and
// reject results computed in lower precision or wrong in one element; the hints must read
// the common patterns. These are the claims of common/compare.h.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <vector>

#include "common/compare.h"
#include "common/fill.h"
#include "common/reference.h"
#include "tools/text.h"

namespace {

// Rounds to `bits` explicit mantissa bits, to nearest even: 10 for fp16 and TF32, 7 for bf16.
float round_mantissa(float x, int bits) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  const int drop = 23 - bits;
  const uint32_t half = 1u << (drop - 1), lsb = (u >> drop) & 1u;
  u = (u + half - 1 + lsb) & ~((1u << drop) - 1);
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// One way of summing the K products of a row of A and a column of B in fp32.
using DotOrder = std::function<float(const float* a, const float* b, int stride_b, int K)>;

const std::vector<std::pair<const char*, DotOrder>>& fp32_orders() {
  static const std::vector<std::pair<const char*, DotOrder>> orders = {
      {"sequential", [](const float* a, const float* b, int s, int K) {
         float acc = 0;
         for (int k = 0; k < K; ++k) acc += a[k] * b[k * s];
         return acc;
       }},
      {"sequential fma", [](const float* a, const float* b, int s, int K) {
         float acc = 0;
         for (int k = 0; k < K; ++k) acc = std::fma(a[k], b[k * s], acc);
         return acc;
       }},
      {"reversed", [](const float* a, const float* b, int s, int K) {
         float acc = 0;
         for (int k = K - 1; k >= 0; --k) acc = std::fma(a[k], b[k * s], acc);
         return acc;
       }},
      {"pairwise", [](const float* a, const float* b, int s, int K) {
         std::vector<float> p(K);
         for (int k = 0; k < K; ++k) p[k] = a[k] * b[k * s];
         for (int n = K; n > 1; n = (n + 1) / 2) {
           for (int i = 0; i + (n + 1) / 2 < n; ++i) p[i] += p[i + (n + 1) / 2];
         }
         return p[0];
       }},
      {"8 interleaved partial sums", [](const float* a, const float* b, int s, int K) {
         float part[8] = {};
         for (int k = 0; k < K; ++k) part[k % 8] = std::fma(a[k], b[k * s], part[k % 8]);
         float acc = 0;
         for (float x : part) acc += x;
         return acc;
       }},
      {"32-wide tiles, tile sums added", [](const float* a, const float* b, int s, int K) {
         float acc = 0;
         for (int k0 = 0; k0 < K; k0 += 32) {
           float tile = 0;
           for (int k = k0; k < std::min(K, k0 + 32); ++k) tile = std::fma(a[k], b[k * s], tile);
           acc += tile;
         }
         return acc;
       }},
  };
  return orders;
}

// An M×N product computed in fp32 with one summation order, or with inputs rounded first.
std::vector<float> product(const std::vector<float>& A, const std::vector<float>& B, int M, int N, int K,
                           const DotOrder& order, int input_bits = 23) {
  std::vector<float> a(A), b(B), C(size_t(M) * N);
  if (input_bits < 23) {
    for (float& x : a) x = round_mantissa(x, input_bits);
    for (float& x : b) x = round_mantissa(x, input_bits);
  }
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) C[size_t(i) * N + j] = order(&a[size_t(i) * K], &b[j], N, K);
  }
  return C;
}

struct Problem {
  int M, N, K;
  std::vector<float> A, B;
  lab::MatmulReference ref;
  Problem(int M_, int N_, int K_, uint64_t seed = 3) : M(M_), N(N_), K(K_), A(size_t(M_) * K_), B(size_t(K_) * N_) {
    lab::fill_uniform(A.data(), A.size(), seed, 1);
    lab::fill_uniform(B.data(), B.size(), seed, 2);
    ref = lab::matmul_reference(A.data(), B.data(), M, N, K, lab::rows_to_check(M, N, K, seed, M, INFINITY));
  }
  lab::CheckReport check(const std::vector<float>& C) const { return lab::check_matmul(C.data(), M, N, ref); }
};


}  // namespace

TEST_SUITE("compare") {

TEST_CASE("correct fp32 products pass in every summation order") {
  for (const int K : {1, 2, 7, 16, 129, 1024, 4096}) {
    const Problem p(K >= 1024 ? 16 : 40, K >= 1024 ? 16 : 40, K);
    for (const auto& [name, order] : fp32_orders()) {
      CAPTURE(K);
      CAPTURE(name);
      const lab::CheckReport r = p.check(product(p.A, p.B, p.M, p.N, p.K, order));
      CHECK_MESSAGE(r.pass(), lab::format_report(r));
      CHECK(r.max_error_ratio <= 0.5);  // well inside the bound: the margin the header claims
    }
  }
}

TEST_CASE("reduced precision fails") {
  const auto& fma_order = fp32_orders()[1].second;
  for (const int K : {16, 129, 1024, 4096}) {
    const Problem p(24, 24, K);
    const std::vector<float> exact = product(p.A, p.B, p.M, p.N, p.K, fma_order);
    std::vector<float> fp16_result = exact;
    for (float& x : fp16_result) x = round_mantissa(x, 10);
    struct Variant {
      const char* name;
      std::vector<float> C;
    };
    const Variant variants[] = {
        {"result rounded to fp16", fp16_result},
        {"inputs rounded to TF32 / fp16", product(p.A, p.B, p.M, p.N, p.K, fma_order, 10)},
        {"inputs rounded to bf16", product(p.A, p.B, p.M, p.N, p.K, fma_order, 7)},
    };
    for (const Variant& v : variants) {
      CAPTURE(K);
      CAPTURE(v.name);
      const lab::CheckReport r = p.check(v.C);
      CHECK_FALSE(r.pass());
      CHECK(r.wrong * 4 > r.checked);  // not a borderline element or two: most fail
    }
  }
}

TEST_CASE("a single wrong element fails, and is reported with its coordinates") {
  const Problem p(33, 47, 65);
  std::vector<float> C = product(p.A, p.B, p.M, p.N, p.K, fp32_orders()[0].second);
  REQUIRE(p.check(C).pass());
  C[size_t(20) * p.N + 30] = -C[size_t(20) * p.N + 30];
  const lab::CheckReport r = p.check(C);
  CHECK_FALSE(r.pass());
  CHECK(r.wrong == 1);
  REQUIRE(r.first.size() == 1);
  CHECK(r.first[0].row == 20);
  CHECK(r.first[0].col == 30);
  CHECK(tools::contains(lab::format_report(r), "at (20, 30)"));
}

TEST_CASE("unwritten elements fail and are named as such") {
  const Problem p(40, 40, 16);
  std::vector<float> C = product(p.A, p.B, p.M, p.N, p.K, fp32_orders()[0].second);
  SUBCASE("nothing written") {
    lab::fill_poison(C.data(), C.size());
    const lab::CheckReport r = p.check(C);
    CHECK(r.unwritten == r.checked);
    CHECK(tools::contains(r.hint, "nothing was written"));
  }
  SUBCASE("the last rows and columns not written (grid too small)") {
    for (int i = 0; i < p.M; ++i) {
      for (int j = 0; j < p.N; ++j) {
        if (i >= 32 || j >= 32) lab::fill_poison(&C[size_t(i) * p.N + j], 1);
      }
    }
    const lab::CheckReport r = p.check(C);
    CHECK_FALSE(r.pass());
    CHECK(tools::contains(r.hint, "ceil_div"));
  }
  SUBCASE("a grid of the other sizes, rounded up: the launch counts x along the rows, the kernel along the columns") {
    // The solution's blocks of 32 x 8, launched as grid(ceil_div(M, 32), ceil_div(N, 8)) on a
    // 300 x 20 output: columns below ceil_div(300, 32) * 32 = 320 (all 20), rows below
    // ceil_div(20, 8) * 8 = 24.
    const Problem q(300, 20, 7);
    std::vector<float> D = product(q.A, q.B, q.M, q.N, q.K, fp32_orders()[0].second);
    for (int i = 24; i < q.M; ++i) lab::fill_poison(&D[size_t(i) * q.N], size_t(q.N));
    const lab::CheckReport r = q.check(D);
    CHECK_FALSE(r.pass());
    CHECK(tools::contains(r.hint, "only the top-left 24 x 20 corner of the 300 x 20 output was written"));
    CHECK_FALSE(tools::contains(r.hint, "ceil_div"));
  }
  SUBCASE("one element not written") {
    lab::fill_poison(&C[5], 1);
    const lab::CheckReport r = p.check(C);
    CHECK(r.unwritten == 1);
    CHECK(tools::contains(r.hint, "never written"));
  }
}

TEST_CASE("a product scaled by a constant is named as such, and at most 3 mismatches are listed") {
  const Problem p(40, 36, 24);
  std::vector<float> C = product(p.A, p.B, p.M, p.N, p.K, fp32_orders()[0].second);
  for (float& x : C) x *= 2;
  const lab::CheckReport r = p.check(C);
  CHECK_FALSE(r.pass());
  CHECK(tools::contains(r.hint, "every element is 2 times the expected value"));
  CHECK(r.first.size() == 3);
  // One wrong element is not a constant factor.
  std::vector<float> D = product(p.A, p.B, p.M, p.N, p.K, fp32_orders()[0].second);
  D[7] *= 2;
  CHECK_FALSE(tools::contains(p.check(D).hint, "times the expected value"));
}

TEST_CASE("a transposed product fails with a hint") {
  const Problem p(48, 48, 20);
  const std::vector<float> C = product(p.A, p.B, p.M, p.N, p.K, fp32_orders()[0].second);
  std::vector<float> T(C.size());
  for (int i = 0; i < p.M; ++i) {
    for (int j = 0; j < p.N; ++j) T[size_t(j) * p.N + i] = C[size_t(i) * p.N + j];
  }
  const lab::CheckReport r = p.check(T);
  CHECK_FALSE(r.pass());
  CHECK(tools::contains(r.hint, "transpose"));
}

TEST_CASE("wrong values at the start of rows are read as stores from past the right edge (a missing column guard)") {
  const Problem p(40, 21, 9);  // blocks 32 wide: 11 threads past the edge of each row
  std::vector<float> C = product(p.A, p.B, p.M, p.N, p.K, fp32_orders()[0].second);
  // Thread (r, 21 + j) stores row r's "element" 21 + j into row r + 1, column j.
  for (int r = 0; r + 1 < p.M; ++r)
    for (int j = 0; j < 11; ++j) C[size_t(r + 1) * p.N + j] = C[size_t(r) * p.N + j] + 1.0f;
  const lab::CheckReport r = p.check(C);
  CHECK_FALSE(r.pass());
  CHECK(tools::contains(r.hint, "the wrong elements are all in the first 11 columns of rows below the first"));
  CHECK_FALSE(tools::contains(r.hint, "race"));
}

TEST_CASE("wrong values only in the partial edge tiles are read as such") {
  const Problem p(70, 75, 9);  // 64 + 6 rows, 64 + 11 columns
  std::vector<float> C = product(p.A, p.B, p.M, p.N, p.K, fp32_orders()[0].second);
  for (int j = 64; j < p.N; ++j) C[size_t(10) * p.N + j] += 1.0f;
  const lab::CheckReport r = p.check(C);
  CHECK_FALSE(r.pass());
  CHECK(tools::contains(r.hint, "partial"));
}

TEST_CASE("dot products: fp32 orders pass, fp16 arithmetic and a dropped term fail") {
  for (const int n : {1, 33, 4096, 1 << 20}) {
    std::vector<float> a(n), b(n);
    lab::fill_uniform(a.data(), n, 9, 1);
    lab::fill_uniform(b.data(), n, 9, 2);
    const lab::DotReference ref = lab::dot_reference(a.data(), b.data(), n);
    CAPTURE(n);
    for (const auto& [name, order] : fp32_orders()) {
      if (n == (1 << 20) && std::string(name) == "pairwise") continue;  // slow, and the tightest
      CAPTURE(name);
      CHECK(lab::check_dot(order(a.data(), b.data(), 1, n), ref).pass());
    }
    float fp16 = 0;  // every product and partial sum rounded to fp16's mantissa
    for (int i = 0; i < n; ++i) fp16 = round_mantissa(fp16 + round_mantissa(a[i] * b[i], 10), 10);
    if (n > 1) CHECK_FALSE(lab::check_dot(fp16, ref).pass());
    if (n > 1) {
      // A dropped term: the hint is a dot product's, not a matrix's.
      const lab::CheckReport dropped = lab::check_dot(fp32_orders()[1].second(a.data(), b.data(), 1, n - 1), ref);
      CHECK_FALSE(dropped.pass());
      CHECK(tools::contains(dropped.hint, "exactly once"));
      CHECK_FALSE(tools::contains(dropped.hint, "row-major"));
    }
    const lab::CheckReport zero = lab::check_dot(0.0f, ref);
    CHECK_FALSE(zero.pass());
    CHECK(tools::contains(zero.hint, "the result is 0"));
  }
}

TEST_CASE("transposes compare bit for bit") {
  const int rows = 5, cols = 7;
  std::vector<float> in(rows * cols);
  lab::fill_uniform(in.data(), in.size(), 1, 1);
  const std::vector<float> expected = lab::transpose_reference(in.data(), rows, cols);
  CHECK(lab::check_exact(expected.data(), expected.data(), cols, rows).pass());
  SUBCASE("one element off by one ulp") {
    std::vector<float> got = expected;
    got[3] = std::nextafter(got[3], 2.0f);
    CHECK_FALSE(lab::check_exact(got.data(), expected.data(), cols, rows).pass());
  }
  SUBCASE("-0.0 is not 0.0") {
    std::vector<float> zero(1, 0.0f), minus_zero(1, -0.0f);
    CHECK_FALSE(lab::check_exact(minus_zero.data(), zero.data(), 1, 1).pass());
  }
  SUBCASE("a copy instead of a transpose") {
    const lab::CheckReport r = lab::check_exact(in.data(), expected.data(), cols, rows, in.data());
    CHECK_FALSE(r.pass());
    CHECK(tools::contains(r.hint, "copied, not transposed"));
  }
}

TEST_CASE("an empty sum is exactly zero") {
  // K = 0: every element of C is an empty sum; n = 0: so is the dot product.
  const std::vector<int> rows = {0, 1};
  const lab::MatmulReference ref = lab::matmul_reference(nullptr, nullptr, 2, 3, 0, rows);
  std::vector<float> C(6, 0.0f);
  C[4] = -0.0f;
  CHECK(lab::check_matmul(C.data(), 2, 3, ref).pass());
  C[2] = 1e-30f;
  CHECK_FALSE(lab::check_matmul(C.data(), 2, 3, ref).pass());
  lab::fill_poison(C.data(), C.size());
  CHECK(tools::contains(lab::check_matmul(C.data(), 2, 3, ref).hint, "nothing was written"));
  const lab::DotReference empty = lab::dot_reference(nullptr, nullptr, 0);
  CHECK(lab::check_dot(0.0f, empty).pass());
  CHECK_FALSE(lab::check_dot(std::nanf(""), empty).pass());
}

}  // TEST_SUITE
