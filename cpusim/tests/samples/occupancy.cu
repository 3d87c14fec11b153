// Sample-style occupancy queries: how many blocks of a kernel fit on a multiprocessor
// (cudaOccupancyMaxActiveBlocksPerMultiprocessor) for several block sizes and amounts of shared
// memory, the block size the runtime suggests (cudaOccupancyMaxPotentialBlockSize and its
// VariableSMem form), and the kernel's attributes (cudaFuncGetAttributes); then a launch with the
// suggested configuration. The checks hold on any device: the limits come from its properties.
// On the CPU backend it also checks the exact counts of its emulated device (cpusim/README.md).
//   occupancy            the checks; PASS or FAIL per check, exit 0 when all pass
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "sample_helper.h"

// ---- constants ----
constexpr int kTile = 256;  // tile_sum_kernel's static shared array, in floats (1 KB)

// ---- kernels ----
// grid(ceil(n / blockDim.x)), block(any); x: n floats, scaled in place.
__global__ void scale_kernel(float* x, int n, float factor) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= factor;
}

// grid(ceil(n / kTile)), block(kTile); out[blockIdx.x] = the sum of its kTile elements of x.
__global__ void tile_sum_kernel(const float* x, float* out, int n) {
  __shared__ float tile[kTile];
  const int i = blockIdx.x * kTile + threadIdx.x;
  tile[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();  // the whole tile is loaded before thread 0 adds it up
  if (threadIdx.x == 0) {
    float s = 0;
    for (int t = 0; t < kTile; ++t) s += tile[t];
    out[blockIdx.x] = s;
  }
}

// ---- host ----
bool report(const char* what, bool pass) {
  std::printf("occupancy: %s: %s\n", what, pass ? "PASS" : "FAIL");
  return pass;
}

int active_blocks(const void* kernel, int block_size, size_t dynamic_smem) {
  int blocks = -1;
  checkCudaErrors(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block_size, dynamic_smem));
  return blocks;
}

// The dynamic shared memory a block of tile_sum-like kernels would ask for: a float per thread.
size_t float_per_thread(int block_size) { return size_t(block_size) * sizeof(float); }

int main(int argc, const char** argv) {
  findCudaDevice(argc, argv);
  cudaDeviceProp prop;
  checkCudaErrors(cudaGetDeviceProperties(&prop, 0));
  const void* scale = (const void*)scale_kernel;
  bool ok = true;

  // Every block size: within the device's limits per multiprocessor, and never more blocks for a
  // larger block.
  bool within = true, monotone = true;
  int previous = prop.maxBlocksPerMultiProcessor + 1;
  for (int size = 32; size <= prop.maxThreadsPerBlock; size += 32) {
    const int blocks = active_blocks(scale, size, 0);
    within &= blocks >= 1 && blocks <= prop.maxBlocksPerMultiProcessor && blocks * size <= prop.maxThreadsPerMultiProcessor;
    monotone &= blocks <= previous;
    previous = blocks;
  }
  ok &= report("blocks per multiprocessor within its thread and block limits", within && monotone);

  // Shared memory limits too: two blocks of 100 KB fit in 228 KB, three do not.
  checkCudaErrors(cudaFuncSetAttribute(scale_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024));
  const int none = active_blocks(scale, 128, 0);
  const int big = active_blocks(scale, 128, 100 * 1024);
  std::printf("occupancy: 128 threads: %d blocks, with 100 KB of dynamic shared memory: %d\n", none, big);
  ok &= report("shared memory limits occupancy",
               big >= 1 && big < none &&
                   size_t(big) * (100 * 1024 + prop.reservedSharedMemPerBlock) <= prop.sharedMemPerMultiprocessor);

  // Nothing fits: a block larger than the device allows.
  const int too_big = active_blocks(scale, prop.maxThreadsPerBlock + 32, 0);
  int unset = 7;
  const cudaError_t zero_size = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&unset, scale, 0, 0);
  cudaGetLastError();
  std::printf("occupancy: a block of %d threads: %d blocks; a block of 0 threads: %s\n", prop.maxThreadsPerBlock + 32,
              too_big, cudaGetErrorName(zero_size));
  ok &= report("bad block sizes", too_big == 0 && zero_size == cudaErrorInvalidValue);

  // The suggested block size reaches the best occupancy any block size has, and its minimum grid
  // fills every multiprocessor with it.
  int min_grid = 0, block = 0;
  checkCudaErrors(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, tile_sum_kernel, 0, kTile));
  int best = 0;
  for (int size = 32; size <= kTile; size += 32) best = std::max(best, active_blocks((const void*)tile_sum_kernel, size, 0) * size);
  const int at_block = active_blocks((const void*)tile_sum_kernel, block, 0);
  std::printf("occupancy: tile_sum_kernel, at most %d threads: suggested block %d, minimum grid %d (%d blocks per multiprocessor)\n",
              kTile, block, min_grid, at_block);
  ok &= report("suggested block size", block > 0 && block <= kTile && block % 32 == 0 && at_block * block == best &&
                                           min_grid == at_block * prop.multiProcessorCount);

  int var_grid = 0, var_block = 0;
  checkCudaErrors(cudaOccupancyMaxPotentialBlockSizeVariableSMem(&var_grid, &var_block, scale_kernel, float_per_thread));
  const int var_blocks = active_blocks(scale, var_block, float_per_thread(var_block));
  std::printf("occupancy: scale_kernel with a float of shared memory per thread: block %d, minimum grid %d\n", var_block, var_grid);
  ok &= report("suggested block size, shared memory by block size",
               var_block > 0 && var_block <= prop.maxThreadsPerBlock && var_grid == var_blocks * prop.multiProcessorCount);

  // A launch with the suggestion, then the kernel's attributes (its static shared memory is known
  // on every backend once it has run).
  const int n = 10000;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = float(i % 17);
  float *d_x, *d_out;
  const int tiles = (n + kTile - 1) / kTile;
  checkCudaErrors(cudaMalloc(&d_x, n * sizeof(float)));
  checkCudaErrors(cudaMalloc(&d_out, tiles * sizeof(float)));
  checkCudaErrors(cudaMemcpy(d_x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  scale_kernel<<<(n + block - 1) / block, block>>>(d_x, n, 2.0f);
  getLastCudaError("scale_kernel failed");
  tile_sum_kernel<<<tiles, kTile>>>(d_x, d_out, n);
  getLastCudaError("tile_sum_kernel failed");
  std::vector<float> sums(tiles);
  checkCudaErrors(cudaMemcpy(sums.data(), d_out, tiles * sizeof(float), cudaMemcpyDeviceToHost));
  double got = 0, expected = 0;
  for (float s : sums) got += s;
  for (float v : h) expected += 2 * v;
  checkCudaErrors(cudaFree(d_x));
  checkCudaErrors(cudaFree(d_out));
  ok &= report("a launch with the suggested block size", got == expected);

  cudaFuncAttributes attributes;
  checkCudaErrors(cudaFuncGetAttributes(&attributes, tile_sum_kernel));
  std::printf("occupancy: tile_sum_kernel attributes: %zu bytes of static shared memory, at most %d threads, %d registers\n",
              attributes.sharedSizeBytes, attributes.maxThreadsPerBlock, attributes.numRegs);
  ok &= report("kernel attributes", attributes.sharedSizeBytes == kTile * sizeof(float) &&
                                        attributes.maxThreadsPerBlock >= kTile && attributes.numRegs > 0);

#ifdef __CPUSIM__
  // The emulated device's exact counts: 2048 threads, 32 blocks and 228 KB of shared memory per
  // multiprocessor, 1 KB of it reserved per block; registers never limit (cpusim/README.md).
  const int exact[][3] = {{32, 0, 32}, {96, 0, 21}, {256, 0, 8}, {1024, 0, 2}, {128, 48 * 1024, 4}, {128, 100 * 1024, 2}};
  bool all_exact = true;
  for (const auto& e : exact) {
    const int got_blocks = active_blocks(scale, e[0], size_t(e[1]));
    std::printf("occupancy: cpusim: %d threads, %d bytes of shared memory: %d blocks (expected %d)\n", e[0], e[1], got_blocks, e[2]);
    all_exact &= got_blocks == e[2];
  }
  // A kernel whose launch would fail (100 KB of dynamic shared memory without the attribute) fits 0 times.
  const int refused = active_blocks((const void*)tile_sum_kernel, 128, 100 * 1024);
  std::printf("occupancy: cpusim: tile_sum_kernel with 100 KB of dynamic shared memory, no attribute: %d blocks\n", refused);
  ok &= report("the CPU backend's exact counts", all_exact && refused == 0 && block == kTile && at_block == 8);
#endif
  return ok ? 0 : 1;
}
