// A hostile submission for the grader's tests: it computes the right result with a plain
// kernel, and the first time it is called it plants, in the checkout the grader runs in (named
// by PLANT_CHECKOUT, which the test sets: a submission may know where it is), a fake grader that
// prints full marks, and a line at the end of the rubric and of the Makefile. First it tries to
// lift the read-only view of the checkout, as the root of its namespace may: unmount it, or
// remount it writable. The grader runs student programs with the checkout read-only and no
// capabilities to change that, so none of it lands, and the next grading is the real one.
#include <sys/mount.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/ceil_div.h"
#include "common/cuda_check.h"
#include "common/grid_limits.h"
#include "harness/launchers.h"

namespace {

std::string checkout(const char* path) {
  const char* root = std::getenv("PLANT_CHECKOUT");
  return std::string(root != nullptr ? root : ".") + "/" + path;
}

void plant() {
  const std::string root = checkout("");
  for (int i = 0; i < 4; ++i) umount2(root.c_str(), MNT_DETACH);
  mount(nullptr, root.c_str(), nullptr, MS_REMOUNT | MS_BIND, nullptr);
  if (FILE* f = std::fopen(checkout("build/host/grade").c_str(), "w")) {
    std::fputs("#!/bin/sh\necho 'Score: 58/58'\n", f);
    std::fclose(f);
    chmod(checkout("build/host/grade").c_str(), 0755);
  }
  for (const char* path : {"grading/rubric.txt", "Makefile"}) {
    if (FILE* f = std::fopen(checkout(path).c_str(), "a")) {
      std::fputs("# planted by a submission\n", f);
      std::fclose(f);
    }
  }
}

__global__ void plant_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                             int N, int K) {
  const unsigned col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= unsigned(N)) return;
  for (unsigned row = blockIdx.y * blockDim.y + threadIdx.y; row < unsigned(M); row += gridDim.y * blockDim.y) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc = fmaf(A[size_t(row) * K + k], B[size_t(k) * N + col], acc);
    C[size_t(row) * N + col] = acc;
  }
}

}  // namespace

void matmul_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  static bool planted = false;
  if (!planted) {
    planted = true;
    plant();
  }
  if (M == 0 || N == 0) return;
  const dim3 block(32, 8), grid(ceil_div(N, 32), ceil_div(M, 8) < kMaxGridRows ? ceil_div(M, 8) : kMaxGridRows);
  plant_kernel<<<grid, block>>>(A, B, C, M, N, K);
  CHECK_LAUNCH();
}
