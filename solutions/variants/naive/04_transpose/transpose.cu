// Lab 04 without shared memory: each thread copies one element straight from in to out.
// Reads are coalesced (a warp reads 32 consecutive floats of a row of in), writes are not
// (the warp writes 32 floats of a column of out, `rows` floats apart). labs/04_transpose/
// README.md compares it with the tiled solution:
//     make run LAB=04 SRC=solutions/variants/naive

#include <algorithm>

#include "common/ceil_div.h"
#include "common/cuda_check.h"
#include "common/grid_limits.h"
#include "harness/launchers.h"

constexpr int kBlockCols = 32;
constexpr int kBlockRows = 8;

// grid (ceil(cols / 32), min(ceil(rows / 8), kMaxGridRows)), block (32, 8): thread (x, y) copies
// in[r][c] to out[c][r] for c = bx·32 + x and r = by·8 + y (then r + gridDim.y·8, ...).
__global__ void transpose_naive_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  const unsigned c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= unsigned(cols)) return;
  for (unsigned r = blockIdx.y * blockDim.y + threadIdx.y; r < unsigned(rows); r += gridDim.y * blockDim.y) {
    out[size_t(c) * rows + r] = in[size_t(r) * cols + c];
  }
}

void transpose(const float* in, float* out, int rows, int cols) {
  if (rows == 0 || cols == 0) return;
  const dim3 block(kBlockCols, kBlockRows);
  const dim3 grid(ceil_div(cols, kBlockCols), std::min(ceil_div(rows, kBlockRows), kMaxGridRows));
  transpose_naive_kernel<<<grid, block>>>(in, out, rows, cols);
  CHECK_LAUNCH();
}
