// build/host/plain_loops: the labs' arithmetic as the plain loop nests a CPU runs without the CPU
// backend, the yardstick of scripts/bench-backend (which times each lab's solution on the backend
// beside it). One OS thread, the flags of every host program (-O2), no hand vectorization: the
// loops one writes for a CPU, each output element computed as a CUDA thread of lab 01 computes it.
// Usage: plain_loops matmul M N K | transpose ROWS COLS | dot N, then [--reps R] (default 5).
// One untimed call first (the pages of the output); prints "median_ms X" of the R timed ones and
// the timing; exit 2 on bad arguments.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/fill.h"
#include "common/problems.h"
#include "common/timing.h"

namespace {

// C = A B, C[i][j] the sum over k of A[i][k] B[k][j]: a thread's dot product per element.
void matmul(const float* A, const float* B, float* C, int64_t M, int64_t N, int64_t K) {
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      float acc = 0.0f;
      for (int64_t k = 0; k < K; ++k) acc += A[i * K + k] * B[k * N + j];
      C[i * N + j] = acc;
    }
  }
}

void transpose(const float* in, float* out, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) out[c * rows + r] = in[r * cols + c];
  }
}

float dot(const float* a, const float* b, int64_t n) {
  float acc = 0.0f;
  for (int64_t i = 0; i < n; ++i) acc += a[i] * b[i];
  return acc;
}

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr, "plain_loops: %s\nusage: plain_loops matmul M N K | transpose ROWS COLS | dot N  [--reps R]\n", why);
  std::exit(2);
}

int64_t size_arg(const char* text) {
  char* end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (*text == '\0' || *end != '\0' || v < 0) usage((std::string("not a size: ") + text).c_str());
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) usage("which problem, and its sizes?");
  lab::Op op;
  if (!lab::parse_op(argv[1], &op)) usage((std::string("no problem named ") + argv[1]).c_str());
  const int sizes = op == lab::Op::kMatmul ? 3 : op == lab::Op::kTranspose ? 2 : 1;
  if (argc < 2 + sizes) usage("too few sizes");
  int64_t d[3] = {0, 0, 0};
  for (int i = 0; i < sizes; ++i) d[i] = size_arg(argv[2 + i]);
  int reps = 5;
  for (int i = 2 + sizes; i < argc; ++i) {
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = int(size_arg(argv[++i]));
    else usage((std::string("unknown argument ") + argv[i]).c_str());
  }
  if (reps < 1) usage("--reps must be at least 1");

  const lab::Case c = op == lab::Op::kMatmul ? lab::Case::matmul(d[0], d[1], d[2])
                      : op == lab::Op::kTranspose ? lab::Case::transpose(d[0], d[1])
                                                  : lab::Case::dot(d[0]);
  const size_t na = op == lab::Op::kMatmul ? size_t(c.M * c.K) : op == lab::Op::kTranspose ? size_t(c.rows * c.cols) : size_t(c.n);
  const size_t nb = op == lab::Op::kMatmul ? size_t(c.K * c.N) : op == lab::Op::kDot ? size_t(c.n) : 0;
  const size_t nout = op == lab::Op::kMatmul ? size_t(c.M * c.N) : op == lab::Op::kTranspose ? na : 1;
  std::vector<float> a(na), b(nb), out(nout);
  lab::fill_uniform(a.data(), a.size(), 1, 0);
  lab::fill_uniform(b.data(), b.size(), 1, 1);

  std::vector<double> ms;
  volatile float sink = 0.0f;  // the dot's result is used, so the loop stays
  for (int r = -1; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    switch (op) {
      case lab::Op::kMatmul: matmul(a.data(), b.data(), out.data(), c.M, c.N, c.K); break;
      case lab::Op::kTranspose: transpose(a.data(), out.data(), c.rows, c.cols); break;
      case lab::Op::kDot: sink = sink + dot(a.data(), b.data(), c.n); break;
    }
    if (r >= 0) ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  const lab::Timing t = lab::summarize(ms);
  std::printf("median_ms %.6f\ntiming %s\n", t.median, t.describe().c_str());
  return 0;
}
