// divergent_barrier: the two halves of a block wait at two different __syncthreads(). On a GPU
// that is undefined (compute-sanitizer --tool synccheck reports it); cpusim reports both lines.
#include "check.cuh"

// One block of 64 threads.
__global__ void divergent_barrier_kernel(float* x) {
  __shared__ float s[64];
  s[threadIdx.x] = threadIdx.x;
  if (threadIdx.x < 32) {
    __syncthreads();  // the lower half waits here
    x[threadIdx.x] = s[63 - threadIdx.x];
  } else {
    __syncthreads();  // the upper half waits here
    x[threadIdx.x] = -s[63 - threadIdx.x];
  }
}

int main() {
  float* d;
  CUDA_CHECK(cudaMalloc(&d, 64 * sizeof(float)));
  divergent_barrier_kernel<<<1, 64>>>(d);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  printf("divergent_barrier: finished without an error\n");
  return 0;
}
