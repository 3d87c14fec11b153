// oob_global: the bounds guard is off by one (<= instead of <), so the last thread writes one
// element past the end of a cudaMalloc'd buffer. Build with cpucc -fsanitize=address: ASan
// reports a heap-buffer-overflow at the line of the write. On a GPU: compute-sanitizer
// --tool memcheck reports an invalid __global__ write.
#include "check.cuh"

// grid(ceil(n/256)), block(256).
__global__ void oob_global_kernel(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) x[i] = 1.0f;  // BUG: i == n is one past the end
}

int main() {
  const int n = 1000;
  float* d;
  CUDA_CHECK(cudaMalloc(&d, n * sizeof(float)));
  oob_global_kernel<<<(n + 255) / 256, 256>>>(d, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  printf("oob_global: finished without an error\n");
  return 0;
}
