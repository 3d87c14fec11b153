// Lab 03, stretch beyond cuBLAS: lab 03's step 3 kernel under up to two levels of Strassen's
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
// Applied again to each of the 7 products, two levels make 49 products of blocks a quarter the
// size: 49/64 of the multiply-adds, every one an fp32 FFMA (no tensor cores, no TF32).
//
// How, in three kinds of pass:
//   1. the sums: one pass writes the 7^levels operands of A, each a sum of blocks of A, into
//      scratch memory; another those of B;
//   2. the products: one launch of step 3's kernel multiplies all 7^levels pairs, one pair per
//      blockIdx.z, into scratch memory;
//   3. one pass adds the products up into the blocks of C.
// The passes are memory-bound (at 4096³ they move 758 MB of device memory in 0.29 ms of the
// 2.57 ms); they pay when the products are deep enough (the launcher's model of the time). An
// earlier version fused the sums into the product kernel's tile loads and its stores instead: no
// extra passes, but each product ran 11 to 20% slower than step 3 on the same work, and one
// level of it stayed below cuBLAS (docs/tuning.md).
// The sums make each product's terms larger, so the rounding error grows with each level: at
// 4096³ the largest error over every element is 0.57 of the lab's fp32 bound (the solution's
// 0.27), on the lab's uniform inputs. Strassen's error is bounded for the matrix as a whole, not
// element by element, so a product whose rows differ greatly in size can fare worse. A product
// with fewer multiply-adds is not a faster kernel: make bench's TFLOP/s for this row count the
// classical 2·M·N·K, an effective rate. The classical path has no split-K: below the bench's
// large sizes it is slower than the graded solution.
//     make run LAB=03 VARIANT=strassen ARGS="--m 4096 --n 4096 --k 4096"

#include <algorithm>
#include <cstdint>

#include "common/ceil_div.h"
#include "common/cuda_check.h"
#include "common/grid_limits.h"
#include "harness/launchers.h"

// ---- Strassen's scheme as three tables ----

// Quadrants of a matrix are numbered 0..3 for 11, 12, 21, 22, products 0..6 for P1..P7. Each
// table has kOut rows and kIn columns of 0 and ±1: output y of a level is Σ_x at(y, x) · input x.
//   A's operand of product p = Σ_q SumsA::at(p, q) · A_q     (B's alike, with SumsB)
//   quadrant q of C           = Σ_p SumsC::at(q, p) · P_p
// Over two levels, block (q1, q2) of A is quadrant q2 of quadrant q1, product (p1, p2) is
// product p2 of the level below product p1, and their coefficient is at(p1, q1) · at(p2, q2):
// applying a table once per level, to one digit of the index at a time, does both levels. (Any
// order of the digits would do, as long as A, B and C share it.)
struct SumsA {
  static constexpr int kOut = 7, kIn = 4;
  __host__ __device__ static constexpr int at(int y, int x) {
    constexpr int t[kOut][kIn] = {{1, 0, 0, 1}, {0, 0, 1, 1}, {1, 0, 0, 0}, {0, 0, 0, 1},
                                  {1, 1, 0, 0}, {-1, 0, 1, 0}, {0, 1, 0, -1}};
    return t[y][x];
  }
};
struct SumsB {
  static constexpr int kOut = 7, kIn = 4;
  __host__ __device__ static constexpr int at(int y, int x) {
    constexpr int t[kOut][kIn] = {{1, 0, 0, 1}, {1, 0, 0, 0}, {0, 1, 0, -1}, {-1, 0, 1, 0},
                                  {0, 0, 0, 1}, {1, 1, 0, 0}, {0, 0, 1, 1}};
    return t[y][x];
  }
};
struct SumsC {
  static constexpr int kOut = 4, kIn = 7;
  __host__ __device__ static constexpr int at(int y, int x) {
    constexpr int t[kOut][kIn] = {{1, 0, 0, 1, -1, 0, 1}, {0, 0, 1, 0, 1, 0, 0}, {0, 1, 0, 1, 0, 0, 0},
                                  {1, -1, 1, 0, 0, 1, 0}};
    return t[y][x];
  }
};

// The blocks' pointers travel as a kernel parameter (Blocks): 49 of each for two levels; a third
// level's 343 would pass the 4 KB that parameters traditionally have.
constexpr int kMaxLevels = 2;
static_assert(kMaxLevels >= 1 && kMaxLevels <= 2, "one or two levels");
__host__ __device__ constexpr int ipow(int base, int exp) { return exp == 0 ? 1 : base * ipow(base, exp - 1); }
constexpr int kMaxBlocks = ipow(7, kMaxLevels);  // 49 products
constexpr int kSumsThreads = 256;  // per block of the sums passes

// ---- the sums (passes 1 and 3) ----

// The blocks a pass reads and writes: each block's first element, and the row length of the
// matrix it lies in (a block of A, B or C, or one of the operands or products in scratch).
struct Blocks {
  const float* in[kMaxBlocks];
  float* out[kMaxBlocks];
  int in_ld, out_ld;
  unsigned rows, cols;  // every block's size
};

// One level of table T on the values of one element position: v holds kIn^(LEVELS - LEVEL)
// values for each of kOut^LEVEL prefixes; digit LEVEL of the index (the most significant of the
// rest) goes through T. After the last level v holds kOut^LEVELS values. Fully unrolled, the
// table's zeros and ±1 fold away: what is left are the additions and subtractions.
template <class T, int LEVELS, int LEVEL = 0>
__device__ __forceinline__ void apply_levels(float (&v)[kMaxBlocks]) {
  if constexpr (LEVEL < LEVELS) {
    constexpr int prefixes = ipow(T::kOut, LEVEL), suffixes = ipow(T::kIn, LEVELS - LEVEL - 1);
    constexpr int outputs = prefixes * T::kOut * suffixes;
    float w[outputs];
#pragma unroll
    for (int a = 0; a < prefixes; ++a) {
#pragma unroll
      for (int y = 0; y < T::kOut; ++y) {
#pragma unroll
        for (int s = 0; s < suffixes; ++s) {
          float sum = -0.0f;  // -0 + x is x for every x, so the first term costs no addition
#pragma unroll
          for (int x = 0; x < T::kIn; ++x) {
            const float u = v[(a * T::kIn + x) * suffixes + s];
            if (T::at(y, x) == 1) sum += u;
            if (T::at(y, x) == -1) sum -= u;
          }
          w[(a * T::kOut + y) * suffixes + s] = sum;
        }
      }
    }
#pragma unroll
    for (int i = 0; i < outputs; ++i) v[i] = w[i];
    apply_levels<T, LEVELS, LEVEL + 1>(v);
  }
}

// grid  (ceil(cols / kSumsThreads), min(rows, kMaxGridRows)), block (kSumsThreads)
// out[o] = Σ_i coefficient(o, i) · in[i] for the kIn^LEVELS blocks in and the kOut^LEVELS blocks
// out, element by element: thread (x, row) does column x of rows row, row + gridDim.y, ... of
// every block, so that a warp reads and writes 128 contiguous bytes of each.
template <class T, int LEVELS>
__global__ void __launch_bounds__(kSumsThreads) strassen_sums_kernel(const Blocks b) {
  const unsigned col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= b.cols) return;
  for (unsigned row = blockIdx.y; row < b.rows; row += gridDim.y) {
    float v[kMaxBlocks];
#pragma unroll
    for (int i = 0; i < ipow(T::kIn, LEVELS); ++i) v[i] = b.in[i][size_t(row) * b.in_ld + col];
    apply_levels<T, LEVELS>(v);
#pragma unroll
    for (int o = 0; o < ipow(T::kOut, LEVELS); ++o) b.out[o][size_t(row) * b.out_ld + col] = v[o];
  }
}

// ---- the products (pass 2): step 3's kernel, one pair of operands per blockIdx.z ----

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

struct Tiles {
  float a[2][kBlockK][kBlockM];  // a[buf][k][row]: A transposed, as in step 3
  float b[2][kBlockK][kBlockN];  // b[buf][k][col]
};

struct Staged {
  float4 a[kLoadsA];
  float4 b[kLoadsB];
};

// Four consecutive elements of a row-major rows × cols matrix, zero where they fall outside it.
// VEC: all four inside or all outside, 16-byte aligned.
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

// Step 3's fetch: consecutive threads read consecutive 16-byte pieces of each tile.
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

// grid  (ceil(N / 128), min(ceil(M / 256), kMaxGridRows), products), block (256)
// Product z: C_z = A_z · B_z, where A_z is M×K at A + z·M·K, B_z K×N at B + z·K·N and C_z M×N at
// C + z·M·N, row-major. Otherwise step 3's contract: block (bx, by, z) computes the 256×128 tile
// at (by·256, bx·128) (then by + gridDim.y, ... while rows remain) of C_z; thread t = (ty, tx) =
// (t / 16, t % 16) the 16×8 elements at rows {g·64 + ty·4 + i : g < 4, i < 4} and columns
// {h·64 + tx·4 + j : h < 2, j < 4} of the tile: the 16 threads reading one row of a shared tile
// read 256 contiguous bytes (no bank conflicts). VEC: K and N multiples of 4, A, B, C 16-byte
// aligned. __launch_bounds__(256, 1): one block per SM lets a thread have the 211 registers it
// takes (128 accumulators, 24 values of the tiles, 12 staged floats, indices).
template <bool VEC>
__global__ void __launch_bounds__(kThreads, 1)
    matmul_products_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                           int M, int N, int K) {
  __shared__ __align__(16) Tiles tiles;
  const int ty = threadIdx.x / kThreadsN, tx = threadIdx.x % kThreadsN;
  const unsigned n0 = blockIdx.x * kBlockN;
  const int steps = ceil_div(K, kBlockK);
  A += size_t(blockIdx.z) * M * K;
  B += size_t(blockIdx.z) * K * N;
  C += size_t(blockIdx.z) * M * N;

  for (unsigned tile_row = blockIdx.y; tile_row * kBlockM < unsigned(M); tile_row += gridDim.y) {
    const unsigned m0 = tile_row * kBlockM;
    float acc[kThreadM][kThreadN] = {};

    Staged staged;
    fetch_tiles<VEC>(staged, A, B, M, N, K, m0, n0, 0);
    store_tiles(tiles, 0, staged);
    __syncthreads();

    for (int step = 0; step < steps; ++step) {
      const int buf = step % 2;
      if (step + 1 < steps) fetch_tiles<VEC>(staged, A, B, M, N, K, m0, n0, (step + 1) * kBlockK);
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
      if (step + 1 < steps) store_tiles(tiles, 1 - buf, staged);
      __syncthreads();
    }

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
  }
}

// ---- launchers ----

static int multiprocessor_count() {
  int device = 0, count = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  return count;
}

// `products` products of M×K by K×N, stacked as the kernel's contract says.
static void launch_products(const float* A, const float* B, float* C, int M, int N, int K, int products) {
  const dim3 grid(ceil_div(N, kBlockN), std::min(ceil_div(M, kBlockM), kMaxGridRows), products);
  const bool aligned = (reinterpret_cast<uintptr_t>(A) | reinterpret_cast<uintptr_t>(B) |
                        reinterpret_cast<uintptr_t>(C)) % 16 == 0;
  if (aligned && K % 4 == 0 && N % 4 == 0) {
    matmul_products_kernel<true><<<grid, kThreads>>>(A, B, C, M, N, K);
  } else {
    matmul_products_kernel<false><<<grid, kThreads>>>(A, B, C, M, N, K);
  }
  CHECK_LAUNCH();
}

template <class T, int LEVELS>
static void launch_sums(const Blocks& b) {
  const dim3 grid(ceil_div(b.cols, unsigned(kSumsThreads)), std::min<unsigned>(b.rows, kMaxGridRows));
  strassen_sums_kernel<T, LEVELS><<<grid, kSumsThreads>>>(b);
  CHECK_LAUNCH();
}

// Block i of a rows × cols matrix cut LEVELS times into quadrants: digit l of i (base 4, the
// most significant first) is the quadrant taken at level l.
template <class F>
static F* block_of(F* m, int rows, int cols, int levels, int i) {
  size_t r = 0, c = 0;
  for (int l = 0; l < levels; ++l) {
    const int q = i / ipow(4, levels - 1 - l) % 4;
    r += size_t(q / 2) * (rows >> (l + 1));
    c += size_t(q % 2) * (cols >> (l + 1));
  }
  return m + r * cols + c;
}

// Scratch memory for the operands and products, kept between calls (as cuBLAS keeps its
// workspace) and grown when a call needs more; nullptr where that memory cannot be had. Two
// levels take 49/16 · (M·K + K·N + M·N) floats: 588 MiB at 4096³, 2.3 GiB at 8192³, held until
// the process ends, which leaves that much less to the caller's own later allocations.
static float* scratch(size_t floats) {
  static float* memory = nullptr;
  static size_t size = 0;
  if (floats > size) {
    if (memory != nullptr) CUDA_CHECK(cudaFree(memory));
    memory = nullptr;
    size = 0;
    if (cudaMalloc(&memory, floats * sizeof(float)) != cudaSuccess) {
      (void)cudaGetLastError();  // not a sticky error: the product runs without Strassen
      memory = nullptr;
      return nullptr;
    }
    size = floats;
  }
  return memory;
}

// LEVELS levels of Strassen: M, N and K are multiples of 2^LEVELS. Returns false, having done
// nothing, where the scratch memory cannot be had.
template <int LEVELS>
static bool strassen(const float* A, const float* B, float* C, int M, int N, int K) {
  constexpr int products = ipow(7, LEVELS), blocks = ipow(4, LEVELS);
  const int m = M >> LEVELS, n = N >> LEVELS, k = K >> LEVELS;
  // The operands of A, then those of B, then the products.
  float* const ops_a = scratch(size_t(products) * (size_t(m) * k + size_t(k) * n + size_t(m) * n));
  if (ops_a == nullptr) return false;
  float* const ops_b = ops_a + size_t(products) * m * k;
  float* const prods = ops_b + size_t(products) * k * n;

  Blocks sums_a{{}, {}, K, k, unsigned(m), unsigned(k)};
  Blocks sums_b{{}, {}, N, n, unsigned(k), unsigned(n)};
  Blocks sums_c{{}, {}, n, N, unsigned(m), unsigned(n)};
  for (int i = 0; i < blocks; ++i) {
    sums_a.in[i] = block_of(A, M, K, LEVELS, i);
    sums_b.in[i] = block_of(B, K, N, LEVELS, i);
    sums_c.out[i] = block_of(C, M, N, LEVELS, i);
  }
  for (int p = 0; p < products; ++p) {
    sums_a.out[p] = ops_a + size_t(p) * m * k;
    sums_b.out[p] = ops_b + size_t(p) * k * n;
    sums_c.in[p] = prods + size_t(p) * m * n;
  }
  launch_sums<SumsA, LEVELS>(sums_a);
  launch_sums<SumsB, LEVELS>(sums_b);
  launch_products(ops_a, ops_b, prods, m, n, k, products);
  launch_sums<SumsC, LEVELS>(sums_c);
  return true;
}

// The product by `levels` levels of Strassen (at most LEVELS), by fewer where the memory for
// them cannot be had, and classically by the products kernel at none.
template <int LEVELS = kMaxLevels>
static void matmul_by_levels(const float* A, const float* B, float* C, int M, int N, int K, int levels) {
  if constexpr (LEVELS > 0) {
    if (levels == LEVELS && strassen<LEVELS>(A, B, C, M, N, K)) return;
    matmul_by_levels<LEVELS - 1>(A, B, C, M, N, K, std::min(levels, LEVELS - 1));
  } else {
    launch_products(A, B, C, M, N, K, 1);
  }
}

// How many levels pay, by a model of the time fitted on the H100 (docs/tuning.md has its
// predictions beside the measurements):
//   - a launch of the products kernel takes as many rounds as its tiles fill the SMs (one block
//     per SM), each kRoundNsPerDepth per unit of its depth: the solution's 4 rounds 4096 deep at
//     4096³ take 2.92 ms;
//   - the passes move the floats they read and write at kPassBytesPerNs, a rate fitted so that
//     the model's totals match the runs: it counts 1,023 MB at 4096³ (the products written and
//     read back included), of which ncu saw 758 MB reach device memory, in 0.29 ms.
// At 4096³ it predicts 2.92, 2.81 and 2.58 ms for no, one and two levels (measured: 2.92, 2.81
// and 2.57); on 2048³ the passes cost more than a second level saves, and one level makes 2
// rounds where the classical product takes 1. On another GPU the constants are off, and so may
// be the choice of levels: never the result.
constexpr double kRoundNsPerDepth = 178.0;
constexpr double kPassBytesPerNs = 2600.0;  // 2.6 TB/s

static double predicted_ns(int64_t M, int64_t N, int64_t K, int levels, int sms) {
  const int64_t m = M >> levels, n = N >> levels, k = K >> levels, products = ipow(7, levels);
  const int64_t tiles = products * ceil_div<int64_t>(m, kBlockM) * ceil_div<int64_t>(n, kBlockN);
  double ns = double(ceil_div<int64_t>(tiles, sms)) * double(k) * kRoundNsPerDepth;
  if (levels > 0) {
    // A read and its operands written, B's alike, the products written and read, C written.
    const int64_t floats = M * K + products * m * k + K * N + products * k * n + 2 * products * m * n + M * N;
    ns += double(floats) * sizeof(float) / kPassBytesPerNs;
  }
  return ns;
}

static int levels_that_pay(int M, int N, int K, int sms) {
  int best = 0;
  for (int levels = 1; levels <= kMaxLevels; ++levels) {
    const int blocks = 1 << levels;  // along each dimension
    if (M % blocks != 0 || N % blocks != 0 || K % blocks != 0) break;
    if (predicted_ns(M, N, K, levels, sms) < predicted_ns(M, N, K, best, sms)) best = levels;
  }
  return best;
}

void matmul_register(const float* A, const float* B, float* C, int M, int N, int K) {
  if (M == 0 || N == 0) return;  // no elements of C; with K = 0 the kernel writes zeros
  static const int sms = multiprocessor_count();
  matmul_by_levels(A, B, C, M, N, K, levels_that_pay(M, N, K, sms));
}

// The lab program links every step's launcher; this variant has one product, which every
// step runs (make run LAB=03 VARIANT=strassen checks it three times).
void matmul_register_1d(const float* A, const float* B, float* C, int M, int N, int K) {
  matmul_register(A, B, C, M, N, K);
}

void matmul_register_2d(const float* A, const float* B, float* C, int M, int N, int K) {
  matmul_register(A, B, C, M, N, K);
}
