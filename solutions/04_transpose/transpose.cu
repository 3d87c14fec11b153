// Lab 04: matrix transpose through a shared-memory tile.
//
// transpose(in, out, rows, cols) writes out = inᵀ: in is rows×cols and out cols×rows,
// row-major float32 arrays in device memory, each size from 0 to 2^31 - 1. Every element of
// out is written, bit for bit equal to its source, and nothing outside out. The call enqueues
// its work on the default stream and returns, without synchronizing (harness/launchers.h).
//
// A transpose does no arithmetic: its speed is how well it moves memory, and its ceiling is a
// device-to-device copy of the same bytes. A block moves one 64×64 tile of in at a time
// through shared memory, so that its reads of in and its writes of out can both be coalesced.
//
// Given: the tile and block sizes (kTile, kBlockRows: 64×8 threads, 8 elements each); the
// launch bounds that let 4 such blocks share a multiprocessor; the tile in shared memory; each
// thread's coordinates (x, y); and the loop over the tiles a block moves, with each tile's
// corner (r0, c0) (a grid holds at most 65,535 blocks in y, so a block may move several).
//
// Yours: four tasks, numbered in the order to do them: the tile's load, its transposed store,
// the launcher, and last, once a measurement has shown you what the tile's layout costs, the
// length of the tile's rows in shared memory.
//
// The file uses the CUDA runtime only: no cuBLAS (whose Sgeam transposes too).
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
// @task 4: the length of the tile's rows in shared memory (after tasks 1-3 pass)
// Contract: each row of the tile holds kTile floats of data and starts kTileStride floats
// after the one before (kTileStride >= kTile); only this number changes, not the kernel.
// Goal: a warp's 32 shared-memory accesses in each phase served in one pass, not several;
// measure the passes first (make profile LAB=04 on a GPU, the README's question 2 by hand).
// Budget: this one line; the tile (16 KiB) may grow by a few hundred bytes.
// Your decision: kTileStride.
// Assessed: free of bank conflicts (technique, on every backend: shared accesses take at most
// 1.25 times the wavefronts of a conflict-free one), and the speed on a GPU; the result is the same.
// @solution
constexpr int kTileStride = kTile + 1;  // a column of the tile spreads over all 32 banks
// @stub
// constexpr int kTileStride = kTile;
// @end
static_assert(kTile % 32 == 0, "a tile row is whole warps, so reads and writes are coalesced");
static_assert(kTile % kBlockRows == 0, "each thread moves kTile / kBlockRows elements");
static_assert(kTileStride >= kTile, "a tile row holds kTile floats");
// The blocks that fill a multiprocessor of 2048 threads, as on sm_70, sm_80 and sm_90 (the
// H100). __launch_bounds__ needs the number at compile time, before any device can be asked;
// where a multiprocessor holds fewer threads (1024 on sm_75, 1536 on sm_86 and sm_89) fewer
// blocks fit, and the bound only keeps registers lower than they need to be.
constexpr int kMaxThreadsPerSM = 2048;
constexpr int kBlocksPerSM = kMaxThreadsPerSM / (kTile * kBlockRows);  // 4

// ---- kernel ----

// grid  (ceil(cols / 64), min(ceil(rows / 64), kMaxGridRows)), block (64, 8)
// in: rows×cols, out: cols×rows, row-major. Block (bx, by) moves the tile of in whose
// top-left corner is (r0, c0) = (by·64, bx·64) to the tile of out whose corner is (c0, r0),
// then the tiles by + gridDim.y, ... below it while rows remain. A warp is 32 consecutive x
// of one y: in both phases its 32 global accesses are 32 consecutive floats of one row.
// Elements outside the matrix are neither read nor written.
// __launch_bounds__: 4 blocks of 512 threads fill a multiprocessor (2048 threads) only if a
// thread needs at most 32 registers; left alone the compiler takes more and fewer blocks
// fit (labs/04_transpose/README.md measures the cost).
__global__ void __launch_bounds__(kTile * kBlockRows, kBlocksPerSM)
    transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[kTile][kTileStride];  // (row of the tile, column of the tile)
  const int x = threadIdx.x, y = threadIdx.y;
  const unsigned c0 = blockIdx.x * kTile;

  for (unsigned tile_row = blockIdx.y; tile_row * kTile < unsigned(rows); tile_row += gridDim.y) {
    const unsigned r0 = tile_row * kTile;
    // @task 1: read the tile, coalesced
    // Contract: afterwards tile[i][k] = in[r0 + i][c0 + k] for every element of the tile that
    // lies inside in, for every thread of the block; nothing outside in is read (the tiles at
    // the bottom and right edges are partial). Sizes reach 2^31 - 1: compare unsigned, and
    // compute offsets such as row · cols in 64 bits (size_t).
    // Goal: coalesced: the 32 lanes of a warp read 32 consecutive floats of a row of in; and
    // all 8 of a thread's reads in flight at once (into registers first, then into the tile),
    // since the time is the memory's latency unless many reads wait on it together.
    // Budget: kTile / kBlockRows = 8 global reads per thread; one barrier; roughly 10 lines.
    // Your decision: which 8 elements of the tile thread (x, y) loads.
    // @solution
    float v[kTile / kBlockRows] = {};  // elements outside in stay 0, and are never written out
#pragma unroll
    for (int j = 0; j < kTile; j += kBlockRows) {
      const unsigned r = r0 + y + j, c = c0 + x;
      if (r < unsigned(rows) && c < unsigned(cols)) v[j / kBlockRows] = in[size_t(r) * cols + c];
    }
#pragma unroll
    for (int j = 0; j < kTile; j += kBlockRows) tile[y + j][x] = v[j / kBlockRows];
    __syncthreads();
    // @end

    // @task 2: write the tile transposed, coalesced
    // Contract: afterwards out[c0 + k][r0 + i] = tile[i][k] for every element that lies inside
    // out (cols rows, rows columns); nothing outside out is written; the next trip of the loop
    // overwrites the tile only after every thread has read it.
    // Goal: coalesced writes too: a warp writes 32 consecutive floats of a row of out. The
    // transposition happens in shared memory, which has no preferred direction.
    // Budget: 8 global writes per thread and no global read; one barrier; roughly 6 lines.
    // Your decision: which element of the tile thread (x, y) stores, and where.
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
  // Contract: work enqueued on the default stream, no synchronization; an empty matrix
  // (rows or cols 0) launches nothing.
  // Goal: one block of kTile × kBlockRows threads per kTile × kTile tile of in, partial tiles
  // included; at most kMaxGridRows blocks in y (the kernel's loop covers the rest).
  // Budget: one launch, checked with CHECK_LAUNCH(); roughly 5 lines.
  // Your decision: the grid for a rows × cols matrix.
  // Assessed: every shape, from 1×1 to 4,200,000×3 and 0×4 (make grade).
  // @solution
  if (rows == 0 || cols == 0) return;
  const dim3 block(kTile, kBlockRows);
  const dim3 grid(ceil_div(cols, kTile), std::min(ceil_div(rows, kTile), kMaxGridRows));
  transpose_kernel<<<grid, block>>>(in, out, rows, cols);
  CHECK_LAUNCH();
  // @end
}
