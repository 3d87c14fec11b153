// kernel_exception (CPU backend only: device code cannot throw under nvcc): a C++ exception that
// escapes a kernel fails the launch with cudaErrorLaunchFailure, and cpusim names the thread.
#include <cstdio>
#include <stdexcept>

float checked_sqrt(float x) {
  if (x < 0) throw std::domain_error("negative input to checked_sqrt");
  return x;
}

__global__ void throwing_kernel(float* x) { x[threadIdx.x] = checked_sqrt(x[threadIdx.x] - 10.0f); }

int main() {
  float h[32];
  for (int i = 0; i < 32; ++i) h[i] = 20.0f - i;  // thread 11 gets a negative input
  float* d;
  cudaMalloc(&d, sizeof h);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  throwing_kernel<<<1, 32>>>(d);
  const cudaError_t err = cudaDeviceSynchronize();
  printf("kernel_exception: %s\n", cudaGetErrorName(err));
  return err == cudaSuccess ? 0 : 1;
}
