// Lab 02: tiled matrix multiplication through shared memory.
//
// C = A·B with A of M×K, B of K×N and C of M×N, row-major float32 arrays in device memory.
// Lab 01's threads each read a whole row of A and column of B from global memory, so every
// element of A is fetched N times and every element of B M times. Here a block of TILE×TILE
// threads computes a TILE×TILE tile of C and walks along K one TILE×TILE tile of A and of B
// at a time: the block copies both tiles into shared memory (one element per thread), waits
// until they are complete, and every thread then reads its row and column from shared
// memory. Each element fetched from global memory is used TILE times, so global traffic
// drops by a factor of TILE. What limits this kernel now is shared memory itself: every
// multiply-add needs a value of B from it; the values of A, the same for a whole warp, are
// read four at a time. Lab 03 moves the reuse into registers.
//
// Run and check:  make run LAB=02        Grade:  make grade LAB=02
// The lab's README (labs/02_matmul_tiled/README.md) explains the background and the tasks.

#include <algorithm>

#include "common/ceil_div.h"
#include "common/cuda_check.h"
#include "common/grid_limits.h"
#include "harness/launchers.h"

// ---- constants ----

// 32×32 tiles: a row of a tile is one warp, so tile loads are coalesced, and each element
// loaded from global memory serves 32 multiply-adds. 1024 threads per block: the maximum.
constexpr int kTile = 32;
static_assert(kTile % 32 == 0, "a tile row must be whole warps for coalesced loads");
static_assert(kTile * kTile <= 1024, "one thread per tile element: at most 1024 per block");
static_assert(kTile % 4 == 0, "the multiply loop reads a_tile in float4 steps");

// kMaxGridRows (common/grid_limits.h): at most 65535 blocks along y; taller matrices loop.

// ---- kernel ----

// grid  (ceil(N / TILE), min(ceil(M / TILE), kMaxGridRows)), block (TILE, TILE)
// A: M×K, B: K×N, C: M×N, row-major. Block (bx, by) computes the tile of C whose top-left
// corner is (by·TILE, bx·TILE) (then by + gridDim.y, ... while rows remain); thread (x, y)
// computes its element (row = by·TILE + y, col = bx·TILE + x). Per step along K, thread
// (x, y) loads A[row][k0 + x] and B[k0 + y][col] into the shared tiles, writing 0 where
// the tile hangs over the edge of A or B, so partial tiles need no special case in the loop.
template <int TILE>
__global__ void matmul_tiled_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int M, int N, int K) {
  __shared__ __align__(16) float a_tile[TILE][TILE];  // (row in tile, k in tile)
  __shared__ float b_tile[TILE][TILE];  // (k in tile, col in tile)
  const int x = threadIdx.x, y = threadIdx.y;
  const unsigned col = blockIdx.x * TILE + x;

  // Every thread of the block takes every trip of these loops (the bounds are the same for
  // the whole block), so all of them reach every __syncthreads.
  for (unsigned tile_row = blockIdx.y; tile_row * TILE < unsigned(M); tile_row += gridDim.y) {
    const unsigned row = tile_row * TILE + y;
    float acc = 0.0f;
    for (unsigned k0 = 0; k0 < unsigned(K); k0 += TILE) {
      // TODO(student) 1: stage one tile of A and one tile of B in shared memory
      // Thread (x, y) copies A[row][k0 + x] into a_tile[y][x] and B[k0 + y][col] into
      // b_tile[y][x]. Where that element lies outside A or B (the last tiles along M, N or
      // K are partial), store 0.0f instead: a zero adds nothing to the sums below, so the
      // multiply loop needs no bounds checks. Indices are unsigned (near 2^31 an int one
      // overflows), products such as row * K 64-bit (size_t).
      // Then wait until the whole block has written both tiles: no thread may read a tile
      // element another thread has not written yet.
      // Assessed: correct for every shape (edges included); a missing barrier is caught.

      // TODO(student) 2: multiply the two tiles into this thread's sum
      // acc += a_tile[y][k] * b_tile[k][x] for k in [0, TILE), reading shared memory only.
      // All 32 threads of a warp share y, so they read the same a_tile[y][k]: read four of
      // them at once, a_tile[y][k .. k+3], with one 16-byte float4 load (a_tile's rows are
      // 16-byte aligned). That is 1.25 shared-memory loads per multiply-add instead of 2,
      // and shared-memory loads are what limits this kernel.
      // Then wait again before the next trip overwrites the tiles: a fast thread must not
      // replace a tile that slower threads are still reading.
      // Assessed: correct results; speed (at least the rubric's share of the solution's).
    }
    // TODO(student) 3: store this thread's element of C
    // Only threads inside C write (row < M and col < N); the others computed zeros for
    // padding and must not store them.
  }
}

// ---- launcher ----

void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  // TODO(student) 4: launch the kernel over all of C
  // Return without launching when C has no elements (M or N is 0); with K = 0 the kernel
  // writes the empty sums, zeros. Block: kTile × kTile threads. Grid: one
  // block per tile of C, rounded up (ceil_div), with at most kMaxGridRows in y. Launch
  // matmul_tiled_kernel<kTile> and check it with CHECK_LAUNCH(); do not synchronize.
}
