// Lab 03, stretch beyond cuBLAS: lab 03's step 3 kernel under one level of Strassen's
// algorithm. Not graded; students are graded against solutions/03_matmul_register.
//
// Why: on an H100 the step 3 kernel issues the same FFMAs as cuBLAS's fp32 kernel at 91 to 92% of
// its speed; the gap is how the instructions are scheduled (docs/tuning.md), which CUDA C does not
// control. What CUDA C does control is how many multiply-adds there are. Cut A, B and C into
// 2×2 quadrants. The classical product needs 8 products of quadrants (C11 = A11·B11 + A12·B21,
// ...); Strassen (1969) found that 7 products of sums of quadrants will do:
//   P1 = (A11 + A22)(B11 + B22)   P4 = A22 (B21 - B11)         C11 = P1 + P4 - P5 + P7
//   P2 = (A21 + A22) B11          P5 = (A11 + A12) B22         C12 = P3 + P5
//   P3 = A11 (B12 - B22)          P6 = (A21 - A11)(B11 + B12)  C21 = P2 + P4
//                                 P7 = (A12 - A22)(B21 + B22)  C22 = P1 - P2 + P3 + P6
// 7/8 of the multiply-adds, every one an fp32 FFMA (no tensor cores, no TF32). The price is 18
// additions of quadrants, done without passes of their own: the kernel adds an operand's two
// quadrants as it fetches its tiles (one more global load per load), and adds its product into
// its one or two quadrants of C as it stores. They are not free: on the H100 each product runs
// 11 to 20% slower than step 3 on the same work, so this beats the solution at 8192³ (94% of
// cuBLAS against 92%) but not at 4096³, and cuBLAS at neither (docs/tuning.md says why).
// The sums make each product's terms larger, so the rounding error grows: measured, still well
// inside the lab's fp32 bound. A product with fewer multiply-adds is not a faster kernel: make
// bench's TFLOP/s for this row count the classical 2·M·N·K, an effective rate.
//
// The kernel is step 3's (256×128 tiles, 16×8 outputs per thread, float4 loads, the next tiles
// fetched while these are multiplied), with a leading dimension per matrix, so that it reads
// and writes quadrants in place. Strassen's path needs quadrants with whole float4 rows and
// products large enough to pay (the launcher's rule); any other shape runs the classical
// product with the same kernel, in one launch.
//     make run LAB=03 VARIANT=strassen ARGS="--m 4096 --n 4096 --k 4096"

#include <algorithm>
#include <cstdint>

#include "common/ceil_div.h"
#include "common/cuda_check.h"
#include "common/grid_limits.h"
#include "harness/launchers.h"

// ---- constants (step 3's) ----

constexpr int kBlockM = 256;  // rows of C per block
constexpr int kBlockN = 128;  // columns of C per block
constexpr int kBlockK = 8;    // depth of the A and B tiles staged per step
constexpr int kThreadM = 16;  // rows of C per thread: 4 groups of 4, kGroupStrideM apart
constexpr int kThreadN = 8;   // columns of C per thread: 2 groups of 4, kGroupStrideN apart
constexpr int kThreadsM = kBlockM / kThreadM;    // 16
constexpr int kThreadsN = kBlockN / kThreadN;    // 16
constexpr int kThreads = kThreadsM * kThreadsN;  // 256
constexpr int kGroupStrideM = kThreadsM * 4;     // 64
constexpr int kGroupStrideN = kThreadsN * 4;     // 64
static_assert(kBlockM % kThreadM == 0 && kBlockN % kThreadN == 0, "thread tiles must cover the block");
static_assert(kThreadM % 4 == 0 && kThreadN % 4 == 0, "a thread's rows and columns are groups of 4 (float4)");
static_assert(kThreadsN == 16 && kThreads % 32 == 0, "a warp is two rows of 16 threads (see the kernel's contract)");
static_assert(kBlockM * kBlockK % (4 * kThreads) == 0 && kBlockK * kBlockN % (4 * kThreads) == 0,
              "the tiles load in whole float4 per thread");
constexpr int kLoadsA = kBlockM * kBlockK / (4 * kThreads);  // float4 loads per thread: 2
constexpr int kLoadsB = kBlockK * kBlockN / (4 * kThreads);  // 1

// ---- one product of the algorithm ----

// An operand: a block of a row-major matrix (its first element; the matrix's row length is the
// product's lda or ldb), plus or minus a second block of the same shape, or nothing.
struct Operand {
  const float* first;
  const float* second;  // nullptr: the operand is the first block alone
  float sign;           // +1 or -1: the second block's sign
};

// A block of C that a product goes into: stored (its first product) or added, with a sign.
struct Target {
  float* at;  // nullptr: no target
  float sign;
  bool add;
};

// target[0] (and target[1]) op= sign · a·b, where a is rows × depth and b depth × cols.
struct Product {
  Operand a, b;
  Target target[2];
};

// The product's sizes and the row lengths of the matrices its blocks lie in.
struct Dims {
  int rows, cols, depth;  // M, N, K of one product
  int lda, ldb, ldc;
};

// ---- tile loading ----

struct Tiles {
  float a[2][kBlockK][kBlockM];  // a[buf][k][row]: A transposed, as in step 3
  float b[2][kBlockK][kBlockN];  // b[buf][k][col]
};

// The next tiles, on their way from global memory to shared memory: each operand's first block,
// and its second (zero where it has none). They are added as they go into shared memory, after
// the multiply-adds of the current tiles: an add right after the loads would wait for them.
struct Staged {
  float4 a[kLoadsA], a2[kLoadsA];
  float4 b[kLoadsB], b2[kLoadsB];
};

// Four consecutive elements of a row of a rows × cols block with row length ld, zero where
// they fall outside it. VEC: all four inside or all outside, 16-byte aligned. A and B are
// read-only during the kernel: __ldg reads them through the read-only path.
template <bool VEC>
__device__ __forceinline__ float4 load4(const float* m, int ld, unsigned rows, unsigned cols, unsigned r, unsigned c) {
  if constexpr (VEC) {
    return (m != nullptr && r < rows && c < cols) ? __ldg(reinterpret_cast<const float4*>(m + size_t(r) * ld + c))
                                                  : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  } else {
    float v[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) v[i] = (m != nullptr && r < rows && c + i < cols) ? __ldg(m + size_t(r) * ld + c + i) : 0.0f;
    return make_float4(v[0], v[1], v[2], v[3]);
  }
}

// Step 3's fetch: consecutive threads read consecutive 16-byte pieces of each tile.
template <bool VEC>
__device__ __forceinline__ void fetch_tiles(Staged& s, const Product& p, const Dims& d, unsigned m0, unsigned n0,
                                            unsigned k0) {
#pragma unroll
  for (int i = 0; i < kLoadsA; ++i) {
    const int f = threadIdx.x + i * kThreads;
    const unsigned r = m0 + f / (kBlockK / 4), c = k0 + f % (kBlockK / 4) * 4;
    s.a[i] = load4<VEC>(p.a.first, d.lda, d.rows, d.depth, r, c);
    s.a2[i] = load4<VEC>(p.a.second, d.lda, d.rows, d.depth, r, c);
  }
#pragma unroll
  for (int i = 0; i < kLoadsB; ++i) {
    const int f = threadIdx.x + i * kThreads;
    const unsigned r = k0 + f / (kBlockN / 4), c = n0 + f % (kBlockN / 4) * 4;
    s.b[i] = load4<VEC>(p.b.first, d.ldb, d.depth, d.cols, r, c);
    s.b2[i] = load4<VEC>(p.b.second, d.ldb, d.depth, d.cols, r, c);
  }
}

// first + sign · second. The sign is ±1, so sign · w is exact and each sum is rounded once.
__device__ __forceinline__ float4 sum4(float4 v, float sign, float4 w) {
  return make_float4(v.x + sign * w.x, v.y + sign * w.y, v.z + sign * w.z, v.w + sign * w.w);
}

__device__ __forceinline__ void store_tiles(Tiles& t, int buf, const Staged& s, const Product& p) {
#pragma unroll
  for (int i = 0; i < kLoadsA; ++i) {  // transpose A on the way in
    const int f = threadIdx.x + i * kThreads;
    const int row = f / (kBlockK / 4), k = f % (kBlockK / 4) * 4;
    const float4 v = sum4(s.a[i], p.a.sign, s.a2[i]);
    t.a[buf][k + 0][row] = v.x;
    t.a[buf][k + 1][row] = v.y;
    t.a[buf][k + 2][row] = v.z;
    t.a[buf][k + 3][row] = v.w;
  }
#pragma unroll
  for (int i = 0; i < kLoadsB; ++i) {
    const int f = threadIdx.x + i * kThreads;
    *reinterpret_cast<float4*>(&t.b[buf][f / (kBlockN / 4)][f % (kBlockN / 4) * 4]) = sum4(s.b[i], p.b.sign, s.b2[i]);
  }
}

// Four outputs of a row into a target: stored or added, with the target's sign; with VEC one
// float4, else the ones inside the block.
template <bool VEC>
__device__ __forceinline__ void put4(const Target& t, int ldc, unsigned cols, unsigned row, unsigned col,
                                     const float* v) {
  float* out = t.at + size_t(row) * ldc + col;
  if constexpr (VEC) {
    if (col >= cols) return;
    float4 r = make_float4(t.sign * v[0], t.sign * v[1], t.sign * v[2], t.sign * v[3]);
    if (t.add) {
      const float4 old = *reinterpret_cast<const float4*>(out);
      r = make_float4(old.x + r.x, old.y + r.y, old.z + r.z, old.w + r.w);
    }
    *reinterpret_cast<float4*>(out) = r;
  } else {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      if (col + j < cols) out[j] = t.add ? out[j] + t.sign * v[j] : t.sign * v[j];
    }
  }
}

// ---- kernel ----

// grid  (ceil(cols / 128), min(ceil(rows / 256), kMaxGridRows)), block (256)
// One product p of d's sizes: block (bx, by) computes the 256×128 tile at (by·256, bx·128)
// (then by + gridDim.y, ... while rows remain) of a·b, and puts it into p's targets. Thread
// t = (ty, tx) = (t / 16, t % 16) computes, as in step 3, the 16×8 elements at rows
// {g·64 + ty·4 + i : g < 4, i < 4} and columns {h·64 + tx·4 + j : h < 2, j < 4} of the tile: the
// 16 threads reading one row of a shared tile read 256 contiguous bytes. VEC: every row length and block start a multiple of 4 floats,
// 16-byte aligned. Blocks of one launch write disjoint tiles: the launches of one matrix
// product run one after another, so that each add reads what the one before wrote.
template <bool VEC>
__global__ void __launch_bounds__(kThreads, 1) matmul_strassen_kernel(const Product p, const Dims d) {
  __shared__ __align__(16) Tiles tiles;
  const int ty = threadIdx.x / kThreadsN, tx = threadIdx.x % kThreadsN;
  const unsigned n0 = blockIdx.x * kBlockN;
  const int steps = ceil_div(d.depth, kBlockK);

  for (unsigned tile_row = blockIdx.y; tile_row * kBlockM < unsigned(d.rows); tile_row += gridDim.y) {
    const unsigned m0 = tile_row * kBlockM;
    float acc[kThreadM][kThreadN] = {};

    Staged staged;
    fetch_tiles<VEC>(staged, p, d, m0, n0, 0);
    store_tiles(tiles, 0, staged, p);
    __syncthreads();

    for (int step = 0; step < steps; ++step) {
      const int buf = step % 2;
      if (step + 1 < steps) fetch_tiles<VEC>(staged, p, d, m0, n0, (step + 1) * kBlockK);
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
      // The other buffer was last read before the previous barrier: free to fill.
      if (step + 1 < steps) store_tiles(tiles, 1 - buf, staged, p);
      __syncthreads();
    }

#pragma unroll
    for (int t = 0; t < 2; ++t) {
      if (p.target[t].at == nullptr) continue;
#pragma unroll
      for (int i = 0; i < kThreadM; ++i) {
        const unsigned row = m0 + (i / 4) * kGroupStrideM + ty * 4 + i % 4;
        if (row >= unsigned(d.rows)) continue;
#pragma unroll
        for (int h = 0; h < kThreadN / 4; ++h)
          put4<VEC>(p.target[t], d.ldc, d.cols, row, n0 + h * kGroupStrideN + tx * 4, &acc[i][h * 4]);
      }
    }
  }
}

// ---- launchers ----

static int multiprocessor_count() {
  int device = 0, count = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  return count;
}

static void launch(const Product& p, const Dims& d, bool vec) {
  const dim3 grid(ceil_div(d.cols, kBlockN), std::min(ceil_div(d.rows, kBlockM), kMaxGridRows));
  if (vec) {
    matmul_strassen_kernel<true><<<grid, kThreads>>>(p, d);
  } else {
    matmul_strassen_kernel<false><<<grid, kThreads>>>(p, d);
  }
  CHECK_LAUNCH();
}

// Whether Strassen's 7 products of half the size beat one product of the whole. A block's
// time is proportional to its depth; a launch takes as many rounds of blocks as its tiles fill
// the SMs (one block per SM): the classical product ceil(tiles / SMs) rounds of depth K, the
// 7 products 7 · ceil(tiles of a quadrant / SMs) rounds of depth K/2. On an H100 (132 SMs):
// 4096³ is 4 rounds against 7 · 1 / 2 = 3.5, 8192³ 16 against 14; 2048³ 1 against 3.5 (no).
// That count leaves out what the sums cost: each product reads twice the tiles of a summed
// operand and adds into C, a cost per element of C that a short K does not pay back. Measured
// on the H100, 4096 × 8192 × 2048 (products 1024 deep) ran slower by Strassen (3.10 ms) than
// in one launch (3.03 ms), 4096³ (2048 deep) faster: hence the least depth.
constexpr int kMinStrassenDepth = 2048;
static bool strassen_pays(int M, int N, int K, int sms) {
  if (K / 2 < kMinStrassenDepth) return false;
  const int64_t tiles = int64_t(ceil_div(M, kBlockM)) * ceil_div(N, kBlockN);
  const int64_t quadrant_tiles = int64_t(ceil_div(M / 2, kBlockM)) * ceil_div(N / 2, kBlockN);
  return 7 * ceil_div<int64_t>(quadrant_tiles, sms) < 2 * ceil_div<int64_t>(tiles, sms);
}

void matmul_register(const float* A, const float* B, float* C, int M, int N, int K) {
  if (M == 0 || N == 0) return;  // no elements of C; with K = 0 the kernel writes zeros
  static const int sms = multiprocessor_count();
  const bool aligned = (reinterpret_cast<uintptr_t>(A) | reinterpret_cast<uintptr_t>(B) |
                        reinterpret_cast<uintptr_t>(C)) % 16 == 0;
  // Quadrants whose rows are whole float4 and 16-byte aligned: N/2 and K/2 multiples of 4.
  if (!(aligned && M % 2 == 0 && N % 8 == 0 && K % 8 == 0 && strassen_pays(M, N, K, sms))) {
    launch({{A, nullptr, 1.0f}, {B, nullptr, 1.0f}, {{C, 1.0f, false}, {nullptr, 0.0f, false}}}, {M, N, K, K, N, N},
           aligned && K % 4 == 0 && N % 4 == 0);
    return;
  }
  const int m = M / 2, n = N / 2, k = K / 2;
  const float *A11 = A, *A12 = A + k, *A21 = A + size_t(m) * K, *A22 = A21 + k;
  const float *B11 = B, *B12 = B + n, *B21 = B + size_t(k) * N, *B22 = B21 + n;
  float *C11 = C, *C12 = C + n, *C21 = C + size_t(m) * N, *C22 = C21 + n;
  // In this order each block of C is stored by the first product that reaches it, then added to.
  const Product products[7] = {
      {{A11, A22, +1}, {B11, B22, +1}, {{C11, +1, false}, {C22, +1, false}}},  // P1
      {{A21, A22, +1}, {B11, nullptr, +1}, {{C21, +1, false}, {C22, -1, true}}},  // P2
      {{A11, nullptr, +1}, {B12, B22, -1}, {{C12, +1, false}, {C22, +1, true}}},  // P3
      {{A22, nullptr, +1}, {B21, B11, -1}, {{C11, +1, true}, {C21, +1, true}}},   // P4
      {{A11, A12, +1}, {B22, nullptr, +1}, {{C11, -1, true}, {C12, +1, true}}},   // P5
      {{A21, A11, -1}, {B11, B12, +1}, {{C22, +1, true}, {nullptr, 0, false}}},   // P6
      {{A12, A22, -1}, {B21, B22, +1}, {{C11, +1, true}, {nullptr, 0, false}}},   // P7
  };
  for (const Product& p : products) launch(p, {m, n, k, K, N, N}, true);
}

// The lab program links every step's launcher; this variant has one product, which every
// step runs (make run LAB=03 VARIANT=strassen checks it three times).
void matmul_register_1d(const float* A, const float* B, float* C, int M, int N, int K) {
  matmul_register(A, B, C, M, N, K);
}

void matmul_register_2d(const float* A, const float* B, float* C, int M, int N, int K) {
  matmul_register(A, B, C, M, N, K);
}
