// misaligned_float4: a kernel loads float4s from a start one float past a 16-byte boundary (a + 1).
// A GPU faults (cudaErrorMisalignedAddress, from the next synchronizing call); an x86 CPU would load
// the 16 bytes and give the sum, so cpusim checks each access's alignment and faults the same way.
#include "check.cuh"

__global__ void sum4_kernel(const float* a, float* out) {
  const float4 v = reinterpret_cast<const float4*>(a)[threadIdx.x];  // BUG: a may be a + 1
  out[threadIdx.x] = v.x + v.y + v.z + v.w;
}

int main() {
  float *a, *out;
  CUDA_CHECK(cudaMalloc(&a, 68 * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&out, 16 * sizeof(float)));
  CUDA_CHECK(cudaMemset(a, 0, 68 * sizeof(float)));
  sum4_kernel<<<1, 16>>>(a, out);  // cudaMalloc's pointers are aligned: fine
  printf("misaligned_float4: a: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  sum4_kernel<<<1, 16>>>(a + 1, out);
  printf("misaligned_float4: a + 1: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
