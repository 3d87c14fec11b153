// reject_cublas: cuBLAS is outside what the CPU backend runs; cpucc stops at the #include with
// "cuBLAS needs a GPU". With nvcc (and -lcublas) it builds and prints a dot product.
#include <cstdio>

#include <cublas_v2.h>

int main() {
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 2;
  float h[4] = {1, 2, 3, 4}, result = 0, *d;
  cudaMalloc(&d, sizeof h);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  cublasSdot(handle, 4, d, 1, d, 1, &result);
  printf("reject_cublas: dot=%.0f\n", result);
  cublasDestroy(handle);
  return 0;
}
