// Shared by the cpusim suite programs (cpusim/tests/suite/*.cu): one error macro and one seeded
// generator. Messages go to stdout, in order with the programs' results, so that the CPU and the
// GPU runs can be compared line by line.
#pragma once

#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define CUDA_CHECK(expr)                                                                         \
  do {                                                                                           \
    cudaError_t err_ = (expr);                                                                   \
    if (err_ != cudaSuccess) {                                                                   \
      printf("%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #expr, cudaGetErrorName(err_),   \
             cudaGetErrorString(err_));                                                          \
      exit(1);                                                                                   \
    }                                                                                            \
  } while (0)

// Small integers from a fixed-seed LCG: sums and products of them are exact in float, so a CPU
// and a GPU (with or without fused multiply-adds) print the same digits.
struct lcg {
  unsigned state;
  explicit lcg(unsigned seed) : state(seed) {}
  int next(int lo, int hi) {
    state = state * 1664525u + 1013904223u;
    return lo + int((state >> 8) % unsigned(hi - lo + 1));
  }
};
