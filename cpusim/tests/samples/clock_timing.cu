// Sample-style timing inside a kernel, as cuda-samples' clock sample does: each block reads
// clock() and clock64() when it starts and when it has finished its work, and the host checks
// that both counters moved forward and reports the average ticks per block. The ticks are the
// GPU's SM clock on a GPU and a CPU counter on the CPU backend: their count means nothing across
// the two, only that they advance.
#include <cuda_runtime.h>

#include <cstdio>

#include "sample_helper.h"

// ---- kernel ----
// grid(blocks), block(256); stamps[4 * b ...]: block b's clock() and clock64() at start and end.
__global__ void timed_sum_kernel(const float* x, int n, float* out, long long* stamps) {
  __shared__ float partial[256];
  long long start64 = 0;
  clock_t start = 0;
  if (threadIdx.x == 0) {
    start = clock();
    start64 = clock64();
  }
  float s = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += x[i];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();  // each round reads the previous round's sums
  }
  if (threadIdx.x == 0) {
    out[blockIdx.x] = partial[0];
    long long* st = stamps + 4 * blockIdx.x;
    st[0] = start;
    st[1] = clock();
    st[2] = start64;
    st[3] = clock64();
  }
}

// ---- host ----
int main(int argc, const char** argv) {
  findCudaDevice(argc, argv);
  const int n = 1 << 16, blocks = 16;
  float* h = new float[n];
  double want = 0;
  for (int i = 0; i < n; ++i) want += h[i] = float(i % 7);
  float *d_x, *d_out;
  long long* d_stamps;
  checkCudaErrors(cudaMalloc(&d_x, n * sizeof(float)));
  checkCudaErrors(cudaMalloc(&d_out, blocks * sizeof(float)));
  checkCudaErrors(cudaMalloc(&d_stamps, 4 * blocks * sizeof(long long)));
  checkCudaErrors(cudaMemcpy(d_x, h, n * sizeof(float), cudaMemcpyHostToDevice));
  timed_sum_kernel<<<blocks, 256>>>(d_x, n, d_out, d_stamps);
  getLastCudaError("timed_sum_kernel failed");
  float out[blocks];
  long long stamps[4 * blocks];
  checkCudaErrors(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(stamps, d_stamps, sizeof stamps, cudaMemcpyDeviceToHost));
  double got = 0, ticks64 = 0;
  int backwards = 0, still64 = 0;
  for (int b = 0; b < blocks; ++b) {
    got += out[b];
    // clock() is a 32-bit counter on a GPU, so its difference is taken modulo 2^32.
    backwards += unsigned(stamps[4 * b + 1] - stamps[4 * b]) >= 0x80000000u || stamps[4 * b + 3] < stamps[4 * b + 2];
    still64 += stamps[4 * b + 3] == stamps[4 * b + 2];
    ticks64 += double(stamps[4 * b + 3] - stamps[4 * b + 2]) / blocks;
  }
  checkCudaErrors(cudaFree(d_x));
  checkCudaErrors(cudaFree(d_out));
  checkCudaErrors(cudaFree(d_stamps));
  delete[] h;
  const bool pass = got == want && backwards == 0 && still64 == 0;
  std::printf("clock_timing: sum %.0f (expected %.0f), %d blocks ran backwards, %d blocks with clock64 standing still, "
              "%s\n", got, want, backwards, still64, pass ? "PASS" : "FAIL");
  if (pass) std::printf("clock_timing: average %.0f clock64 ticks per block\n", ticks64);
  return pass ? 0 : 1;
}
