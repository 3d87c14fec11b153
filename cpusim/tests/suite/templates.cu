// templates: template kernels launched with explicit and with deduced template arguments, from a
// template host function, a launch spread over several lines, a kernel defined in a header, and
// a kernel reached through a function pointer.
// Expected: "templates: ok ..." on both.
#include <vector>

#include "check.cuh"
#include "templates_kernels.cuh"

template <typename T>
__global__ void fill_kernel(T* x, T value, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = value + T(i);
}

template <typename T, int STEP>
__global__ void add_step_kernel(T* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += T(STEP);
}

__global__ void negate_kernel(int* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = -x[i];
}

template <typename T>
void run_on(T* d, int n) {
  fill_kernel<<<(n + 127) / 128, 128>>>(d, T(10), n);  // T deduced from the arguments
  CUDA_CHECK(cudaGetLastError());
  add_step_kernel<T, 5>
      <<<(n + 127) / 128,
         128>>>(d,
                n);
  CUDA_CHECK(cudaGetLastError());
  header_scale_kernel<128, T><<<(n + 127) / 128, 128>>>(d, T(2), n);
  CUDA_CHECK(cudaGetLastError());
}

int main() {
  const int n = 300;
  float* df;
  int* di;
  CUDA_CHECK(cudaMalloc(&df, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&di, n * sizeof(int)));
  run_on(df, n);
  run_on(di, n);
  void (*kernel)(int*, int) = negate_kernel;
  kernel<<<(n + 127) / 128, 128>>>(di, n);
  CUDA_CHECK(cudaGetLastError());
  std::vector<float> hf(n);
  std::vector<int> hi(n);
  CUDA_CHECK(cudaMemcpy(hf.data(), df, n * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(hi.data(), di, n * sizeof(int), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    wrong += hf[i] != (10.0f + i + 5) * 2 + 128;
    wrong += hi[i] != -((10 + i + 5) * 2 + 128);
  }
  if (wrong) {
    printf("templates: FAIL %d wrong\n", wrong);
    return 1;
  }
  printf("templates: ok float x[7]=%.0f int x[7]=%d\n", hf[7], hi[7]);
  return 0;
}
