// compile_error: a type error after a multi-line launch and __shared__ declarations; the compiler
// must point at line 25, in this file, with cpucc as with nvcc.
#include <cstdio>

template <int N>
__global__ void stage_kernel(float* x) {
  __shared__ float a[N], b[N];
  extern __shared__ float dynamic[];
  a[threadIdx.x] = x[threadIdx.x];
  b[threadIdx.x] = dynamic[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = a[N - 1 - threadIdx.x] + b[threadIdx.x];
}

int main() {
  float* d;
  cudaMalloc(&d, 32 * sizeof(float));
  stage_kernel<32>
      <<<1,
         32,
         32 * sizeof(float)>>>(
          d);
  const char* message = "the next line is wrong";
  printf("%s\n", message);
  int not_a_pointer = message;  // line 25: cannot convert const char* to int
  return not_a_pointer;
}
