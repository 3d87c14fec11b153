// A program that also uses headers only the CUDA Toolkit has (cuComplex.h, math_constants.h,
// library_types.h), so it builds where the toolkit's include folder is on the path: there
// cpusim's headers must win, and the toolkit's runtime headers that these include by quotes
// (cuComplex.h's "vector_types.h") must find their guards set and add nothing, or float2 would
// be defined twice.
#include <cuComplex.h>
#include <cuda_runtime.h>
#include <library_types.h>
#include <math_constants.h>

#include <cstdio>

#include "../sample_helper.h"

// ---- kernel ----
// grid(1), block(n): z[i] = (i + i i) * (1 - i i), then its magnitude.
__global__ void complex_kernel(float* out, int n) {
  const int i = threadIdx.x;
  if (i >= n) return;
  const cuFloatComplex z = cuCmulf(make_cuFloatComplex(float(i), float(i)), make_cuFloatComplex(1.0f, -1.0f));
  out[i] = cuCabsf(z) + 0.0f * CUDART_PI_F;
}

// ---- host ----
int main(int argc, const char** argv) {
  findCudaDevice(argc, argv);
  const int n = 32;
  float* d;
  checkCudaErrors(cudaMalloc(&d, n * sizeof(float)));
  complex_kernel<<<1, n>>>(d, n);
  getLastCudaError("complex_kernel failed");
  float h[n];
  checkCudaErrors(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaFree(d));
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += h[i] != 2.0f * float(i);  // |(i + i i)(1 - i i)| = 2i, exact
  const cudaDataType type = CUDA_R_32F;
  std::printf("toolkit_headers: %d of %d magnitudes wrong, CUDA_R_32F = %d: %s\n", wrong, n, int(type),
              wrong == 0 ? "PASS" : "FAIL");
  return wrong == 0 ? 0 : 1;
}
