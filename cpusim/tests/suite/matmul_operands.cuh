// Shared by the suite's matrix products (matmul_shared, missing_barrier, bench_cpusim): seeded
// operands on the device, and the product checked against the host's. The operands are small
// integers, so every sum is exact and a CPU and a GPU print the same checksum.
#pragma once

#include <cstddef>
#include <vector>

#include "check.cuh"

// Row-major A (M x K) and B (K x N) of integers from lcg(seed) in [-range, range], copied to the
// device, and room there for C (M x N).
struct matmul_operands {
  int M, K, N;
  std::vector<float> a, b;
  float *d_a, *d_b, *d_c;

  matmul_operands(int rows, int inner, int cols, unsigned seed, int range)
      : M(rows), K(inner), N(cols), a(size_t(rows) * inner), b(size_t(inner) * cols) {
    lcg rng(seed);
    for (float& x : a) x = rng.next(-range, range);
    for (float& x : b) x = rng.next(-range, range);
    CUDA_CHECK(cudaMalloc(&d_a, a.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_b, b.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_c, size_t(M) * N * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_a, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
};

// C = A * B as the device left it, against the host's product: the elements that differ (with
// exact sums, none may) and a checksum weighted by position, which shows a wrong C even where
// the count is all a reader compares.
struct matmul_verdict {
  int wrong = 0;
  long long checksum = 0;
};

inline matmul_verdict check_product(const matmul_operands& m) {
  std::vector<float> c(size_t(m.M) * m.N);
  CUDA_CHECK(cudaMemcpy(c.data(), m.d_c, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
  matmul_verdict v;
  for (int i = 0; i < m.M; ++i)
    for (int j = 0; j < m.N; ++j) {
      float ref = 0;
      for (int k = 0; k < m.K; ++k) ref += m.a[i * m.K + k] * m.b[k * m.N + j];
      v.wrong += c[i * m.N + j] != ref;
      v.checksum += (long long)c[i * m.N + j] * (i + 2 * j + 1);
    }
  return v;
}
