// crash_null: a kernel writes through a null pointer (undefined behaviour: nvcc 13 stores through x
// instead, so an H100 run finishes without an error); on the CPU the process gets SIGSEGV, and
// cpusim first names the kernel, block and thread (rebuild with -fsanitize=address for the line).
#include "check.cuh"

__global__ void crash_kernel(float* x, int victim) {
  float* p = threadIdx.x == victim ? nullptr : x;  // BUG: one thread loses its pointer
  p[threadIdx.x] = 1.0f;
}

int main() {
  float* d;
  CUDA_CHECK(cudaMalloc(&d, 64 * sizeof(float)));
  crash_kernel<<<1, 64>>>(d, 5);
  CUDA_CHECK(cudaDeviceSynchronize());
  printf("crash_null: finished without an error\n");
  return 0;
}
