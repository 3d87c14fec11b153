// reject_no_sanitize: a kernel that exempts itself from GCC's sanitizers would hide, on the CPU
// backend, the misaligned float4 load that faults on a GPU; cpucc reports the attribute as an error.
#include <cstdio>

__global__ __attribute__((no_sanitize("alignment"))) void sum4_kernel(const float* a, float* out) {
  const float4 v = reinterpret_cast<const float4*>(a)[threadIdx.x];
  out[threadIdx.x] = v.x + v.y + v.z + v.w;
}

int main() {
  float *a, *out;
  cudaMalloc(&a, 68 * sizeof(float));
  cudaMalloc(&out, 16 * sizeof(float));
  sum4_kernel<<<1, 16>>>(a + 1, out);
  printf("reject_no_sanitize: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
