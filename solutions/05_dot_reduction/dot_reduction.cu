// Lab 05: dot product, a reduction in one pass.
//
// dot_reduction(a, b, result, n) sets *result = Σ a[i]·b[i] over i < n, for any n from 0 (an
// empty sum: 0) to 2^31 - 1. a and b are n floats in device memory, aligned only as a float
// must be: a + 1 of an array is a valid argument. result points to one float in device
// memory. The call enqueues its work on the default stream and returns: no synchronization, no
// allocation, nothing copied to the host (harness/launchers.h).
//
// A dot product does one multiply-add per 8 bytes it reads, so memory alone sets its speed:
// the goal is to read a and b once, as fast as the GPU copies memory.
//
// Given: the block size (kThreads, kWarps), the kernel's signature and each thread's place in
// the grid (lane, warp, first, stride), a shared array of kWarps floats (warp_sums), and
// max_blocks(), the number of blocks the GPU holds at once.
//
// Yours: four tasks, numbered in the order to do them: each thread's share of the sum (1), the
// sum over a warp (2, warp_sum, above the kernel), the combination of a block's sums into
// *result (3), and the launcher (4).
//
// The file uses the CUDA runtime and its intrinsics only: no CUB, no cuBLAS.
//
// Run and check:  make run LAB=05        Grade:  make grade LAB=05
// The lab's README (labs/05_dot_reduction/README.md) explains the background and the tasks.

#include <algorithm>
#include <cstdint>

#include "common/ceil_div.h"
#include "common/cuda_check.h"
#include "harness/launchers.h"

// ---- constants ----

constexpr int kThreads = 256;               // threads per block
constexpr int kWarps = kThreads / 32;       // warps per block
constexpr unsigned kFullMask = 0xffffffffu; // every lane of a warp takes part
static_assert(kThreads % 32 == 0 && kWarps <= 32, "whole warps, and one warp sums the warp sums");

// ---- kernel ----

// The sum of v over the 32 lanes of a warp, in lane 0: register to register, the warp's
// lanes exchanging values among themselves.
__device__ __forceinline__ float warp_sum(float v) {
  // @task 2: sum a value over the warp with shuffles
  // Contract: all 32 lanes of a warp call it, each with its own v; lane 0 returns the sum of
  // the 32 values (what the other lanes return is never used).
  // Budget: registers only: __shfl_down_sync with kFullMask, no shared memory, no barrier;
  // 2 lines.
  // Your decision: which lane's value each step adds, and so how many steps it takes.
  // @solution
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(kFullMask, v, offset);
  return v;
  // @stub
  // return v;
  // @end
}

// grid (at most max_blocks()), block (kThreads = 256); *result is 0 before the launch.
// The grid's `stride` threads walk a and b together, thread `first` from position `first`,
// each step `stride` further: any grid covers any n, so the grid is sized to the GPU, not to
// n. VEC: a and b are 16-byte aligned, so they may be read as float4. Each block adds its
// threads' total to *result. Memory bandwidth is the only limit: every element is read once,
// and the work after the walk is paid once per thread, not once per element.
template <bool VEC>
__global__ void __launch_bounds__(kThreads)
    dot_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ result, int n) {
  __shared__ float warp_sums[kWarps];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  // 64-bit: near n = 2^31 an int index would overflow when the stride is added.
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  const int64_t first = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;

  // @task 1: this thread's share of the sum
  // Contract: `float sum` ends with this thread's share of Σ a[i]·b[i] (fmaf); over the whole
  // grid every i < n is counted exactly once, for any gridDim.x and any n up to 2^31 - 1
  // (first and stride are 64-bit: keep every index so).
  // Goal: coalesced loads (a warp reads consecutive addresses), and when VEC, 16-byte float4
  // loads for all but the last n % 4 elements: a quarter of the load instructions.
  // Budget: each element of a and b loaded once from global memory; no shared memory, no
  // barrier; roughly 15 lines (2 without VEC).
  // Your decision: which thread reads which group of four, and who reads the n % 4 left over.
  // Assessed: correct for every n (1, 31, 1025, 2^20 + 3, ...), also one float past alignment.
  // @solution
  float sum = 0.0f;
  int64_t done = 0;  // elements covered by float4 loads
  if constexpr (VEC) {
    const float4* a4 = reinterpret_cast<const float4*>(a);
    const float4* b4 = reinterpret_cast<const float4*>(b);
    const int64_t n4 = n / 4;
    for (int64_t i = first; i < n4; i += stride) {
      const float4 x = a4[i], y = b4[i];
      sum = fmaf(x.x, y.x, sum);
      sum = fmaf(x.y, y.y, sum);
      sum = fmaf(x.z, y.z, sum);
      sum = fmaf(x.w, y.w, sum);
    }
    done = n4 * 4;
  }
  for (int64_t i = done + first; i < n; i += stride) sum = fmaf(a[i], b[i], sum);
  // @stub
  // float sum = 0.0f;
  // @end

  // @task 3: combine the block's sums and add the total to *result
  // Contract: when the block ends, *result has grown by the sum of its 256 threads' sums,
  // exactly once, while other blocks add theirs at the same time, in any order.
  // Budget: warp_sum, warp_sums (kWarps floats of shared memory), one __syncthreads reached by
  // every thread of the block, one atomicAdd per block; roughly 7 lines.
  // Your decision: which threads write warp_sums, and which read it after the barrier.
  // Assessed: correct for every n (one block or thousands); races between blocks and a
  // missing barrier are caught.
  // @solution
  sum = warp_sum(sum);
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    sum = warp_sum(lane < kWarps ? warp_sums[lane] : 0.0f);
    if (lane == 0) atomicAdd(result, sum);
  }
  // @end
}

// ---- launcher ----

// As many blocks as the GPU holds at once (an H100: 132 multiprocessors × 2048 / 256 threads),
// asked of the device once: more would only queue behind these.
static int max_blocks() {
  static const int blocks = [] {
    int device = 0, sms = 0, threads_per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
    return sms * std::max(1, threads_per_sm / kThreads);
  }();
  return blocks;
}

void dot_reduction(const float* a, const float* b, float* result, int n) {
  // @task 4: zero *result, then launch
  // Contract (harness/launchers.h): work enqueued on the default stream, no synchronization;
  // n = 0 leaves *result = 0 and launches nothing; a and b need not be 16-byte aligned.
  // Goal: enough blocks to keep every multiprocessor reading, and no more than max_blocks();
  // the float4 kernel wherever it is legal.
  // Budget: one cudaMemsetAsync (in CUDA_CHECK) and one launch, checked with CHECK_LAUNCH();
  // roughly 10 lines.
  // Your decision: how many blocks a given n needs.
  // Assessed: n = 0 and an array one float past alignment (make grade); one pass, no copy
  // to the host (technique); the speed, on a GPU.
  // @solution
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float)));
  if (n == 0) return;
  const int blocks = std::min(ceil_div(n, 4 * kThreads), max_blocks());
  const bool aligned = (reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b)) % 16 == 0;
  if (aligned) {
    dot_kernel<true><<<blocks, kThreads>>>(a, b, result, n);
  } else {
    dot_kernel<false><<<blocks, kThreads>>>(a, b, result, n);
  }
  CHECK_LAUNCH();
  // @end
}
