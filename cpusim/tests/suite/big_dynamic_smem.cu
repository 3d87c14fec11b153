// big_dynamic_smem: 64 KB of dynamic shared memory is above the default 48 KB limit, so the launch
// fails until cudaFuncSetAttribute raises the kernel's limit; then it runs.
// Expected: the same lines on the CPU backend and on an H100.
#include "check.cuh"

__global__ void big_smem_kernel(int* out) {
  extern __shared__ int buffer[];
  buffer[threadIdx.x] = threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) *out = buffer[blockDim.x - 1];
}

int main() {
  const int bytes = 64 * 1024;
  int *d, result = -1;
  CUDA_CHECK(cudaMalloc(&d, sizeof(int)));
  big_smem_kernel<<<1, 128, bytes>>>(d);
  printf("big_dynamic_smem: without the attribute: %s\n", cudaGetErrorName(cudaGetLastError()));
  CUDA_CHECK(cudaFuncSetAttribute(big_smem_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  big_smem_kernel<<<1, 128, bytes>>>(d);
  printf("big_dynamic_smem: with the attribute: %s\n", cudaGetErrorName(cudaGetLastError()));
  CUDA_CHECK(cudaMemcpy(&result, d, sizeof(int), cudaMemcpyDeviceToHost));
  printf("big_dynamic_smem: result %d\n", result);
  return result == 127 ? 0 : 1;
}
