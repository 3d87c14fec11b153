// Lab 03, stretch beyond cuBLAS: lab 03's step 3 kernel under up to two levels of Strassen's
// algorithm. Not graded; students are graded against solutions/03_matmul_register.
//
// Not a program of its own: the variant `strassen` (solutions/variants/variants.txt) is the
// solution, solutions/03_matmul_register/matmul_register.cu, with its step 3 launcher (from the
// line "// ---- step 3's launcher: split-K ----" to the end) replaced by this file; make writes
// it into build/variants/strassen/. Its products run step 3's own kernel and constants
// (namespace step3), none of them copied here; its steps 1 and 2 are the solution's.
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
//      blockIdx.z, into scratch memory: they are its splits of K (below);
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

// ---- the products (pass 2): step 3's kernel, each product a split of K ----

// Step 3's kernel sums split z of K, k in [z·depth, (z + 1)·depth), into slice z of its output.
// Laid side by side along K, the operands are its splits: A's in an m × (products·depth) matrix,
// operand z in columns [z·depth, (z + 1)·depth), B's one above the other in a (products·depth) × n
// one, and slice z is then A_z · B_z. The adding pass of the solution's split-K is not run: the
// products stay apart. depth is k in whole kBlockK tiles, so that no tile straddles two
// products; the columns of A's operands and the rows of B's past k are zeros.
static void launch_products(const float* A, const float* B, float* C, int M, int N, int depth, int products) {
  const int K = products * depth;  // levels_that_pay keeps it an int
  const dim3 grid(ceil_div(N, step3::kBlockN), std::min(ceil_div(M, step3::kBlockM), kMaxGridRows), products);
  const bool aligned = (reinterpret_cast<uintptr_t>(A) | reinterpret_cast<uintptr_t>(B) |
                        reinterpret_cast<uintptr_t>(C)) % 16 == 0;
  if (aligned && K % 4 == 0 && N % 4 == 0) {
    step3::matmul_register_kernel<true><<<grid, step3::kThreads>>>(A, B, C, M, N, K, depth);
  } else {
    step3::matmul_register_kernel<false><<<grid, step3::kThreads>>>(A, B, C, M, N, K, depth);
  }
  CHECK_LAUNCH();
}

// k in whole tiles of step 3's kernel: the depth of each product's split.
static int64_t padded_depth(int64_t k) { return ceil_div<int64_t>(k, step3::kBlockK) * step3::kBlockK; }

// ---- the launcher ----

static int multiprocessor_count() {
  int device = 0, count = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  return count;
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
// levels take 49/16 · (M·K + K·N + M·N) floats (a little more where k is not whole tiles):
// 588 MiB at 4096³, 2.3 GiB at 8192³, held until the process ends, which leaves that much less
// to the caller's own later allocations.
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
  const int depth = int(padded_depth(k));
  // The operands of A side by side, then those of B one above the other (launch_products), then
  // the products.
  const size_t floats_a = size_t(m) * products * depth, floats_b = size_t(products) * depth * n;
  float* const ops_a = scratch(floats_a + floats_b + size_t(products) * m * n);
  if (ops_a == nullptr) return false;
  float* const ops_b = ops_a + floats_a;
  float* const prods = ops_b + floats_b;
  // The sums write each operand's k columns (rows of B); past them, up to depth, the product
  // needs zeros, where the scratch memory holds whatever an earlier call left.
  if (depth != k) CUDA_CHECK(cudaMemsetAsync(ops_a, 0, (floats_a + floats_b) * sizeof(float)));

  Blocks sums_a{{}, {}, K, products * depth, unsigned(m), unsigned(k)};
  Blocks sums_b{{}, {}, N, n, unsigned(k), unsigned(n)};
  Blocks sums_c{{}, {}, n, N, unsigned(m), unsigned(n)};
  for (int i = 0; i < blocks; ++i) {
    sums_a.in[i] = block_of(A, M, K, LEVELS, i);
    sums_b.in[i] = block_of(B, K, N, LEVELS, i);
    sums_c.out[i] = block_of(C, M, N, LEVELS, i);
  }
  for (int p = 0; p < products; ++p) {
    sums_a.out[p] = ops_a + size_t(p) * depth;
    sums_b.out[p] = ops_b + size_t(p) * depth * n;
    sums_c.in[p] = prods + size_t(p) * m * n;
  }
  launch_sums<SumsA, LEVELS>(sums_a);
  launch_sums<SumsB, LEVELS>(sums_b);
  launch_products(ops_a, ops_b, prods, m, n, depth, products);
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
  const int64_t tiles = products * ceil_div<int64_t>(m, step3::kBlockM) * ceil_div<int64_t>(n, step3::kBlockN);
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
    if (ipow(7, levels) * padded_depth(K >> levels) > INT32_MAX) break;  // launch_products's K, an int
    if (predicted_ns(M, N, K, levels, sms) < predicted_ns(M, N, K, best, sms)) best = levels;
  }
  return best;
}

void matmul_register(const float* A, const float* B, float* C, int M, int N, int K) {
  if (M == 0 || N == 0) return;  // no elements of C; with K = 0 the kernel writes zeros
  static const int sms = multiprocessor_count();
  matmul_by_levels(A, B, C, M, N, K, levels_that_pay(M, N, K, sms));
}
