// Lab 03: register-blocked matrix multiplication, in three steps.
//
// C = A·B with A of M×K, B of K×N and C of M×N, row-major float32 arrays in device memory.
// Lab 02's threads compute one element of C each, and pay two shared-memory loads for every
// multiply-add: shared memory, not arithmetic, sets its speed. Here each thread computes
// several elements of C held in registers, so that a value it loads from shared memory feeds
// several multiply-adds. Three launchers, one per step of the ladder, each graded on its own:
//
//   step 1, matmul_register_1d: a 64×64 block tile; each of 512 threads computes 8 outputs in
//           a line (a column or a row of the tile: your choice), so one value loaded from
//           shared memory serves 8 multiply-adds.
//   step 2, matmul_register_2d: a 128×128 block tile; each of 256 threads an 8×8 square of
//           outputs, the outer product of 8 values of A and 8 of B: 16 loads for 64
//           multiply-adds.
//   step 3, matmul_register (stretch): a 256×128 block tile (the tile cuBLAS's own fp32
//           kernel uses on the H100); each thread 16×8 outputs, float4 loads from shared and
//           global memory, and the next tiles fetched from global memory while the current
//           ones are multiplied. When C has fewer tiles than the GPU has SMs, the blocks
//           share K out too (split-K), so that small products fill the GPU.
//
// The file reads in that order: step 1, step 2, step 3, each a section and a namespace of its
// own (step1, step2, step3) that holds its constants and its kernel; the launchers of steps 1
// and 2 follow their kernels, so that step 1 needs nothing below its launcher. Step 3's given
// machinery (loading the tiles, split-K, its launcher) is at the end of the file, below a line
// that marks it: you need not read it.
//
// Given: every constant and shared array; for steps 1 and 2 the staging of the tiles in
// shared memory (stage_tile) and the loop along K with its barriers; for step 3 the tile
// loading, the double-buffered loop, the choice of float4 or scalar accesses and split-K; the
// three launchers.
//
// Yours: seven tasks, numbered in the order to do them. Step 1: which outputs a thread owns
// (1), their multiply-adds (2), their store (3). Step 2: the outer products (4), the store
// (5). Step 3: the outer products (6), the store (7).
//
// Run and check:  make run LAB=03 STEP=1        Grade:  make grade LAB=03
// (without STEP, make run checks every step in turn; make grade grades each step apart).
// The lab's README (labs/03_matmul_register/README.md) explains the background and the tasks.

#include <algorithm>
#include <cstdint>

#include "common/ceil_div.h"
#include "common/cuda_check.h"
#include "common/grid_limits.h"
#include "harness/launchers.h"

// ---- tile staging (given; steps 1 and 2) ----

// Copies the ROWS×COLS tile whose first element is (r0, c0) of a row-major rows×cols matrix
// into `tile`, zero where it falls outside the matrix. The block's THREADS threads share the
// work, consecutive threads taking consecutive elements of a row (coalesced). No barrier: the
// caller waits before anyone reads the tile.
template <int ROWS, int COLS, int THREADS>
__device__ __forceinline__ void stage_tile(float (&tile)[ROWS][COLS], const float* __restrict__ m, unsigned rows,
                                           unsigned cols, unsigned r0, unsigned c0) {
  for (int f = threadIdx.x; f < ROWS * COLS; f += THREADS) {
    const unsigned r = r0 + f / COLS, c = c0 + f % COLS;
    tile[f / COLS][f % COLS] = r < rows && c < cols ? m[size_t(r) * cols + c] : 0.0f;
  }
}

// ---- step 1: a line of outputs per thread ----

namespace step1 {

constexpr int kBlockM = 64;   // rows of C per block
constexpr int kBlockN = 64;   // columns of C per block
constexpr int kBlockK = 8;    // depth of the A and B tiles staged per step
constexpr int kOutputs = 8;   // outputs per thread, in one column or one row of the tile
constexpr int kThreads = kBlockM * kBlockN / kOutputs;  // 512
static_assert(kBlockM % kOutputs == 0 && kBlockN % kOutputs == 0, "a column or a row of the tile holds whole lines");
static_assert(kThreads % 32 == 0 && kThreads <= 1024, "whole warps, at most 1024 threads");

// grid  (ceil(N / 64), ceil(M / 64)), block (512)
// A: M×K, B: K×N, C: M×N, row-major. Block (bx, by) computes the 64×64 tile of C at
// (by·64, bx·64); each thread 8 of its elements, in one line (task 1). Per step along K the
// block stages a 64×8 tile of A and an 8×64 tile of B in shared memory; then each thread reads
// what its 8 multiply-adds per k need. One launch covers the grader's shapes (M up to 65535·64).
__global__ void __launch_bounds__(kThreads)
    matmul_register_1d_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                              int M, int N, int K) {
  __shared__ float a_tile[kBlockM][kBlockK];  // (BM, BK)
  __shared__ float b_tile[kBlockK][kBlockN];  // (BK, BN)
  const unsigned m0 = blockIdx.y * kBlockM, n0 = blockIdx.x * kBlockN;
  float acc[kOutputs] = {};  // this thread's 8 elements of C

  // TODO(student) 1: choose this thread's 8 outputs
  // Contract: the 512 threads' lines of 8 cover the 64×64 tile exactly once; acc[i] is the
  // i-th element of this thread's line.
  // Budget: one or two index variables from threadIdx.x; 2 lines.
  // Your decision: a column (8 rows of one column of C) or a row (8 columns of one row). Which
  // value of a k step is then the same for all 8 multiply-adds, and which do a warp's 32
  // threads read together from shared memory?

  for (unsigned k0 = 0; k0 < unsigned(K); k0 += kBlockK) {
    stage_tile<kBlockM, kBlockK, kThreads>(a_tile, A, M, K, m0, k0);
    stage_tile<kBlockK, kBlockN, kThreads>(b_tile, B, K, N, k0, n0);
    __syncthreads();  // the tiles are whole before anyone reads them

    // TODO(student) 2: add this step's products into acc
    // Contract: acc[i] += a_tile[row][k] · b_tile[k][col] over the 8 values of k, for each of
    // the thread's 8 outputs (row, col), with fmaf.
    // Goal: the value shared by the 8 multiply-adds of one k is read from shared memory once.
    // Budget: per k, 9 reads of shared memory (the shared value, and one for each output) for
    // 8 multiply-adds; no global memory, no barrier; about 5 lines.
    // Your decision: the order of the two loops (k and i), and what stays in a register.
    __syncthreads();  // everyone is done reading the tiles before the next step overwrites them
  }

  // TODO(student) 3: store the 8 outputs
  // Contract: each of the thread's outputs inside C is written once; nothing outside C is.
  // Budget: 8 global writes at most; about 5 lines.
  // Your decision: the guards: which of row and column can leave C for some of a line's 8
  // outputs and not for others?
}

}  // namespace step1

// ---- step 1's launcher ----

void matmul_register_1d(const float* A, const float* B, float* C, int M, int N, int K) {
  if (M == 0 || N == 0) return;  // no elements of C; with K = 0 the kernel writes zeros
  const dim3 grid(ceil_div(N, step1::kBlockN), ceil_div(M, step1::kBlockM));
  step1::matmul_register_1d_kernel<<<grid, step1::kThreads>>>(A, B, C, M, N, K);
  CHECK_LAUNCH();
}

// ---- step 2: a square of outputs per thread ----

namespace step2 {

constexpr int kBlockM = 128;  // rows of C per block
constexpr int kBlockN = 128;  // columns of C per block
constexpr int kBlockK = 8;    // depth of the A and B tiles staged per step
constexpr int kThreadM = 8;   // rows of C per thread
constexpr int kThreadN = 8;   // columns of C per thread
constexpr int kThreadsM = kBlockM / kThreadM;  // 16, also how far apart a thread's rows are
constexpr int kThreadsN = kBlockN / kThreadN;  // 16, and its columns
constexpr int kThreads = kThreadsM * kThreadsN;  // 256
static_assert(kBlockM % kThreadM == 0 && kBlockN % kThreadN == 0, "thread tiles must cover the block");

// grid  (ceil(N / 128), ceil(M / 128)), block (256)
// A: M×K, B: K×N, C: M×N, row-major. Block (bx, by) computes the 128×128 tile of C at
// (by·128, bx·128). Thread t = (ty, tx) = (t / 16, t % 16) computes the 8×8 elements at rows
// ty + 16·i and columns tx + 16·j of the tile (i, j < 8): acc[i][j]. Strided, not 8 contiguous
// rows and columns, which run at two thirds of the speed: the README's question 7 asks why.
// Per step along K the block stages a 128×8 tile of A and an 8×128 tile of B in shared
// memory. One launch covers the grader's shapes (M up to 65535·128).
__global__ void __launch_bounds__(kThreads)
    matmul_register_2d_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                              int M, int N, int K) {
  __shared__ float a_tile[kBlockM][kBlockK];  // (BM, BK)
  __shared__ float b_tile[kBlockK][kBlockN];  // (BK, BN)
  const unsigned m0 = blockIdx.y * kBlockM, n0 = blockIdx.x * kBlockN;
  const int ty = threadIdx.x / kThreadsN, tx = threadIdx.x % kThreadsN;
  float acc[kThreadM][kThreadN] = {};  // this thread's 8×8 block of C

  for (unsigned k0 = 0; k0 < unsigned(K); k0 += kBlockK) {
    stage_tile<kBlockM, kBlockK, kThreads>(a_tile, A, M, K, m0, k0);
    stage_tile<kBlockK, kBlockN, kThreads>(b_tile, B, K, N, k0, n0);
    __syncthreads();  // the tiles are whole before anyone reads them

    // TODO(student) 4: add this step's outer products into acc
    // Contract: acc[i][j] += a_tile[ty + 16·i][k] · b_tile[k][tx + 16·j] over the 8 values of
    // k, for all 64 pairs (i, j), with fmaf.
    // Goal: each value of the tiles that the thread needs is read from shared memory once per k.
    // Budget: per k, 16 reads of shared memory for 64 multiply-adds; no global memory, no
    // barrier. Index the register arrays only with constants (fully unrolled loops), or they
    // move to slow local memory. About 12 lines.
    // Your decision: where the 16 values go between shared memory and the multiply-adds.
    __syncthreads();  // everyone is done reading the tiles before the next step overwrites them
  }

  // TODO(student) 5: store the 8×8 outputs
  // Contract: each of the thread's outputs inside C is written once; nothing outside C is,
  // for every shape: partial tiles at the bottom and the right edge.
  // Budget: 64 global writes at most; about 8 lines.
  // Your decision: where the guards go, so that a row past the bottom of C costs no work.
}

}  // namespace step2

// ---- step 2's launcher ----

void matmul_register_2d(const float* A, const float* B, float* C, int M, int N, int K) {
  if (M == 0 || N == 0) return;
  const dim3 grid(ceil_div(N, step2::kBlockN), ceil_div(M, step2::kBlockM));
  step2::matmul_register_2d_kernel<<<grid, step2::kThreads>>>(A, B, C, M, N, K);
  CHECK_LAUNCH();
}

// ---- step 3 (stretch): constants ----

namespace step3 {

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

// ---- step 3: shared memory and the given tile loading ----

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

// Given, defined at the end of the file: fetch_tiles<VEC> starts the loads of the A tile at
// (m0, k0) and the B tile at (k0, n0) from global memory into registers, zero outside the
// matrices; store_tiles writes them into buffer buf of the shared tiles, A transposed.
template <bool VEC>
__device__ __forceinline__ void fetch_tiles(Staged& s, const float* __restrict__ A, const float* __restrict__ B,
                                            int M, int N, int K, unsigned m0, unsigned n0, unsigned k0);
__device__ __forceinline__ void store_tiles(Tiles& t, int buf, const Staged& s);

// ---- step 3: kernel ----

// grid  (ceil(N / 128), min(ceil(M / 256), kMaxGridRows), splits), block (256)
// A: M×K, B: K×N, C: splits M×N slices, row-major. Block (bx, by, z) computes the 256×128
// tile at (by·256, bx·128) (then by + gridDim.y, ... while rows remain) of the sum over k in
// [z·depth, (z + 1)·depth) ∩ [0, K), into slice z of C; with one split, that is A·B, whole,
// into C. depth is a multiple of kBlockK, so no tile straddles two splits. Thread t = (ty, tx) =
// (t / 16, t % 16) computes the 16×8 elements at rows {g·64 + ty·4 + i : g < 4, i < 4} and
// columns {h·64 + tx·4 + j : h < 2, j < 4} of the tile: groups of 4 rows and 4 columns, 64
// apart, so that the 16 threads reading one row of a shared tile read 256 contiguous bytes
// (no bank conflicts). VEC: K and N are multiples of 4 and A, B, C 16-byte aligned.
// __launch_bounds__(256, 1): one block per SM lets a thread have up to 255 registers; it
// needs about 220 (128 accumulators, 24 values of A and B, 12 staged floats, indices).
template <bool VEC>
__global__ void __launch_bounds__(kThreads, 1)
    matmul_register_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                           int M, int N, int K, int depth) {
  __shared__ __align__(16) Tiles tiles;
  const int ty = threadIdx.x / kThreadsN, tx = threadIdx.x % kThreadsN;
  const unsigned n0 = blockIdx.x * kBlockN;
  // This block's split of K, and its own slice of the output.
  const int k_begin = blockIdx.z * depth;
  const int k_count = K - k_begin < depth ? K - k_begin : depth;  // the last split may be shorter
  const int steps = ceil_div(k_count, kBlockK);
  C += size_t(blockIdx.z) * M * N;

  for (unsigned tile_row = blockIdx.y; tile_row * kBlockM < unsigned(M); tile_row += gridDim.y) {
    const unsigned m0 = tile_row * kBlockM;
    float acc[kThreadM][kThreadN] = {};  // this thread's 16×8 block of C

    Staged staged;
    fetch_tiles<VEC>(staged, A, B, M, N, K, m0, n0, k_begin);
    store_tiles(tiles, 0, staged);
    __syncthreads();

    for (int step = 0; step < steps; ++step) {
      const int buf = step % 2;
      // Start fetching the next tiles; their loads are in flight while we multiply.
      if (step + 1 < steps) fetch_tiles<VEC>(staged, A, B, M, N, K, m0, n0, k_begin + (step + 1) * kBlockK);

      // TODO(student) 6: add the outer products of the staged tiles into the 16×8 accumulators
      // Contract: acc[i][j] += (A's value of the thread's row i) · (B's value of its column j)
      // over the kBlockK values of k of buffer buf, for all 128 pairs, with fmaf; the thread's
      // rows and columns are the kernel's contract above, in tiles.a[buf][k][...] (A stored
      // transposed) and tiles.b[buf][k][...].
      // Goal: each value read from shared memory once per k, in 16-byte pieces.
      // Budget: per k, 6 float4 reads of shared memory for 128 multiply-adds; no global memory,
      // no barrier. Index the register arrays only with constants (fully unrolled loops), or
      // they move to slow local memory. About 15 lines.
      // Your decision: which groups of four each float4 read brings, and where they go.
      // Assessed: correct results; on a GPU, at least the rubric's share of the solution's speed.

      // The other buffer was last read in the previous step, before the barrier that ended
      // it: it is free to fill. One barrier per step then publishes it.
      if (step + 1 < steps) store_tiles(tiles, 1 - buf, staged);
      __syncthreads();
    }

    // TODO(student) 7: store the 16×8 block of C
    // Contract: each of the thread's 128 outputs inside C is written once, nothing outside C
    // is, for every shape: partial tiles at every edge included. With VEC each group of 4
    // columns is all inside or all outside C and 16-byte aligned.
    // Budget: 32 float4 stores with VEC (128 scalar stores without); about 18 lines.
    // Your decision: how VEC changes the store of a group of four, and where the guards go.
    // Assessed: correct for every shape, and no misaligned access when N % 4 != 0.
  }
}

}  // namespace step3

// =================================================================================================
// Given: step 3's machinery. Nothing below is yours to write, and the tasks need none of it: the
// README's "Double buffering, one barrier per step" and "Small products: split-K" describe it.
// =================================================================================================

namespace step3 {

// ---- tile loading ----

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

}  // namespace step3

// ---- step 3's launcher: split-K ----

namespace step3 {

// The least depth of K a split sums, so that its loop runs long enough to pay for the extra
// pass that adds the splits up.
constexpr int kMinSplitDepth = 256;

static int multiprocessor_count() {
  int device = 0, count = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  return count;
}

// Scratch memory for the slices, allocated at the first call that splits and kept (as cuBLAS
// keeps its workspace; the process's end frees it). The splits fill the SMs once, so the slices
// never need more than one 256×128 tile per SM: 17 MiB on an H100, allocated once, so that no
// later call waits on a cudaFree. nullptr where that memory cannot be had: then no split.
static float* split_scratch(int sms) {
  static float* scratch = [sms] {
    float* p = nullptr;
    if (cudaMalloc(&p, size_t(sms) * kBlockM * kBlockN * sizeof(float)) != cudaSuccess) {
      (void)cudaGetLastError();  // not a sticky error: the product runs without splitting
      p = nullptr;
    }
    return p;
  }();
  return scratch;
}

// C[i] = the sum of slices[z·count + i] over z < splits, in the order of z: the same bits on
// every run, which atomics into C would not give.
static __global__ void add_slices_kernel(const float* __restrict__ slices, float* __restrict__ C, size_t count, int splits) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    float sum = 0.0f;
    for (int z = 0; z < splits; ++z) sum += slices[z * count + i];
    C[i] = sum;
  }
}

}  // namespace step3

void matmul_register(const float* A, const float* B, float* C, int M, int N, int K) {
  using namespace step3;
  if (M == 0 || N == 0) return;  // no elements of C; with K = 0 the kernel writes zeros
  // Split-K: a 1024×1024 C has 32 tiles of 256×128 for the H100's 132 SMs. Then the blocks
  // share K out as well, as many splits as fill the SMs once, each at least kMinSplitDepth
  // deep: split z sums its part of K into slice z of a scratch buffer, and a second kernel
  // adds the slices into C.
  static const int sms = multiprocessor_count();
  const int64_t tiles = int64_t(ceil_div(N, kBlockN)) * ceil_div(M, kBlockM);
  int splits = int(std::max<int64_t>(1, std::min<int64_t>(sms / tiles, K / kMinSplitDepth)));
  float* const scratch = splits > 1 ? split_scratch(sms) : nullptr;
  if (scratch == nullptr) splits = 1;  // without memory for the slices, the product runs whole
  int depth = K;                       // one split: all of K
  if (splits > 1) {
    depth = ceil_div(ceil_div(K, splits), kBlockK) * kBlockK;  // whole k tiles: none straddles two splits
    splits = ceil_div(K, depth);                               // and none is left empty
  }
  float* out = splits > 1 ? scratch : C;

  const dim3 block(kThreads);
  const dim3 grid(ceil_div(N, kBlockN), std::min(ceil_div(M, kBlockM), kMaxGridRows), splits);
  // float4 accesses need rows whose length is a multiple of 4 and 16-byte aligned bases.
  const bool aligned = (reinterpret_cast<uintptr_t>(A) | reinterpret_cast<uintptr_t>(B) |
                        reinterpret_cast<uintptr_t>(out)) % 16 == 0;
  if (aligned && K % 4 == 0 && N % 4 == 0) {
    matmul_register_kernel<true><<<grid, block>>>(A, B, out, M, N, K, depth);
  } else {
    matmul_register_kernel<false><<<grid, block>>>(A, B, out, M, N, K, depth);
  }
  CHECK_LAUNCH();
  if (splits > 1) {
    const size_t count = size_t(M) * N;
    add_slices_kernel<<<std::min<size_t>(ceil_div<size_t>(count, 256), size_t(sms) * 8), 256>>>(out, C, count, splits);
    CHECK_LAUNCH();
  }
}
