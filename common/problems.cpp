#include "common/problems.h"

#include <cmath>
#include <cstdio>

#include "common/fill.h"
#include "common/reference.h"

namespace lab {

const char* op_name(Op op) { return op == Op::kMatmul ? "matmul" : op == Op::kTranspose ? "transpose" : "dot"; }

bool parse_op(const std::string& name, Op* op) {
  for (Op o : {Op::kMatmul, Op::kTranspose, Op::kDot}) {
    if (name == op_name(o)) {
      *op = o;
      return true;
    }
  }
  return false;
}

Case Case::matmul(int64_t M, int64_t N, int64_t K) {
  Case c;
  c.op = Op::kMatmul;
  c.M = M, c.N = N, c.K = K;
  return c;
}

Case Case::transpose(int64_t rows, int64_t cols) {
  Case c;
  c.op = Op::kTranspose;
  c.rows = rows, c.cols = cols;
  return c;
}

Case Case::dot(int64_t n) {
  Case c;
  c.op = Op::kDot;
  c.n = n;
  return c;
}

void Case::dims(int64_t out[3]) const {
  out[0] = op == Op::kMatmul ? M : op == Op::kTranspose ? rows : n;
  out[1] = op == Op::kMatmul ? N : op == Op::kTranspose ? cols : 0;
  out[2] = op == Op::kMatmul ? K : 0;
}

bool Case::from_dims(const std::string& name, const int64_t d[3], Case* out) {
  Op op;
  if (!parse_op(name, &op)) return false;
  *out = op == Op::kMatmul ? matmul(d[0], d[1], d[2]) : op == Op::kTranspose ? transpose(d[0], d[1]) : dot(d[0]);
  return true;
}

std::vector<std::string> Case::size_args() const {
  switch (op) {
    case Op::kMatmul:
      return {"--m", std::to_string(M), "--n", std::to_string(N), "--k", std::to_string(K)};
    case Op::kTranspose:
      return {"--rows", std::to_string(rows), "--cols", std::to_string(cols)};
    case Op::kDot:
      return {"--n", std::to_string(n)};
  }
  return {};
}

std::string Case::describe() const {
  char text[128];
  switch (op) {
    case Op::kMatmul: snprintf(text, sizeof text, "M=%lld N=%lld K=%lld", (long long)M, (long long)N, (long long)K); break;
    case Op::kTranspose: snprintf(text, sizeof text, "rows=%lld cols=%lld", (long long)rows, (long long)cols); break;
    case Op::kDot: snprintf(text, sizeof text, "n=%lld", (long long)n); break;
  }
  if (offset != 0) return text + (" offset=" + std::to_string(offset));
  return text;
}

std::string Case::text() const {
  std::string t;
  switch (op) {
    case Op::kMatmul: t = std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K); break;
    case Op::kTranspose: t = std::to_string(rows) + "x" + std::to_string(cols); break;
    case Op::kDot: t = std::to_string(n); break;
  }
  return offset != 0 ? t + "@" + std::to_string(offset) : t;
}

bool Case::empty() const {
  switch (op) {
    case Op::kMatmul: return M == 0 || N == 0 || K == 0;
    case Op::kTranspose: return rows == 0 || cols == 0;
    case Op::kDot: return n == 0;
  }
  return true;
}

std::vector<std::string> Case::input_names() const {
  switch (op) {
    case Op::kMatmul: return {"A", "B"};
    case Op::kTranspose: return {"in"};
    case Op::kDot: return {"a", "b"};
  }
  return {};
}

std::vector<size_t> Case::input_counts() const {
  switch (op) {
    case Op::kMatmul: return {size_t(M * K), size_t(K * N)};
    case Op::kTranspose: return {size_t(rows * cols)};
    case Op::kDot: return {size_t(n), size_t(n)};
  }
  return {};
}

size_t Case::output_count() const {
  switch (op) {
    case Op::kMatmul: return size_t(M * N);
    case Op::kTranspose: return size_t(rows * cols);
    case Op::kDot: return 1;
  }
  return 0;
}

int Case::output_cols() const { return int(op == Op::kMatmul ? N : op == Op::kTranspose ? rows : 1); }

double Case::device_bytes() const {
  // In double: sizes near the int limit multiply past 2^64.
  switch (op) {
    case Op::kMatmul: return 4.0 * (double(M) * K + double(K) * N + double(M) * N);
    case Op::kTranspose: return 8.0 * double(rows) * cols;
    case Op::kDot: return 8.0 * double(n) + 4.0;
  }
  return 0;
}

// 256 rows: the tallest block tile of the labs (lab 03's), so a kernel that writes its partial
// tile rows unguarded stays inside the guard. At most 2^24 floats (64 MiB) for very wide outputs:
// an overrun is noticed from its first element, the rest only limits the damage.
size_t Case::guard_floats() const { return 4096 + std::min<size_t>(256 * size_t(output_cols()), size_t(1) << 24); }

double Case::flops() const {
  switch (op) {
    case Op::kMatmul: return 2.0 * double(M) * N * K;
    case Op::kTranspose: return 0.0;
    case Op::kDot: return 2.0 * double(n);
  }
  return 0;
}

double Case::min_bytes() const { return device_bytes(); }

double Case::rate(double ms) const {
  const double seconds = ms * 1e-3;
  return (compute_bound() ? flops() : min_bytes()) / seconds / 1e12;
}

const char* Case::rate_unit() const { return compute_bound() ? "TFLOP/s" : "TB/s"; }

std::vector<std::vector<float>> make_inputs(const Case& c, uint64_t seed) {
  std::vector<std::vector<float>> inputs;
  const std::vector<size_t> counts = c.input_counts();
  for (size_t i = 0; i < counts.size(); ++i) {
    inputs.emplace_back(counts[i]);
    fill_uniform(inputs.back().data(), counts[i], seed, i + 1);
  }
  return inputs;
}

CheckReport check_output(const Case& c, const std::vector<std::vector<float>>& inputs,
                         const float* output, uint64_t seed, bool full) {
  switch (c.op) {
    case Op::kMatmul: {
      const int M = int(c.M), N = int(c.N), K = int(c.K);
      // Rows outside the sample must still have been written.
      const std::vector<int> rows = full ? rows_to_check(M, N, K, seed, M, INFINITY)
                                         : rows_to_check(M, N, K, seed);
      CheckReport report = check_matmul(output, M, N, matmul_reference(inputs[0].data(), inputs[1].data(), M, N, K, rows));
      if (report.pass() && int(rows.size()) < M) {
        const CheckReport written = check_finite(output, M, N);
        if (!written.pass()) return written;
      }
      return report;
    }
    case Op::kTranspose: {
      const int rows = int(c.rows), cols = int(c.cols);
      const std::vector<float> expected = transpose_reference(inputs[0].data(), rows, cols);
      return check_exact(output, expected.data(), cols, rows, inputs[0].data());
    }
    case Op::kDot:
      return check_dot(output[0], dot_reference(inputs[0].data(), inputs[1].data(), c.n));
  }
  return {};
}

}  // namespace lab
