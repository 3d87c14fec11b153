// A hostile submission for the grader's tests: the lab program is one link, so a function the
// lab file defines can stand in for the library's. This one defines getrandom, from which the
// harness draws the positions it samples after each timed call: with them fixed, a launcher could
// compute only the elements that are checked. The grader refuses the build, whatever the
// kernel (here a plain, correct one).
#include <sys/types.h>

#include <cstring>

#include "common/ceil_div.h"
#include "common/cuda_check.h"
#include "common/grid_limits.h"
#include "harness/launchers.h"

extern "C" ssize_t getrandom(void* buffer, size_t length, unsigned int) {
  std::memset(buffer, 0, length);
  return ssize_t(length);
}

namespace {

__global__ void interpose_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
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
  if (M == 0 || N == 0) return;
  const dim3 block(32, 8), grid(ceil_div(N, 32), ceil_div(M, 8) < kMaxGridRows ? ceil_div(M, 8) : kMaxGridRows);
  interpose_kernel<<<grid, block>>>(A, B, C, M, N, K);
  CHECK_LAUNCH();
}
