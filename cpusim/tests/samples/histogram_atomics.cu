// Sample-style atomics: a 64-bin histogram built per block in shared memory with atomicAdd and
// merged into global memory, then each of CUDA's atomic functions on int, unsigned, float and
// double where CUDA has them, every thread of the grid applying it to one shared target.
#include <cuda_runtime.h>

#include <cstdio>

#include "sample_helper.h"

constexpr int kBins = 64;
constexpr int kThreads = 256;

// ---- kernels ----
// grid(blocks), block(kThreads); bins[kBins] zeroed before the launch.
__global__ void histogram_kernel(const unsigned char* data, int n, unsigned* bins) {
  __shared__ unsigned local[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
  __syncthreads();  // the bins are zero before anyone counts
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&local[data[i] % kBins], 1u);
  __syncthreads();  // every count of this block is in before the merge
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

struct Targets {
  int add, sub, min, max, exch, cas, and_, or_, xor_;
  unsigned uadd, umin, umax, inc;
  float fadd;
  double dadd;
};

// grid(blocks), block(kThreads); t as the host initialized it. Thread i applies each atomic once.
__global__ void atomics_kernel(Targets* t) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&t->add, i);
  atomicSub(&t->sub, i);
  atomicMin(&t->min, 1000 - i);
  atomicMax(&t->max, i - 1000);
  atomicExch(&t->exch, i);  // the last one stays
  atomicCAS(&t->cas, i, i + 1);  // only thread `cas` can move it on: 0 -> 1 -> ... as far as the order allows
  atomicAnd(&t->and_, ~(1 << (i % 31)));
  atomicOr(&t->or_, 1 << (i % 31));
  atomicXor(&t->xor_, i);
  atomicAdd(&t->uadd, 2u);
  atomicMin(&t->umin, unsigned(i + 7));
  atomicMax(&t->umax, unsigned(i));
  atomicInc(&t->inc, 99u);  // counts 0..99 and wraps
  atomicAdd(&t->fadd, 0.5f);
  atomicAdd(&t->dadd, 0.25);
}

// ---- host ----
int main(int argc, const char** argv) {
  findCudaDevice(argc, argv);
  const int n = 100000, blocks = 8;
  static unsigned char h_data[n];
  unsigned want_bins[kBins] = {};
  for (int i = 0; i < n; ++i) {
    h_data[i] = (unsigned char)((i * 2654435761u) >> 24);
    ++want_bins[h_data[i] % kBins];
  }
  unsigned char* d_data;
  unsigned* d_bins;
  checkCudaErrors(cudaMalloc(&d_data, n));
  checkCudaErrors(cudaMalloc(&d_bins, kBins * sizeof(unsigned)));
  checkCudaErrors(cudaMemcpy(d_data, h_data, n, cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemset(d_bins, 0, kBins * sizeof(unsigned)));
  histogram_kernel<<<blocks, kThreads>>>(d_data, n, d_bins);
  getLastCudaError("histogram_kernel failed");
  unsigned bins[kBins];
  checkCudaErrors(cudaMemcpy(bins, d_bins, sizeof bins, cudaMemcpyDeviceToHost));
  int wrong_bins = 0;
  for (int b = 0; b < kBins; ++b) wrong_bins += bins[b] != want_bins[b];

  const int threads = blocks * kThreads;
  Targets h = {0, 0, 1 << 30, -(1 << 30), 0, 0, -1, 0, 0, 0, ~0u, 0, 0, 0.0f, 0.0};
  Targets* d_t;
  checkCudaErrors(cudaMalloc(&d_t, sizeof(Targets)));
  checkCudaErrors(cudaMemcpy(d_t, &h, sizeof h, cudaMemcpyHostToDevice));
  atomics_kernel<<<blocks, kThreads>>>(d_t);
  getLastCudaError("atomics_kernel failed");
  Targets g;
  checkCudaErrors(cudaMemcpy(&g, d_t, sizeof g, cudaMemcpyDeviceToHost));
  int xor_all = 0;
  for (int i = 0; i < threads; ++i) xor_all ^= i;
  const int sum = threads * (threads - 1) / 2;
  struct Check { const char* name; bool ok; };
  const Check checks[] = {
      {"atomicAdd int", g.add == sum},
      {"atomicSub int", g.sub == -sum},
      {"atomicMin int", g.min == 1000 - (threads - 1)},
      {"atomicMax int", g.max == threads - 1 - 1000},
      {"atomicExch int", g.exch >= 0 && g.exch < threads},
      {"atomicCAS int", g.cas >= 1 && g.cas <= threads},
      {"atomicAnd int", g.and_ == int(1u << 31)},
      {"atomicOr int", g.or_ == 0x7fffffff},
      {"atomicXor int", g.xor_ == xor_all},
      {"atomicAdd unsigned", g.uadd == 2u * threads},
      {"atomicMin unsigned", g.umin == 7u},
      {"atomicMax unsigned", g.umax == unsigned(threads - 1)},
      {"atomicInc unsigned", g.inc == unsigned(threads % 100)},
      {"atomicAdd float", g.fadd == 0.5f * threads},
      {"atomicAdd double", g.dadd == 0.25 * threads},
  };
  int failed = 0;
  for (const Check& c : checks)
    if (!c.ok) std::printf("  %s: wrong\n", c.name), ++failed;
  checkCudaErrors(cudaFree(d_data));
  checkCudaErrors(cudaFree(d_bins));
  checkCudaErrors(cudaFree(d_t));
  const bool pass = wrong_bins == 0 && failed == 0;
  std::printf("histogram_atomics: %d of %d bins wrong (bin 0 holds %u), %d of %zu atomic functions wrong: %s\n", wrong_bins,
              kBins, bins[0], failed, sizeof checks / sizeof checks[0], pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}
