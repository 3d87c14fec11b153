// Lab 04 exploration on the H200 (2026-11-30), kept as the source of transpose-shapes-h200.log;
// not part of the workbook. The question: is what keeps the solution at 94-95% of a copy the
// writes (a 64 x 64 tile writes 64 rows of out, 256 bytes each)? Tiles that are not square trade
// the length of the runs read for the length of the runs written: a tile TR rows by TC columns
// of in reads TR runs of TC floats and writes TC runs of TR floats. Each is timed against
// cudaMemcpyAsync's device-to-device copy of the same bytes, the median of 20 calls with the L2
// flushed before each (as transpose-variants-h200.cu), after a check of its result.
// Build and run on a GPU:  nvcc -O3 -arch=sm_90 -std=c++17 transpose-shapes-h200.cu -o t && ./t
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while (0)

// Block (TC, BY). Load: thread (x, y) reads rows y, y + BY, ... of the tile's column x into
// registers, then the tile. Store: the block's threads taken as rows of TR, so a warp writes 32
// consecutive floats of a row of out (TR of them per row). The tile's rows are TC + 1 floats
// long: a column spreads over the 32 banks. Blocks per SM from 2048 threads (at most 32
// registers a thread then).
template <int TR, int TC, int BY>
__global__ void __launch_bounds__(TC * BY, 2048 / (TC * BY))
tr_shape(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  constexpr int NT = TC * BY, LOADS = TR / BY, SROWS = NT / TR, STORES = TC / SROWS;
  static_assert(TC % 32 == 0 && TR % 32 == 0 && TR % BY == 0 && NT % TR == 0 && TC % SROWS == 0, "shape");
  __shared__ float tile[TR][TC + 1];
  const int tid = threadIdx.y * TC + threadIdx.x;
  const int x = threadIdx.x, y = threadIdx.y, sx = tid % TR, sy = tid / TR;
  const unsigned c0 = blockIdx.x * TC;
  for (unsigned tr = blockIdx.y; tr * TR < unsigned(rows); tr += gridDim.y) {
    const unsigned r0 = tr * TR;
    float v[LOADS] = {};
#pragma unroll
    for (int j = 0; j < LOADS; ++j) {
      const unsigned r = r0 + y + j * BY, c = c0 + x;
      if (r < unsigned(rows) && c < unsigned(cols)) v[j] = in[size_t(r) * cols + c];
    }
#pragma unroll
    for (int j = 0; j < LOADS; ++j) tile[y + j * BY][x] = v[j];
    __syncthreads();
#pragma unroll
    for (int j = 0; j < STORES; ++j) {
      const unsigned orow = c0 + sy + j * SROWS, ocol = r0 + sx;
      if (orow < unsigned(cols) && ocol < unsigned(rows)) out[size_t(orow) * rows + ocol] = tile[sx][sy + j * SROWS];
    }
    __syncthreads();
  }
}

static float median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

struct Bench {
  float* flush; size_t flush_bytes = size_t(256) << 20;
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

template <int TR, int TC, int BY> void launch(const float* i, float* o, int r, int c) {
  if (!r || !c) return;
  const dim3 g((c + TC - 1) / TC, std::min((r + TR - 1) / TR, 65535));
  tr_shape<TR, TC, BY><<<g, dim3(TC, BY)>>>(i, o, r, c);
}

int main() {
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  printf("# %s, %d SMs\n", p.name, p.multiProcessorCount);
  Bench bench;
  struct V { const char* name; void (*go)(const float*, float*, int, int); };
  // name: rows x columns of in per tile, then threads; "64x64/64x8" is the solution's shape.
  V vs[] = {
      {"64x64/64x8", launch<64, 64, 8>},     {"128x32/32x16", launch<128, 32, 16>},
      {"256x32/32x16", launch<256, 32, 16>}, {"128x64/64x8", launch<128, 64, 8>},
      {"128x32/32x8", launch<128, 32, 8>},
      {"32x128/128x4", launch<32, 128, 4>},  {"64x128/128x4", launch<64, 128, 4>},
  };
  for (auto& v : vs) {
    bool ok = check(v.go, 1000, 777) && check(v.go, 777, 1000) && check(v.go, 130, 4) && check(v.go, 4096, 4096);
    printf("check %-14s %s\n", v.name, ok ? "OK" : "WRONG");
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
        printf("  %-14s %dx%d rep %d %.4f ms %.3f TB/s %5.1f%% of copy\n", v.name, rows, cols, rep + 1, ms, tbs, 100 * tbs / copy_tbs);
      }
    }
    CK(cudaFree(din)); CK(cudaFree(dout));
  }
}
