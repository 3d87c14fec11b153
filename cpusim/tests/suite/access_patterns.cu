// access_patterns: one warp, one access each, in the patterns whose L1 traffic is known by hand.
// Built with cpucc --count-accesses, the launch log gives each kernel's requests, sectors and
// bytes (cpusim/tests/test_cpusim.cpp pins them); on a GPU, ncu's l1tex__t_{requests,sectors} and
// sm__sass_data_bytes for global loads agree.
// Expected: "access_patterns: ok" on the CPU backend and on a GPU.
#include "check.cuh"

// Lane i reads element i: one request, 128 bytes in 4 sectors.
__global__ void stride1_kernel(const float* in, float* out) { out[threadIdx.x] = in[threadIdx.x]; }

// Lane i reads element 32·i: one request, 32 sectors for 128 bytes (one float per sector).
__global__ void stride32_kernel(const float* in, float* out) { out[threadIdx.x] = in[32 * threadIdx.x]; }

// Every lane reads element 0: one request, 1 sector, 4 bytes.
__global__ void broadcast_kernel(const float* in, float* out) { out[threadIdx.x] = in[0]; }

// Lane i reads float4 number i: one request, 512 bytes in 16 sectors.
__global__ void float4_kernel(const float4* in, float4* out) { out[threadIdx.x] = in[threadIdx.x]; }

// Lanes 0..15 only, each adding to one address: 16 atomics in one request.
__global__ void atomic_kernel(const float* in, float* out) {
  if (threadIdx.x < 16) atomicAdd(out, in[threadIdx.x]);
}

int main() {
  float *in, *out;
  CUDA_CHECK(cudaMalloc(&in, 32 * 32 * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&out, 32 * 4 * sizeof(float)));
  CUDA_CHECK(cudaMemset(in, 0, 32 * 32 * sizeof(float)));
  CUDA_CHECK(cudaMemset(out, 0, 32 * 4 * sizeof(float)));
  stride1_kernel<<<1, 32>>>(in, out);
  stride32_kernel<<<1, 32>>>(in, out);
  broadcast_kernel<<<1, 32>>>(in, out);
  float4_kernel<<<1, 32>>>(reinterpret_cast<const float4*>(in), reinterpret_cast<float4*>(out));
  atomic_kernel<<<1, 32>>>(in, out);
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaFree(in));
  CUDA_CHECK(cudaFree(out));
  printf("access_patterns: ok\n");
  return 0;
}
