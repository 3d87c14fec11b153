#include "harness/output_scan.h"

#include <algorithm>
#include <numeric>

namespace lab {

namespace {

constexpr unsigned kThreads = 256, kMostBlocks = 1024;

// Writes the sum of the block's threads' MINE to BLOCK_COUNTS[blockIdx.x].
__device__ void store_block_sum(unsigned mine, unsigned* block_counts) {
  __shared__ unsigned counts[kThreads];
  counts[threadIdx.x] = mine;
  __syncthreads();
  for (unsigned half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) counts[threadIdx.x] += counts[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) block_counts[blockIdx.x] = counts[0];
}

// Each block's count of the elements of X whose exponent bits are all ones (an infinity or a NaN).
__global__ void count_nonfinite_in_blocks(const float* x, size_t n, unsigned* block_counts) {
  unsigned mine = 0;
  for (size_t i = blockIdx.x * size_t(kThreads) + threadIdx.x; i < n; i += size_t(gridDim.x) * kThreads) {
    mine += (__float_as_uint(x[i]) & 0x7F800000u) == 0x7F800000u;
  }
  store_block_sum(mine, block_counts);
}

// Each block's count of the positions where A and B differ in their bits.
__global__ void count_differences_in_blocks(const float* a, const float* b, size_t n, unsigned* block_counts) {
  unsigned mine = 0;
  for (size_t i = blockIdx.x * size_t(kThreads) + threadIdx.x; i < n; i += size_t(gridDim.x) * kThreads) {
    mine += __float_as_uint(a[i]) != __float_as_uint(b[i]);
  }
  store_block_sum(mine, block_counts);
}

// Blocks enough for COUNT elements, at most kMostBlocks (each then takes a stride of them).
unsigned blocks_for(size_t count) { return unsigned(std::clamp<size_t>((count + kThreads - 1) / kThreads, 1, kMostBlocks)); }

// The sum of the BLOCKS counts at BLOCK_COUNTS, on the device.
int64_t summed(const unsigned* block_counts, unsigned blocks) {
  std::vector<unsigned> counts(blocks);
  CUDA_CHECK(cudaMemcpy(counts.data(), block_counts, blocks * sizeof(unsigned), cudaMemcpyDeviceToHost));
  return std::accumulate(counts.begin(), counts.end(), int64_t(0));
}

__global__ void gather(const float* x, const uint64_t* positions, size_t count, float* values) {
  const size_t i = blockIdx.x * size_t(kThreads) + threadIdx.x;
  if (i < count) values[i] = x[positions[i]];
}

}  // namespace

OutputScan::OutputScan(size_t count) : count_(count), blocks_(blocks_for(count)), block_counts_(blocks_) {}

int64_t OutputScan::nonfinite(const float* output) {
  count_nonfinite_in_blocks<<<blocks_, kThreads>>>(output, count_, block_counts_.get());
  CUDA_CHECK(cudaGetLastError());
  return summed(block_counts_.get(), blocks_);
}

std::vector<float> OutputScan::at(const float* output, const std::vector<size_t>& positions) {
  std::vector<float> values(positions.size());
  if (positions.empty()) return values;
  if (positions_.size() < positions.size()) {
    positions_ = DeviceBuffer<uint64_t>(positions.size());
    values_ = DeviceBuffer<float>(positions.size());
  }
  const std::vector<uint64_t> wide(positions.begin(), positions.end());
  CUDA_CHECK(cudaMemcpy(positions_.get(), wide.data(), wide.size() * sizeof(uint64_t), cudaMemcpyHostToDevice));
  gather<<<unsigned((positions.size() + kThreads - 1) / kThreads), kThreads>>>(output, positions_.get(), positions.size(),
                                                                             values_.get());
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(values.data(), values_.get(), values.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return values;
}

bool equal_on_device(const float* a, const float* b, size_t count) {
  const unsigned blocks = blocks_for(count);
  DeviceBuffer<unsigned> block_counts(blocks);
  count_differences_in_blocks<<<blocks, kThreads>>>(a, b, count, block_counts.get());
  CUDA_CHECK(cudaGetLastError());
  return summed(block_counts.get(), blocks) == 0;
}

}  // namespace lab
