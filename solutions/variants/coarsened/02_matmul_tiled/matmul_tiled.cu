// Lab 02, stretch: the tiled kernel with thread coarsening. Not graded; students are graded
// against solutions/02_matmul_tiled/matmul_tiled.cu, which computes one element per thread.
//
// Why one element per thread cannot go much faster: each of its multiply-adds needs one
// value of A and one of B, and both come from shared memory. An SM moves 128 bytes from
// shared memory to registers per clock, one float for each of 32 threads, and does four warps'
// worth of multiply-adds per clock: with two shared loads per multiply-add, shared memory
// runs out at about an eighth of the FMA peak (labs/02_matmul_tiled/README.md).
//
// Here a thread computes kCoarse elements of C in one column, rows kRows apart, with the same
// 32×32 tiles. Its value of B for a given k serves all kCoarse of its rows from a register,
// and its values of A, the same for the whole warp, are read four k at a time (float4):
// per four k, 4 scalar loads of B and kCoarse float4 loads of A feed 4·kCoarse
// multiply-adds. This is PMPP's thread coarsening; lab 03 takes it to two dimensions.
//     make run LAB=02 VARIANT=coarsened

#include <algorithm>

#include "common/ceil_div.h"
#include "common/cuda_check.h"
#include "common/grid_limits.h"
#include "harness/launchers.h"

// ---- constants ----

constexpr int kTile = 32;                // 32×32 tiles of A, B and C, as in the solution
constexpr int kCoarse = 8;               // elements of C per thread, in one column
constexpr int kRows = kTile / kCoarse;   // thread rows per block: blocks of 32×4 threads
static_assert(kTile % kCoarse == 0, "a thread's rows must tile the block's rows");
static_assert(kTile % 4 == 0, "the multiply loop reads a_tile in float4 steps");

// ---- kernel ----

// grid  (ceil(N / 32), min(ceil(M / 32), kMaxGridRows)), block (32, 4)
// A: M×K, B: K×N, C: M×N, row-major. Block (bx, by) computes the 32×32 tile of C at
// (by·32, bx·32) (then by + gridDim.y, ... while rows remain); thread (x, y) computes rows
// y + 4i (i < 8) of the tile in column x, and per step loads A[row][k0 + x] and
// B[k0 + row][col] for those same 8 rows of the tiles (0 outside A or B).
__global__ void matmul_coarsened_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                        float* __restrict__ C, int M, int N, int K) {
  __shared__ __align__(16) float a_tile[kTile][kTile];  // (row in tile, k in tile)
  __shared__ float b_tile[kTile][kTile];                // (k in tile, col in tile)
  const int x = threadIdx.x, y = threadIdx.y;
  const unsigned col = blockIdx.x * kTile + x;

  for (unsigned tile_row = blockIdx.y; tile_row * kTile < unsigned(M); tile_row += gridDim.y) {
    const unsigned m0 = tile_row * kTile;
    float acc[kCoarse] = {};
    for (unsigned k0 = 0; k0 < unsigned(K); k0 += kTile) {
#pragma unroll
      for (int i = 0; i < kCoarse; ++i) {
        const int r = y + i * kRows;
        a_tile[r][x] = (m0 + r < unsigned(M) && k0 + x < unsigned(K)) ? A[size_t(m0 + r) * K + k0 + x] : 0.0f;
        b_tile[r][x] = (k0 + r < unsigned(K) && col < unsigned(N)) ? B[size_t(k0 + r) * N + col] : 0.0f;
      }
      __syncthreads();  // both tiles complete before anyone reads them
#pragma unroll
      for (int k = 0; k < kTile; k += 4) {
        const float b[4] = {b_tile[k][x], b_tile[k + 1][x], b_tile[k + 2][x], b_tile[k + 3][x]};
#pragma unroll
        for (int i = 0; i < kCoarse; ++i) {
          const float4 a = *reinterpret_cast<const float4*>(&a_tile[y + i * kRows][k]);
          acc[i] = fmaf(a.x, b[0], acc[i]);
          acc[i] = fmaf(a.y, b[1], acc[i]);
          acc[i] = fmaf(a.z, b[2], acc[i]);
          acc[i] = fmaf(a.w, b[3], acc[i]);
        }
      }
      __syncthreads();  // everyone done reading before the next step overwrites the tiles
    }
#pragma unroll
    for (int i = 0; i < kCoarse; ++i) {
      const unsigned row = m0 + y + i * kRows;
      if (row < unsigned(M) && col < unsigned(N)) C[size_t(row) * N + col] = acc[i];
    }
  }
}

// ---- launcher ----

void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  if (M == 0 || N == 0) return;
  const dim3 block(kTile, kRows);
  const dim3 grid(ceil_div(N, kTile), std::min(ceil_div(M, kTile), kMaxGridRows));
  matmul_coarsened_kernel<<<grid, block>>>(A, B, C, M, N, K);
  CHECK_LAUNCH();
}
