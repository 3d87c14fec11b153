// reject_dynamic_parallelism: a kernel that launches a kernel (needs nvcc -rdc=true); cpucc
// reports the launch line as an error.
#include <cstdio>

__global__ void child_kernel(int* x) { x[threadIdx.x] += 1; }

__global__ void parent_kernel(int* x) {
  if (threadIdx.x == 0) child_kernel<<<1, 32>>>(x);
}

int main() {
  int* d;
  int h[32] = {};
  cudaMalloc(&d, sizeof h);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  parent_kernel<<<1, 32>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("reject_dynamic_parallelism: x[5]=%d\n", h[5]);
  return 0;
}
