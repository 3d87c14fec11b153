// uninitialized: a kernel sums memory that nobody wrote: part of a cudaMalloc'd buffer and a
// __shared__ array. cpusim fills both with a NaN, so the sums are NaN and the mistake shows;
// on a GPU the contents are whatever was there (often zeros), so the result may look plausible.
#include <cmath>

#include "check.cuh"

// One block of 64 threads: x has 128 elements of which the host wrote the first 64.
__global__ void uninitialized_kernel(const float* x, float* sums) {
  __shared__ float s[128];
  s[threadIdx.x] = x[threadIdx.x];  // only the first half of s is written
  __syncthreads();
  if (threadIdx.x == 0) {
    float global_sum = 0, shared_sum = 0;
    for (int i = 0; i < 128; ++i) global_sum += x[i], shared_sum += s[i];
    sums[0] = global_sum;
    sums[1] = shared_sum;
  }
}

int main() {
  float h[64], sums[2];
  for (float& v : h) v = 1.0f;
  float *d_x, *d_sums;
  CUDA_CHECK(cudaMalloc(&d_x, 128 * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_sums, 2 * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_x, h, sizeof h, cudaMemcpyHostToDevice));
  uninitialized_kernel<<<1, 64>>>(d_x, d_sums);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(sums, d_sums, sizeof sums, cudaMemcpyDeviceToHost));
  printf("uninitialized: global sum is %s, shared sum is %s\n", std::isnan(sums[0]) ? "NaN" : "a number",
         std::isnan(sums[1]) ? "NaN" : "a number");
  return 0;
}
