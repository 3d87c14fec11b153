// Sample-style profiler range: cudaProfilerStart and cudaProfilerStop around the launch a
// profiler should record (Nsight Systems' --capture-range=cudaProfilerApi). Both must succeed
// whether or not a profiler is attached, and the kernel between them must run as usual.
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#include <cstdio>

#include "sample_helper.h"

// ---- kernel ----
// grid(ceil(n / 256)), block(256): y = a * x + y.
__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// ---- host ----
int main(int argc, const char** argv) {
  findCudaDevice(argc, argv);
  const int n = 5000;
  float hx[n], hy[n];
  for (int i = 0; i < n; ++i) hx[i] = float(i % 13), hy[i] = float(i % 5);
  float *dx, *dy;
  checkCudaErrors(cudaMalloc(&dx, sizeof hx));
  checkCudaErrors(cudaMalloc(&dy, sizeof hy));
  checkCudaErrors(cudaMemcpy(dx, hx, sizeof hx, cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(dy, hy, sizeof hy, cudaMemcpyHostToDevice));
  checkCudaErrors(cudaProfilerStart());
  saxpy_kernel<<<(n + 255) / 256, 256>>>(n, 2.0f, dx, dy);
  getLastCudaError("saxpy_kernel failed");
  checkCudaErrors(cudaDeviceSynchronize());
  checkCudaErrors(cudaProfilerStop());
  float out[n];
  checkCudaErrors(cudaMemcpy(out, dy, sizeof out, cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += out[i] != 2.0f * hx[i] + hy[i];
  checkCudaErrors(cudaFree(dx));
  checkCudaErrors(cudaFree(dy));
  std::printf("profiler: range started and stopped, %d of %d elements wrong: %s\n", wrong, n, wrong == 0 ? "PASS" : "FAIL");
  return wrong == 0 ? 0 : 1;
}
