// Lab 01 with the thread mapping turned around: threadIdx.x walks down the rows of C and
// threadIdx.y along its columns. It computes the same result as the solution, but the 32
// threads of a warp now hold 32 different rows: each of their loads of A is 32 floats K
// apart (32 separate memory transactions instead of one), and each store of C 32 floats N
// apart. Only the reads of B, now the same element for the whole warp, get cheaper.
// labs/01_matmul_naive/README.md compares the two:
//     make run LAB=01 SRC=solutions/variants/rows_on_x

#include "common/ceil_div.h"
#include "common/cuda_check.h"
#include "harness/launchers.h"

// The solution's block, 32 × 8 threads, with x along the rows: a warp spans 32 rows of C.
constexpr int kBlockX = 32;
constexpr int kBlockY = 8;

// grid (ceil(M / 32), ceil(N / 8)), block (32, 8): thread (x, y) computes C[bx·32 + x][by·8 + y].
__global__ void matmul_rows_on_x_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                        float* __restrict__ C, int M, int N, int K) {
  const unsigned row = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= unsigned(M) || col >= unsigned(N)) return;
  const float* a = A + size_t(row) * K;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc = fmaf(a[k], B[size_t(k) * N + col], acc);
  C[size_t(row) * N + col] = acc;
}

void matmul_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  if (M == 0 || N == 0) return;
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid(ceil_div(M, kBlockX), ceil_div(N, kBlockY));
  matmul_rows_on_x_kernel<<<grid, block>>>(A, B, C, M, N, K);
  CHECK_LAUNCH();
}
