// Lab 04 exploration on the H200 (2026-11-29), kept as the source of transpose-variants-h200.log;
// not part of the workbook. Transpose variants against cudaMemcpyAsync's device-to-device copy of
// the same bytes, each the median of 20 calls with the L2 flushed before each, checked first.
// Build and run on a GPU:  nvcc -O3 -arch=sm_90 -std=c++17 transpose-variants-h200.cu -o t && ./t
// The log's first run had this list of variants in main() instead of the one below:
//   t64r8 t64r4 t64r2 (SCALAR(64, R, false, 1)), t64r4pf2 t64r8pf2 t64r4pf4 (SCALAR(64, R, true, YD)),
//   t128r4 t128r8 t32r2 (SCALAR(T, R, false, 1)), v2r4 v2r8 v2r2 (VEC2(R)); sizes 8192x4096,
//   8192x8192, 4096x4096, 16384x16384, two repetitions.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while (0)

// Scalar: tile T x T, block (T, R); each block moves tiles blockIdx.y, +gridDim.y, ...
// PREFETCH: the next tile's loads are issued before the current tile is stored.
constexpr int fit(int threads, int smem) {
  int b = 2048 / threads; if (b > 12) b = 12; int s = 233472 / (smem + 1024); return b < s ? b : s;
}
template <int T, int R, bool PREFETCH>
__global__ void __launch_bounds__(T * R, T / R > 16 ? 1 : fit(T * R, T * (T + 1) * 4))
tr_scalar(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  extern __shared__ float tile[];  // T x (T + 1)
  constexpr int S = T + 1, N = T / R;
  const int x = threadIdx.x, y = threadIdx.y;
  const unsigned c0 = blockIdx.x * T;
  float v[N];
  unsigned tr = blockIdx.y;
  auto load = [&](unsigned r0) {
#pragma unroll
    for (int j = 0; j < N; ++j) {
      const unsigned r = r0 + y + j * R, c = c0 + x;
      if (r < unsigned(rows) && c < unsigned(cols)) v[j] = in[size_t(r) * cols + c];
    }
  };
  if (PREFETCH && tr * T < unsigned(rows)) load(tr * T);
  for (; tr * T < unsigned(rows); tr += gridDim.y) {
    const unsigned r0 = tr * T;
    if (!PREFETCH) load(r0);
#pragma unroll
    for (int j = 0; j < N; ++j) tile[(y + j * R) * S + x] = v[j];
    __syncthreads();
    if (PREFETCH && (tr + gridDim.y) * T < unsigned(rows)) load((tr + gridDim.y) * T);
#pragma unroll
    for (int j = 0; j < N; ++j) {
      const unsigned orow = c0 + y + j * R, ocol = r0 + x;
      if (orow < unsigned(cols) && ocol < unsigned(rows)) out[size_t(orow) * rows + ocol] = tile[x * S + y + j * R];
    }
    __syncthreads();
  }
}

// float2 loads: tile 64 x 64, block (32, R); lane x loads columns 2x, 2x+1; stores scalar x and x+32.
template <int R>
__global__ void __launch_bounds__(32 * R, 2048 / (32 * R) > 16 ? 16 : 2048 / (32 * R))
tr_v2(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[64][65];
  constexpr int N = 64 / R;
  const int x = threadIdx.x, y = threadIdx.y;
  const unsigned c0 = blockIdx.x * 64;
  for (unsigned tr = blockIdx.y; tr * 64 < unsigned(rows); tr += gridDim.y) {
    const unsigned r0 = tr * 64;
    const bool full = r0 + 64 <= unsigned(rows) && c0 + 64 <= unsigned(cols) && cols % 2 == 0;
#pragma unroll
    for (int j = 0; j < N; ++j) {
      const unsigned r = r0 + y + j * R, c = c0 + 2 * x;
      if (full) {
        const float2 p = *reinterpret_cast<const float2*>(in + size_t(r) * cols + c);
        tile[y + j * R][2 * x] = p.x; tile[y + j * R][2 * x + 1] = p.y;
      } else {
        if (r < unsigned(rows) && c < unsigned(cols)) tile[y + j * R][2 * x] = in[size_t(r) * cols + c];
        if (r < unsigned(rows) && c + 1 < unsigned(cols)) tile[y + j * R][2 * x + 1] = in[size_t(r) * cols + c + 1];
      }
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < N; ++j) {
      const unsigned orow = c0 + y + j * R;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const unsigned ocol = r0 + x + 32 * h;
        if (orow < unsigned(cols) && ocol < unsigned(rows)) out[size_t(orow) * rows + ocol] = tile[x + 32 * h][y + j * R];
      }
    }
    __syncthreads();
  }
}

// Register-staged 64x64 tile, block (64, 8), launched as a 1-D grid whose block ids are mapped to
// tiles in groups of G tile rows, column by column within a group (G = 0: row by row).
// HINT 1: streaming stores (__stcs); 2: streaming loads and stores.
template <int G, int HINT>
__global__ void __launch_bounds__(512, 4)
tr_order(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[64][65];
  const int x = threadIdx.x, y = threadIdx.y;
  const unsigned tx_n = (cols + 63) / 64, ty_n = (rows + 63) / 64;
  const unsigned id = blockIdx.x;
  unsigned tx, ty;
  if (G == 0) { tx = id % tx_n; ty = id / tx_n; }
  else {
    const unsigned group = id / (G * tx_n), within = id % (G * tx_n);
    const unsigned first = group * G, g = min(G, ty_n - first);
    ty = first + within % g; tx = within / g;
  }
  const unsigned c0 = tx * 64, r0 = ty * 64;
  float v[8] = {};
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    const unsigned r = r0 + y + j * 8, c = c0 + x;
    if (r < unsigned(rows) && c < unsigned(cols)) v[j] = HINT == 2 ? __ldcs(in + size_t(r) * cols + c) : in[size_t(r) * cols + c];
  }
#pragma unroll
  for (int j = 0; j < 8; ++j) tile[y + j * 8][x] = v[j];
  __syncthreads();
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    const unsigned orow = c0 + y + j * 8, ocol = r0 + x;
    if (orow < unsigned(cols) && ocol < unsigned(rows)) {
      if (HINT >= 1) __stcs(out + size_t(orow) * rows + ocol, tile[x][y + j * 8]);
      else out[size_t(orow) * rows + ocol] = tile[x][y + j * 8];
    }
  }
}

static float median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

struct Bench {
  float *flush; size_t flush_bytes = size_t(256) << 20;
  cudaEvent_t a, b;
  Bench() { CK(cudaMalloc(&flush, flush_bytes)); CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b)); }
  template <class F> float time(F f) {
    f(); CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    std::vector<float> t;
    for (int i = 0; i < 20; ++i) {
      CK(cudaMemsetAsync(flush, i, flush_bytes));
      CK(cudaEventRecord(a)); f(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
      float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms);
    }
    CK(cudaGetLastError());
    return median(t);
  }
};

template <class L> bool check(L launch, int rows, int cols) {
  const size_t n = size_t(rows) * cols;
  std::vector<float> h(n), g(n);
  for (size_t i = 0; i < n; ++i) h[i] = float((i * 2654435761u) % 1000003) * 0.5f;
  float *din, *dout; CK(cudaMalloc(&din, n * 4 + 4)); CK(cudaMalloc(&dout, n * 4 + 4));
  CK(cudaMemcpy(din, h.data(), n * 4, cudaMemcpyHostToDevice)); CK(cudaMemset(dout, 0xff, n * 4 + 4));
  launch(din, dout, rows, cols); CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(g.data(), dout, n * 4, cudaMemcpyDeviceToHost));
  unsigned tail; CK(cudaMemcpy(&tail, dout + n, 4, cudaMemcpyDeviceToHost));
  CK(cudaFree(din)); CK(cudaFree(dout));
  for (int r = 0; r < rows; ++r) for (int c = 0; c < cols; ++c)
    if (g[size_t(c) * rows + r] != h[size_t(r) * cols + c]) return false;
  return tail == 0xffffffffu;
}

int main() {
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  printf("# %s, %d SMs\n", p.name, p.multiProcessorCount);
  Bench bench;
  struct V { const char* name; void (*go)(const float*, float*, int, int); };
#define SCALAR(T, R, P, YD) [](const float* i, float* o, int r, int c) { \
    if (!r || !c) return; size_t sm = T * (T + 1) * 4; \
    CK(cudaFuncSetAttribute(tr_scalar<T, R, P>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(sm))); \
    dim3 g((c + T - 1) / T, std::min(((r + T - 1) / T + YD - 1) / YD, 65535)); \
    tr_scalar<T, R, P><<<g, dim3(T, R), sm>>>(i, o, r, c); }
#define VEC2(R) [](const float* i, float* o, int r, int c) { if (!r || !c) return; \
    dim3 g((c + 63) / 64, std::min((r + 63) / 64, 65535)); tr_v2<R><<<g, dim3(32, R)>>>(i, o, r, c); }
#define ORDER(G, H) [](const float* i, float* o, int r, int c) { if (!r || !c) return; \
    tr_order<G, H><<<((c + 63) / 64) * ((r + 63) / 64), dim3(64, 8)>>>(i, o, r, c); }
  V vs[] = {
      {"t64r8", SCALAR(64, 8, false, 1)}, {"o0h0", ORDER(0, 0)}, {"o0h1", ORDER(0, 1)}, {"o0h2", ORDER(0, 2)},
      {"o4h0", ORDER(4, 0)}, {"o8h0", ORDER(8, 0)}, {"o16h0", ORDER(16, 0)}, {"o32h0", ORDER(32, 0)},
      {"o16h1", ORDER(16, 1)}, {"v2r8", VEC2(8)},
  };
  for (auto& v : vs) {
    bool ok = check(v.go, 1000, 777) && check(v.go, 777, 1000) && check(v.go, 130, 4) && check(v.go, 4096, 4096);
    printf("check %-10s %s\n", v.name, ok ? "OK" : "WRONG");
  }
  const int sizes[][2] = {{8192, 8192}, {4096, 16384}, {8192, 4096}};
  for (auto& s : sizes) {
    const int rows = s[0], cols = s[1];
    const size_t n = size_t(rows) * cols;
    float *din, *dout; CK(cudaMalloc(&din, n * 4)); CK(cudaMalloc(&dout, n * 4));
    CK(cudaMemset(din, 1, n * 4));
    for (int rep = 0; rep < 3; ++rep) {
      const float copy = bench.time([&] { CK(cudaMemcpyAsync(dout, din, n * 4, cudaMemcpyDeviceToDevice)); });
      const double copy_tbs = 2.0 * n * 4 / copy / 1e9;
      printf("%dx%d rep %d copy %.4f ms %.3f TB/s\n", rows, cols, rep + 1, copy, copy_tbs);
      for (auto& v : vs) {
        const float ms = bench.time([&] { v.go(din, dout, rows, cols); });
        const double tbs = 2.0 * n * 4 / ms / 1e9;
        printf("  %-10s %dx%d rep %d %.4f ms %.3f TB/s %5.1f%% of copy\n", v.name, rows, cols, rep + 1, ms, tbs, 100 * tbs / copy_tbs);
      }
    }
    CK(cudaFree(din)); CK(cudaFree(dout));
  }
}
