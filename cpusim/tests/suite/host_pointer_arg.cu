// host_pointer_arg: a host array is passed to a kernel instead of its device copy. On a GPU the
// kernel faults and cudaDeviceSynchronize returns cudaErrorIllegalAddress (with HMM it may run);
// cpusim does not run the kernel, says which argument, and the same call returns the same error.
#include <vector>

#include "check.cuh"

__global__ void scale_kernel(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}

int main() {
  const int n = 256;
  std::vector<float> h(n, 1.0f);
  float* d;
  CUDA_CHECK(cudaMalloc(&d, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  scale_kernel<<<1, n>>>(h.data(), n);  // BUG: should be d
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  printf("host_pointer_arg: finished without an error\n");
  return 0;
}
