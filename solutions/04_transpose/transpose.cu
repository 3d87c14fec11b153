// Lab 04: matrix transpose through a shared-memory tile.
//
// out = inᵀ: in is rows×cols and out is cols×rows, row-major float32 arrays in device
// memory. A transpose does no arithmetic; its speed is how well it moves memory. Reading in
// row by row is coalesced, but then each warp writes a column of out: 32 floats `rows`
// apart, 32 separate memory transactions. Here a block copies a 64×64 tile of in into shared
// memory with coalesced reads, and writes it out transposed with coalesced writes, taking
// the columns from shared memory instead. A column of a 64-float-wide tile lies in one of
// shared memory's 32 banks, so reading it would serialize 32 ways; one float of padding per
// row moves each element of a column to a different bank. Each thread moves 8 elements
// (blocks of 64×8 threads), so that many loads are in flight per thread: memory latency,
// not bandwidth, is what a transpose must hide.
//
// Run and check:  make run LAB=04        Grade:  make grade LAB=04
// The lab's README (labs/04_transpose/README.md) explains the background and the tasks.

#include <algorithm>

#include "common/ceil_div.h"
#include "common/cuda_check.h"
#include "common/grid_limits.h"
#include "harness/launchers.h"

// ---- constants ----

constexpr int kTile = 64;       // a block moves a kTile × kTile tile
constexpr int kBlockRows = 8;   // threads per block: kTile × kBlockRows
constexpr int kPad = 1;         // extra float per tile row: columns spread over all banks
static_assert(kTile % 32 == 0, "a tile row is whole warps, so reads and writes are coalesced");
static_assert(kTile % kBlockRows == 0, "each thread moves kTile / kBlockRows elements");
// The blocks that fill a multiprocessor of 2048 threads, as on sm_70, sm_80 and sm_90 (the
// H100). __launch_bounds__ needs the number at compile time, before any device can be asked;
// where a multiprocessor holds fewer threads (1024 on sm_75, 1536 on sm_86 and sm_89) fewer
// blocks fit, and the bound only keeps registers lower than they need to be.
constexpr int kMaxThreadsPerSM = 2048;
constexpr int kBlocksPerSM = kMaxThreadsPerSM / (kTile * kBlockRows);  // 4

// ---- kernel ----

// grid  (ceil(cols / 64), min(ceil(rows / 64), kMaxGridRows)), block (64, 8)
// in: rows×cols, out: cols×rows, row-major. Block (bx, by) moves the tile of in whose
// top-left corner is (by·64, bx·64) (then by + gridDim.y, ... while rows remain). Thread
// (x, y) reads in[r0 + y + 8j][c0 + x] for j < 8 into tile[y + 8j][x], and writes
// out[c0 + y + 8j][r0 + x] = tile[x][y + 8j]: along x both times, so a warp reads and writes
// 32 consecutive floats. Elements outside the matrix are neither read nor written.
// __launch_bounds__: 4 blocks of 512 threads fill a multiprocessor (2048 threads) only if a
// thread needs at most 32 registers; left alone the compiler takes more and fewer blocks
// fit (labs/04_transpose/README.md measures the cost).
__global__ void __launch_bounds__(kTile * kBlockRows, kBlocksPerSM)
    transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[kTile][kTile + kPad];
  const int x = threadIdx.x, y = threadIdx.y;
  const unsigned c0 = blockIdx.x * kTile;

  for (unsigned tile_row = blockIdx.y; tile_row * kTile < unsigned(rows); tile_row += gridDim.y) {
    const unsigned r0 = tile_row * kTile;
    // @task 1: read the tile, coalesced
    // Thread (x, y) copies in[r0 + y + j][c0 + x] into tile[y + j][x] for j = 0, kBlockRows,
    // 2·kBlockRows, ... < kTile, skipping elements outside in (row >= rows or col >= cols).
    // Indices are unsigned (near 2^31 an int one overflows), products such as row * cols
    // 64-bit (size_t). Then wait until the whole tile is in shared memory.
    // @solution
#pragma unroll
    for (int j = 0; j < kTile; j += kBlockRows) {
      const unsigned r = r0 + y + j, c = c0 + x;
      if (r < unsigned(rows) && c < unsigned(cols)) tile[y + j][x] = in[size_t(r) * cols + c];
    }
    __syncthreads();
    // @end

    // @task 2: write the tile transposed, coalesced
    // Row c0 + y + j of out is column c0 + y + j of in: thread (x, y) writes
    // out[c0 + y + j][r0 + x] = tile[x][y + j] for the same j, skipping elements outside out
    // (out has cols rows and rows columns). Then wait again before the next trip of the loop
    // reuses the tile.
    // Assessed: bit-exact for every shape; bank conflicts show in the speed.
    // @solution
#pragma unroll
    for (int j = 0; j < kTile; j += kBlockRows) {
      const unsigned out_row = c0 + y + j, out_col = r0 + x;
      if (out_row < unsigned(cols) && out_col < unsigned(rows)) out[size_t(out_row) * rows + out_col] = tile[x][y + j];
    }
    __syncthreads();
    // @end
  }
}

// ---- launcher ----

void transpose(const float* in, float* out, int rows, int cols) {
  // @task 3: launch the kernel over the whole matrix
  // Return without launching when the matrix is empty. Block: kTile × kBlockRows threads. Grid: one
  // block per kTile × kTile tile of in (ceil_div), at most kMaxGridRows in y. Check the
  // launch with CHECK_LAUNCH(); do not synchronize.
  // @solution
  if (rows == 0 || cols == 0) return;
  const dim3 block(kTile, kBlockRows);
  const dim3 grid(ceil_div(cols, kTile), std::min(ceil_div(rows, kTile), kMaxGridRows));
  transpose_kernel<<<grid, block>>>(in, out, rows, cols);
  CHECK_LAUNCH();
  // @end
}
