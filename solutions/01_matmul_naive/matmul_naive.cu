// Lab 01: naive matrix multiplication, one thread per element of C.
//
// C = A·B with A of M×K, B of K×N and C of M×N, row-major float32 arrays in device memory.
// Every thread computes one element of C as the dot product of a row of A and a column of
// B, reading both straight from global memory. That is two loads for every fused
// multiply-add, so the kernel is limited by memory traffic, not arithmetic: lab 02 cuts the
// traffic with shared memory, lab 03 with registers.
//
// Run and check:  make run LAB=01        Grade:  make grade LAB=01
// The lab's README (labs/01_matmul_naive/README.md) explains the background and the tasks.

#include "common/ceil_div.h"
#include "common/cuda_check.h"
#include "harness/launchers.h"

// ---- constants ----

// A block of 32×8 threads covers 8 rows and 32 columns of C. 32 along x is one warp per
// row: its threads read 32 consecutive floats of a row of B and write 32 consecutive floats
// of C, which the hardware serves as single wide (coalesced) transactions.
constexpr int kBlockCols = 32;
constexpr int kBlockRows = 8;
static_assert(kBlockCols % 32 == 0, "a warp must lie along one row of C for coalescing");
static_assert(kBlockCols * kBlockRows <= 1024, "at most 1024 threads per block");

// ---- kernel ----

// grid  (ceil(N / 32), ceil(M / 8)), block (32, 8)
// A: M×K, B: K×N, C: M×N, row-major. Thread (x, y) of block (bx, by) computes C[row][col]
// for col = bx·32 + x and row = by·8 + y. Threads past the right or bottom edge of C compute
// nothing: the grid is rounded up to whole blocks. One launch covers M up to 65535 · 8 rows
// (a grid has at most 65535 blocks along y); labs 02-04 show how kernels go past that.
__global__ void matmul_naive_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int M, int N, int K) {
  // @task 1: compute this thread's element of C
  // Map threadIdx.x/blockIdx.x to the column and threadIdx.y/blockIdx.y to the row, so that
  // the 32 threads of a warp share a row and read consecutive elements of B.
  // Guard: a thread whose column is >= N, or whose row is >= M, writes nothing.
  // Compute C[row][col] = sum over k of A[row][k] * B[k][col] (row-major: element (r, c) of
  // an R×C matrix is at r*C + c) in a float accumulator, then store it once.
  // Compute products like row * K in 64 bits (size_t): M * K can exceed 2^31.
  // Assessed: correct for every shape (edges included), and its speed.
  // @solution
  const unsigned col = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= unsigned(M) || col >= unsigned(N)) return;
  const float* a = A + size_t(row) * K;  // row `row` of A
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc = fmaf(a[k], B[size_t(k) * N + col], acc);
  C[size_t(row) * N + col] = acc;
  // @end
}

// ---- launcher ----

void matmul_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  // @task 2: launch the kernel over all of C
  // When C has no elements (M or N is 0) there is nothing to do: return without launching
  // (a grid of 0 blocks is a launch error). K = 0 is no special case: every element of C is
  // then an empty sum, 0, which the kernel writes.
  // Block: kBlockCols × kBlockRows threads. Grid: enough blocks to cover all N columns and M
  // rows, rounding up (ceil_div from common/ceil_div.h).
  // Launch matmul_naive_kernel on the default stream and check it with CHECK_LAUNCH().
  // Do not synchronize: the harness does, and times the launch.
  // @solution
  if (M == 0 || N == 0) return;
  const dim3 block(kBlockCols, kBlockRows);
  const dim3 grid(ceil_div(N, kBlockCols), ceil_div(M, kBlockRows));
  matmul_naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
  CHECK_LAUNCH();
  // @end
}
