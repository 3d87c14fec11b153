// The steps from the seed text's dot product to lab 05's solution, for the measurements in
// labs/05_dot_reduction/README.md. One program, the step chosen at run time:
//     DOT_VARIANT=seed make run LAB=05 SRC=solutions/variants/reduction_ladder
// with DOT_VARIANT one of
//   seed        the seed's launch, 32 blocks of 512 threads: a grid-stride loop of scalar
//               loads, a shared-memory tree with sequential addressing, then one atomicAdd
//               per block (the seed added the block sums on the host)
//   modulo      one element per thread (n / 256 blocks), a shared-memory tree with
//               interleaved addressing, `if (tid % (2 * s) == 0)`; each block writes its sum
//               to a buffer that a second, one-block launch adds up
//   sequential  the same with sequential addressing, `if (tid < s)`
//   shuffle     the same with warp shuffles instead of a shared-memory tree
//   atomics     one element per thread, warp shuffles, an atomicAdd per block (n / 256 of
//               them, all on one address)
//   gridstride  8 blocks of 256 threads per multiprocessor, a grid-stride loop of scalar
//               loads, warp shuffles, an atomicAdd per block
// Lab 05's solution is `gridstride` with float4 loads.

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "common/ceil_div.h"
#include "common/cuda_check.h"
#include "harness/launchers.h"

enum class Tree { kModulo, kSequential, kShuffle };

// One float per block of the one-element-per-thread steps (n < 2^31, 256 per block).
constexpr int kMaxPartials = (1 << 23) + 1;
__device__ float partials[kMaxPartials];

// The sum of `sum` over the block's THREADS threads, valid in thread 0.
template <int THREADS, Tree TREE>
__device__ float block_sum(float sum) {
  __shared__ float s_data[THREADS];
  const int tid = threadIdx.x;
  if (TREE == Tree::kShuffle) {
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (tid % 32 == 0) s_data[tid / 32] = sum;
    __syncthreads();
    sum = tid < THREADS / 32 ? s_data[tid] : 0.0f;
    if (tid < 32) {
      for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    }
    return sum;
  }
  s_data[tid] = sum;
  __syncthreads();
  if (TREE == Tree::kModulo) {
    // Active threads 0, 2, 4, ... then 0, 4, 8, ...: every warp keeps a few active lanes,
    // so all warps stay busy while doing less and less useful work.
    for (int s = 1; s < THREADS; s *= 2) {
      if (tid % (2 * s) == 0) s_data[tid] += s_data[tid + s];
      __syncthreads();
    }
  } else {
    // Active threads 0 .. s-1: whole warps drop out as s shrinks.
    for (int s = THREADS / 2; s > 0; s /= 2) {
      if (tid < s) s_data[tid] += s_data[tid + s];
      __syncthreads();
    }
  }
  return s_data[0];
}

// grid (any), block (THREADS): thread t adds a[i]·b[i] for i = t, t + gridDim.x·THREADS, ...;
// the block's sum goes to *result (ATOMIC) or to partials[blockIdx.x].
template <int THREADS, Tree TREE, bool ATOMIC>
__global__ void dot_ladder_kernel(const float* __restrict__ a, const float* __restrict__ b, float* result, int n) {
  float sum = 0.0f;
  for (int64_t i = int64_t(blockIdx.x) * THREADS + threadIdx.x; i < n; i += int64_t(gridDim.x) * THREADS) {
    sum = fmaf(a[i], b[i], sum);
  }
  sum = block_sum<THREADS, TREE>(sum);
  if (threadIdx.x != 0) return;
  if (ATOMIC) {
    atomicAdd(result, sum);
  } else {
    partials[blockIdx.x] = sum;
  }
}

// grid (1), block (THREADS): *result = the sum of partials[0 .. count).
template <int THREADS, Tree TREE>
__global__ void sum_partials_kernel(float* result, int count) {
  float sum = 0.0f;
  for (int i = threadIdx.x; i < count; i += THREADS) sum += partials[i];
  sum = block_sum<THREADS, TREE>(sum);
  if (threadIdx.x == 0) *result = sum;
}

template <Tree TREE>
void two_pass(const float* a, const float* b, float* result, int n) {
  const int blocks = ceil_div(n, 256);
  dot_ladder_kernel<256, TREE, false><<<blocks, 256>>>(a, b, result, n);
  CHECK_LAUNCH();
  sum_partials_kernel<1024, TREE><<<1, 1024>>>(result, blocks);
  CHECK_LAUNCH();
}

void dot_reduction(const float* a, const float* b, float* result, int n) {
  if (n == 0) {  // the empty sum
    CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float)));
    return;
  }
  static const char* variant = std::getenv("DOT_VARIANT") != nullptr ? std::getenv("DOT_VARIANT") : "gridstride";
  auto is = [](const char* name) { return std::strcmp(variant, name) == 0; };
  if (is("modulo")) return two_pass<Tree::kModulo>(a, b, result, n);
  if (is("sequential")) return two_pass<Tree::kSequential>(a, b, result, n);
  if (is("shuffle")) return two_pass<Tree::kShuffle>(a, b, result, n);
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float)));
  if (is("seed")) {
    dot_ladder_kernel<512, Tree::kSequential, true><<<32, 512>>>(a, b, result, n);
  } else if (is("atomics")) {
    dot_ladder_kernel<256, Tree::kShuffle, true><<<ceil_div(n, 256), 256>>>(a, b, result, n);
  } else {
    static const int sms = [] {
      int device = 0;
      cudaDeviceProp prop;
      CUDA_CHECK(cudaGetDevice(&device));
      CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
      return prop.multiProcessorCount;
    }();
    dot_ladder_kernel<256, Tree::kShuffle, true><<<std::min(8 * sms, ceil_div(n, 256)), 256>>>(a, b, result, n);
  }
  CHECK_LAUNCH();
}
