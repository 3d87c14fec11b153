// Lab 02: tiled matrix multiplication through shared memory.
//
// C = A·B with A of M×K, B of K×N and C of M×N, row-major float32 arrays in device memory.
// Lab 01's threads each read a whole row of A and column of B from global memory: two
// global loads for every multiply-add. Here a block of TILE×TILE threads computes a
// TILE×TILE tile of C and walks along K one TILE×TILE tile of A and of B at a time: the
// block copies both tiles into shared memory, one element of each per thread, waits until
// they are complete, and every thread then reads its row and column from shared memory.
//
// Each element fetched from global memory then serves TILE multiply-adds: 2/TILE global
// loads per multiply-add instead of 2, 1/16 for TILE = 32 (`make profile LAB=02` counts
// them). What limits this kernel now is shared memory: every multiply-add reads a value of
// B from it. Lab 03 moves the reuse into registers.
//
// Given: the tile size, the shared tiles, the thread's row and column, the loop along K in
// steps of TILE, and the loop over rows of tiles, which only matrices taller than 65535
// tiles take (the grid's limit in y; one graded shape is that tall).
//
// You write: the staging of both tiles (task 1), the multiply (task 2), the store (task 3),
// the barriers that make the block's threads wait for each other, and the launcher (task 4).
//
// Besides shared memory and __syncthreads, this file uses nothing lab 01 did not: no
// vector loads, no warp-level primitives, no library.
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

// kMaxGridRows (common/grid_limits.h): at most 65535 blocks along y; taller matrices loop.

// ---- kernel ----

// grid  (ceil(N / TILE), min(ceil(M / TILE), kMaxGridRows)), block (TILE, TILE)
// A: M×K, B: K×N, C: M×N, row-major. Block (bx, by) computes the tile of C whose top-left
// corner is (by·TILE, bx·TILE) (then by + gridDim.y, ... while rows remain); thread (x, y)
// computes its element (row = by·TILE + y, col = bx·TILE + x). The loops' bounds are the
// same for the whole block, so every thread takes every trip of them.
template <int TILE>
__global__ void matmul_tiled_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int M, int N, int K) {
  // a_tile's rows are 16-byte aligned so that the compiler can read a_tile[y][k .. k+3],
  // the same four floats for a whole warp, with one 16-byte load.
  __shared__ __align__(16) float a_tile[TILE][TILE];  // (row in tile, k in tile)
  __shared__ float b_tile[TILE][TILE];                // (k in tile, col in tile)
  const int x = threadIdx.x, y = threadIdx.y;
  const unsigned col = blockIdx.x * TILE + x;

  for (unsigned tile_row = blockIdx.y; tile_row * TILE < unsigned(M); tile_row += gridDim.y) {
    const unsigned row = tile_row * TILE + y;
    float acc = 0.0f;
    for (unsigned k0 = 0; k0 < unsigned(K); k0 += TILE) {
      // TODO(student) 1: stage one tile of A and one tile of B in shared memory
      // Afterwards a_tile[r][k] holds A[tile_row·TILE + r][k0 + k] and b_tile[k][c] holds
      // B[k0 + k][bx·TILE + c], for every r, k, c in [0, TILE), and every thread of the block
      // may read all of both tiles. The block's threads copy them together, a warp's reads
      // coalesced as in lab 01. The last tiles along M, N and K hang over the edge of A or B,
      // yet task 2 reads every element of both tiles without a bounds check.
      // Decide what an element of a tile that lies outside A or B holds.
      // Budget: per thread at most 2 global reads (one of A, one of B), 2 shared stores and 1
      // barrier; about 3 lines.
      // Assessed: correct for every shape (edges included); a missing barrier is caught.

      // TODO(student) 2: multiply the two tiles into this thread's sum
      // Add to acc the dot product of row y of a_tile and column x of b_tile: TILE
      // multiply-adds, from shared memory only. Then the next trip overwrites both tiles.
      // Decide whether the block must wait again before that, and where.
      // Budget: no global access; TILE reads of each tile; at most 1 barrier; about 2 lines.
      // Assessed: correct results; speed (at least the rubric's share of the solution's).
    }
    // TODO(student) 3: store this thread's element of C
    // C[row][col] = acc for every element of C. The threads of the padding, past the edge of
    // C, took part in the loads and the barriers; they write nothing.
    // Decide which threads write.
    // Budget: 1 global write per thread inside C; 1 line.
    // Assessed: correct for every shape, nothing written outside C.
  }
}

// ---- launcher ----

void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  // TODO(student) 4: launch the kernel over all of C
  // Launch matmul_tiled_kernel<kTile> on the default stream with blocks of kTile × kTile
  // threads, one block per tile of C as the kernel's contract says, for every shape the
  // grader checks: sizes that are not multiples of the tile, 0 (no launch when C has no
  // elements; with K = 0 the kernel writes the empty sums, zeros), and M = 2,100,000, more
  // tiles than a grid holds in y (kMaxGridRows, common/grid_limits.h; the kernel's loop over
  // rows of tiles does the rest). Check the launch with CHECK_LAUNCH(); do not synchronize.
  // Decide the grid.
  // Budget: one launch; about 5 lines.
  // Assessed: correct for every shape, the tall one included.
}
