// spin_wait: thread 0 spins until thread 32 (another warp) sets a flag in shared memory. A GPU
// schedules warps independently, so this finishes there. cpusim runs a thread until it reaches a
// barrier or a warp operation, so the spinning thread never lets thread 32 run: its watchdog
// (CPUSIM_TIMEOUT_S) ends the process with a message instead of hanging.
#include "check.cuh"

__global__ void spin_wait_kernel(int* out) {
  __shared__ volatile int flag;
  if (threadIdx.x == 0) flag = 0;
  __syncthreads();
  if (threadIdx.x == 32) flag = 1;
  if (threadIdx.x == 0) {
    while (flag == 0) {
    }
    *out = 1;
  }
}

int main() {
  int *d, result = 0;
  CUDA_CHECK(cudaMalloc(&d, sizeof(int)));
  spin_wait_kernel<<<1, 64>>>(d);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(&result, d, sizeof(int), cudaMemcpyDeviceToHost));
  printf("spin_wait: finished, result %d\n", result);
  return 0;
}
