// static_smem_too_big: 64 KB of static __shared__ arrays, above the 48 KB a kernel may declare.
// nvcc rejects this kernel at compile time ("uses too much shared data"); cpusim fails its launch
// with cudaErrorLaunchOutOfResources and says so. Like any launch error, it does not stick.
#include "../check.cuh"

__global__ void static_smem_kernel(float* out) {
  __shared__ float a[8192];  // 32 KB
  __shared__ float b[8192];  // 32 KB more: 64 KB in all
  a[threadIdx.x] = threadIdx.x;
  b[threadIdx.x] = 2.0f * threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = a[threadIdx.x] + b[threadIdx.x];
}

int main() {
  float* d;
  CUDA_CHECK(cudaMalloc(&d, 128 * sizeof(float)));
  static_smem_kernel<<<1, 128>>>(d);
  const cudaError_t launch = cudaGetLastError();
  const cudaError_t after = cudaDeviceSynchronize();
  printf("static_smem_too_big: launch %s, then cudaDeviceSynchronize %s\n", cudaGetErrorName(launch),
         cudaGetErrorName(after));
  return launch == cudaSuccess ? 0 : 1;
}
