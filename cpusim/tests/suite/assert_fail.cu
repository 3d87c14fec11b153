// assert_fail: a device-side assert fails in one thread. The GPU prints the assertion with its
// block and thread, and the launch fails with cudaErrorAssert, which sticks: every later call
// returns it too. cpusim does the same.
#include <cassert>

#include "check.cuh"

// One block of 64 threads; x[i] = i, and the assert expects every value below 40.
__global__ void assert_kernel(const int* x) {
  const int v = x[threadIdx.x];
  assert(v < 40);
}

int main() {
  int h[64];
  for (int i = 0; i < 64; ++i) h[i] = i < 50 ? i % 40 : 40 + i;  // threads 50.. hold values >= 40
  for (int i = 51; i < 64; ++i) h[i] = 0;                          // only thread 50 fails
  int* d;
  CUDA_CHECK(cudaMalloc(&d, sizeof h));
  CUDA_CHECK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
  assert_kernel<<<1, 64>>>(d);
  const cudaError_t sync = cudaDeviceSynchronize();
  int* more = nullptr;
  const cudaError_t later = cudaMalloc(&more, sizeof(int));
  const cudaError_t last = cudaGetLastError();
  const cudaError_t again = cudaGetLastError();
  printf("assert_fail: cudaDeviceSynchronize %s, then cudaMalloc %s, cudaGetLastError %s and %s\n",
         cudaGetErrorName(sync), cudaGetErrorName(later), cudaGetErrorName(last), cudaGetErrorName(again));
  return sync == cudaSuccess ? 0 : 1;
}
