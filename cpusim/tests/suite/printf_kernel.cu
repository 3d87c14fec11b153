// printf_kernel: printf from device code. Four lanes of one warp print, which a GPU shows in lane
// order, as cpusim does.
// Expected: the same lines on the CPU backend and on a GPU.
#include "check.cuh"

__global__ void printf_kernel(int base) {
  if (threadIdx.x < 4) printf("printf_kernel: thread %d of block %d says %d\n", (int)threadIdx.x, (int)blockIdx.x, base + (int)threadIdx.x);
}

int main() {
  printf_kernel<<<1, 32>>>(40);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  printf("printf_kernel: done\n");
  return 0;
}
