// warp_reduce: a sum with warp shuffles inside each warp, shared memory across the warps of a
// block, and one atomicAdd per block. Integer values keep the float sums exact.
// Expected: "warp_reduce: ok n=100000 sum=..." on both.
#include <vector>

#include "check.cuh"

constexpr int BLOCK = 256;
constexpr int WARPS = BLOCK / 32;

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// grid(ceil(n/BLOCK)), block(BLOCK): each thread loads one element (0 past the end), so every
// lane stays alive for the shuffles; lane 0 of warp 0 adds the block's sum to *total.
__global__ void warp_reduce_kernel(const float* __restrict__ x, int n, float* total) {
  __shared__ float partial[WARPS];
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  float v = warp_sum(i < n ? x[i] : 0.0f);
  if (lane == 0) partial[warp] = v;
  __syncthreads();  // every warp's partial sum is in shared memory
  if (warp == 0) {
    v = warp_sum(lane < WARPS ? partial[lane] : 0.0f);
    if (lane == 0) atomicAdd(total, v);
  }
}

int main() {
  const int n = 100000;
  std::vector<float> x(n);
  lcg rng(3);
  double expected = 0;
  for (float& v : x) expected += v = rng.next(-100, 100);
  float *dx, *dtotal, total = 0;
  CUDA_CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dtotal, sizeof(float)));
  CUDA_CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dtotal, 0, sizeof(float)));
  warp_reduce_kernel<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(dx, n, dtotal);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(&total, dtotal, sizeof(float), cudaMemcpyDeviceToHost));
  if (total != expected) {
    printf("warp_reduce: FAIL sum=%.0f expected %.0f\n", total, expected);
    return 1;
  }
  printf("warp_reduce: ok n=%d sum=%.0f\n", n, total);
  return 0;
}
