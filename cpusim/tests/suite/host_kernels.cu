// host_kernels + host_main.cpp: a kernel and its launcher in a .cu file, called from a host .cpp
// file that only includes <cuda_runtime.h>; built as two objects and linked.
// Expected: "host_main: ok saxpy ..." on both.
#include "host_launcher.h"

// grid(ceil(n/256)), block(256): y[i] = a * x[i] + y[i].
__global__ void saxpy_kernel(float a, const float* __restrict__ x, float* __restrict__ y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

cudaError_t saxpy(float a, const float* x, float* y, int n) {
  saxpy_kernel<<<(n + 255) / 256, 256>>>(a, x, y, n);
  return cudaGetLastError();
}
