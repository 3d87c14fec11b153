// Lab 03: register-blocked matrix multiplication.
//
// C = A·B with A of M×K, B of K×N and C of M×N, row-major float32 arrays in device memory.
// Lab 02's threads compute one element of C each, and pay two shared-memory loads for every
// multiply-add: shared memory, not arithmetic, sets its speed. Here each thread computes a
// 16×8 block of C held in 128 registers. Per step along K it loads 16 values of A and 8 of
// B from shared memory into registers and does all 128 multiply-adds of their outer
// product: 24 loads for 128 multiply-adds, under a fifth of a load each instead of two. A
// block of 256 threads covers a 256×128 tile of C (the tile cuBLAS's own fp32 kernel uses
// on the H100), so every element brought in from global memory serves 128 or 256
// multiply-adds. Loads are 16 bytes wide (float4) wherever alignment allows, and the next
// tile is fetched from global memory while the current one is multiplied.
//
// Run and check:  make run LAB=03        Grade:  make grade LAB=03
// The lab's README (labs/03_matmul_register/README.md) explains the background and the tasks.

#include <algorithm>
#include <cstdint>

#include "common/ceil_div.h"
#include "common/cuda_check.h"
#include "common/grid_limits.h"
#include "harness/launchers.h"

// ---- constants ----

constexpr int kBlockM = 256;  // rows of C per block
constexpr int kBlockN = 128;  // columns of C per block
constexpr int kBlockK = 8;    // depth of the A and B tiles staged per step
constexpr int kThreadM = 16;  // rows of C per thread: 4 groups of 4
constexpr int kThreadN = 8;   // columns of C per thread: 2 groups of 4
constexpr int kThreadsM = kBlockM / kThreadM;    // 16
constexpr int kThreadsN = kBlockN / kThreadN;    // 16
constexpr int kThreads = kThreadsM * kThreadsN;  // 256
// A thread's rows come in groups of 4 consecutive ones, kGroupStrideM apart (columns alike):
// see the kernel's contract for why.
constexpr int kGroupStrideM = kThreadsM * 4;  // 64
constexpr int kGroupStrideN = kThreadsN * 4;  // 64
static_assert(kBlockM % kThreadM == 0 && kBlockN % kThreadN == 0, "thread tiles must cover the block");
static_assert(kThreadM % 4 == 0 && kThreadN % 4 == 0, "a thread's rows and columns are groups of 4 (float4)");
static_assert(kThreadsN == 16 && kThreads % 32 == 0, "a warp is two rows of 16 threads (see the contract)");
static_assert(kBlockM * kBlockK % (4 * kThreads) == 0, "the A tile loads in whole float4 per thread");
static_assert(kBlockK * kBlockN % (4 * kThreads) == 0, "the B tile loads in whole float4 per thread");
constexpr int kLoadsA = kBlockM * kBlockK / (4 * kThreads);  // float4 loads per thread: 2
constexpr int kLoadsB = kBlockK * kBlockN / (4 * kThreads);  // 1

// Row and column indices are unsigned 32-bit: with M or N near 2^31 - 1 a partial tile
// reaches past INT_MAX, which overflows an int, but never past 2^32. Addresses are 64-bit
// (size_t(row) * cols): the products overflow any 32-bit type.

// ---- tile loading (given) ----

// Shared memory: two buffers of each tile, so that one can be filled while the other is
// read. A is stored transposed, k-major, so that a thread's values of A for one k come in
// contiguous groups of 4 (float4 loads), like its values of B.
struct Tiles {
  float a[2][kBlockK][kBlockM];  // a[buf][k][row]
  float b[2][kBlockK][kBlockN];  // b[buf][k][col]
};

// The next tiles, on their way from global memory to shared memory.
struct Staged {
  float4 a[kLoadsA];
  float4 b[kLoadsB];
};

// Four consecutive elements of a row-major matrix, zero where they fall outside it.
// VEC: the caller guarantees the four are 16-byte aligned and all inside or all outside
// the matrix (rows of a multiple of 4 elements, aligned base), so one float4 load serves.
template <bool VEC>
__device__ __forceinline__ float4 load4(const float* __restrict__ m, unsigned rows, unsigned cols, unsigned r, unsigned c) {
  if constexpr (VEC) {
    return (r < rows && c < cols) ? *reinterpret_cast<const float4*>(m + size_t(r) * cols + c)
                                  : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  } else {
    float v[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) v[i] = (r < rows && c + i < cols) ? m[size_t(r) * cols + c + i] : 0.0f;
    return make_float4(v[0], v[1], v[2], v[3]);
  }
}

// Thread t fetches A[m0 + f / 2][k0 + (f % 2)·4 ...] for f = t, t + 256 and
// B[k0 + t / 32][n0 + (t % 32)·4 ...]: consecutive threads read consecutive 16-byte pieces.
template <bool VEC>
__device__ __forceinline__ void fetch_tiles(Staged& s, const float* __restrict__ A, const float* __restrict__ B,
                                            int M, int N, int K, unsigned m0, unsigned n0, unsigned k0) {
#pragma unroll
  for (int i = 0; i < kLoadsA; ++i) {
    const int f = threadIdx.x + i * kThreads;
    s.a[i] = load4<VEC>(A, M, K, m0 + f / (kBlockK / 4), k0 + f % (kBlockK / 4) * 4);
  }
#pragma unroll
  for (int i = 0; i < kLoadsB; ++i) {
    const int f = threadIdx.x + i * kThreads;
    s.b[i] = load4<VEC>(B, K, N, k0 + f / (kBlockN / 4), n0 + f % (kBlockN / 4) * 4);
  }
}

__device__ __forceinline__ void store_tiles(Tiles& t, int buf, const Staged& s) {
#pragma unroll
  for (int i = 0; i < kLoadsA; ++i) {  // transpose A on the way in
    const int f = threadIdx.x + i * kThreads;
    const int row = f / (kBlockK / 4), k = f % (kBlockK / 4) * 4;
    t.a[buf][k + 0][row] = s.a[i].x;
    t.a[buf][k + 1][row] = s.a[i].y;
    t.a[buf][k + 2][row] = s.a[i].z;
    t.a[buf][k + 3][row] = s.a[i].w;
  }
#pragma unroll
  for (int i = 0; i < kLoadsB; ++i) {
    const int f = threadIdx.x + i * kThreads;
    *reinterpret_cast<float4*>(&t.b[buf][f / (kBlockN / 4)][f % (kBlockN / 4) * 4]) = s.b[i];
  }
}

// ---- kernel ----

// grid  (ceil(N / 128), min(ceil(M / 256), kMaxGridRows)), block (256)
// A: M×K, B: K×N, C: M×N, row-major. Block (bx, by) computes the 256×128 tile of C at
// (by·256, bx·128) (then by + gridDim.y, ... while rows remain). Thread t = (ty, tx) =
// (t / 16, t % 16) computes the 16×8 elements at rows {g·64 + ty·4 + i : g < 4, i < 4} and
// columns {h·64 + tx·4 + j : h < 2, j < 4} of the tile: groups of 4 rows and 4 columns, 64
// apart, so that the 16 threads reading one row of a shared tile read 256 contiguous bytes
// (no bank conflicts). VEC: K and N are multiples of 4 and A, B, C 16-byte aligned.
// __launch_bounds__(256, 1): one block per SM lets a thread have up to 255 registers; it
// needs about 220 (128 accumulators, 24 values of A and B, 12 staged floats, indices).
template <bool VEC>
__global__ void __launch_bounds__(kThreads, 1)
    matmul_register_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                           int M, int N, int K) {
  __shared__ __align__(16) Tiles tiles;
  const int ty = threadIdx.x / kThreadsN, tx = threadIdx.x % kThreadsN;
  const unsigned n0 = blockIdx.x * kBlockN;
  const int steps = ceil_div(K, kBlockK);

  for (unsigned tile_row = blockIdx.y; tile_row * kBlockM < unsigned(M); tile_row += gridDim.y) {
    const unsigned m0 = tile_row * kBlockM;
    float acc[kThreadM][kThreadN] = {};  // this thread's 16×8 block of C

    Staged staged;
    fetch_tiles<VEC>(staged, A, B, M, N, K, m0, n0, 0);
    store_tiles(tiles, 0, staged);
    __syncthreads();

    for (int step = 0; step < steps; ++step) {
      const int buf = step % 2;
      // Start fetching the next tiles; their loads are in flight while we multiply.
      if (step + 1 < steps) fetch_tiles<VEC>(staged, A, B, M, N, K, m0, n0, (step + 1) * kBlockK);

      // @task 1: multiply the staged tiles into the 16×8 accumulators
      // For each k of the tile (kBlockK of them), load this thread's 16 values of A and 8 of
      // B from shared memory into registers, then add their outer product to acc:
      //   a[4·g + i] = tiles.a[buf][k][g * kGroupStrideM + ty * 4 + i]   (g < 4, i < 4)
      //   b[4·h + j] = tiles.b[buf][k][h * kGroupStrideN + tx * 4 + j]   (h < 2, j < 4)
      //   acc[i][j] += a[i] * b[j] for all 128 pairs (fmaf).
      // Read each group of 4 with one float4 load. Index the register arrays only with
      // constants (fully unrolled loops: #pragma unroll), or they move to slow local memory.
      // Assessed: correct results; at least the rubric's share of the solution's speed.
      // @solution
#pragma unroll
      for (int k = 0; k < kBlockK; ++k) {
        float a[kThreadM], b[kThreadN];
#pragma unroll
        for (int g = 0; g < kThreadM / 4; ++g)
          *reinterpret_cast<float4*>(&a[4 * g]) = *reinterpret_cast<const float4*>(&tiles.a[buf][k][g * kGroupStrideM + ty * 4]);
#pragma unroll
        for (int h = 0; h < kThreadN / 4; ++h)
          *reinterpret_cast<float4*>(&b[4 * h]) = *reinterpret_cast<const float4*>(&tiles.b[buf][k][h * kGroupStrideN + tx * 4]);
#pragma unroll
        for (int i = 0; i < kThreadM; ++i) {
#pragma unroll
          for (int j = 0; j < kThreadN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
      }
      // @end

      // The other buffer was last read in the previous step, before the barrier that ended
      // it: it is free to fill. One barrier per step then publishes it.
      if (step + 1 < steps) store_tiles(tiles, 1 - buf, staged);
      __syncthreads();
    }

    // @task 2: write the 16×8 block of C
    // Element acc[i][j] belongs at row m0 + (i / 4) * kGroupStrideM + ty * 4 + i % 4 and
    // column n0 + (j / 4) * kGroupStrideN + tx * 4 + j % 4. Write only elements inside C
    // (row < M, col < N). When VEC is true, each group of 4 columns is all inside or all
    // outside C and 16-byte aligned: write it with one float4 store.
    // Assessed: correct for every shape, partial tiles at every edge included.
    // @solution
#pragma unroll
    for (int i = 0; i < kThreadM; ++i) {
      const unsigned row = m0 + (i / 4) * kGroupStrideM + ty * 4 + i % 4;
      if (row >= unsigned(M)) continue;
#pragma unroll
      for (int h = 0; h < kThreadN / 4; ++h) {
        const unsigned col = n0 + h * kGroupStrideN + tx * 4;
        const float* v = &acc[i][h * 4];
        float* out = C + size_t(row) * N + col;
        if constexpr (VEC) {
          if (col < unsigned(N)) *reinterpret_cast<float4*>(out) = make_float4(v[0], v[1], v[2], v[3]);
        } else {
#pragma unroll
          for (int j = 0; j < 4; ++j) {
            if (col + j < unsigned(N)) out[j] = v[j];
          }
        }
      }
    }
    // @end
  }
}

// ---- launcher ----

void matmul_register(const float* A, const float* B, float* C, int M, int N, int K) {
  if (M == 0 || N == 0) return;  // no elements of C; with K = 0 the kernel writes zeros
  const dim3 block(kThreads);
  const dim3 grid(ceil_div(N, kBlockN), std::min(ceil_div(M, kBlockM), kMaxGridRows));
  // float4 accesses need rows whose length is a multiple of 4 and 16-byte aligned bases.
  const bool aligned = (reinterpret_cast<uintptr_t>(A) | reinterpret_cast<uintptr_t>(B) |
                        reinterpret_cast<uintptr_t>(C)) % 16 == 0;
  if (aligned && K % 4 == 0 && N % 4 == 0) {
    matmul_register_kernel<true><<<grid, block>>>(A, B, C, M, N, K);
  } else {
    matmul_register_kernel<false><<<grid, block>>>(A, B, C, M, N, K);
  }
  CHECK_LAUNCH();
}
