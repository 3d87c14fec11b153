// Sample-style error checks: checkCudaErrors around every call and getLastCudaError after a
// launch, from sample_helper.h, which defines them only where the runtime's include guards are
// set. With --fail, a call that fails on any GPU (a copy that runs past the end of its device
// buffer) must end the program with exit 1 and a line naming the call, its file and line, and
// the error.
#include <cuda_runtime.h>
#include <builtin_types.h>
#include <driver_types.h>
#include <vector_functions.h>

#include <cstdio>
#include <cstring>

#include "sample_helper.h"

__global__ void fill_kernel(float2* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = make_float2(float(i), float(-i));
}

int main(int argc, const char** argv) {
  findCudaDevice(argc, argv);
  const int n = 1000;
  float2* d_out = nullptr;
  checkCudaErrors(cudaMalloc(&d_out, n * sizeof(float2)));
  fill_kernel<<<(n + 255) / 256, 256>>>(d_out, n);
  getLastCudaError("fill_kernel failed");
  checkCudaErrors(cudaDeviceSynchronize());
  float2 h[n + 1];  // one more than the device buffer holds, for the copy that runs past it
  checkCudaErrors(cudaMemcpy(h, d_out, n * sizeof(float2), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += h[i].x != float(i) || h[i].y != float(-i);
  // A failure that is returned, not fatal: the error's name is CUDA's.
  const cudaError_t bad = cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost);
  const bool named = std::strcmp(cudaGetErrorName(bad), "cudaErrorInvalidValue") == 0;
  cudaGetLastError();
  if (argc > 1 && std::strcmp(argv[1], "--fail") == 0) {
    checkCudaErrors(cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost));  // exits here
    std::printf("error_checks: FAIL, checkCudaErrors returned after a failed call\n");
    return 1;
  }
  checkCudaErrors(cudaFree(d_out));
  std::printf("error_checks: %s, %d of %d elements wrong, returned error %s\n", wrong == 0 && named ? "PASS" : "FAIL",
              wrong, n, cudaGetErrorName(bad));
  return wrong == 0 && named ? 0 : 1;
}
