// host_main: host code in a .cpp file (see host_kernels.cu).
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>

#include "host_launcher.h"

int main() {
  const int n = 777;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = float(i % 13), y[i] = float(i % 7);
  float *dx, *dy;
  if (cudaMalloc(&dx, n * sizeof(float)) != cudaSuccess || cudaMalloc(&dy, n * sizeof(float)) != cudaSuccess) return 2;
  cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  const cudaError_t err = saxpy(3.0f, dx, dy, n);
  cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += y[i] != 3.0f * float(i % 13) + float(i % 7);
  printf("host_main: %s saxpy %d elements, launch %s\n", wrong ? "FAIL" : "ok", n, cudaGetErrorName(err));
  return wrong ? 1 : 0;
}
