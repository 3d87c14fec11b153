// access_patterns: one warp (or a warp and a half), one access each, in the patterns whose cost
// is known by hand. Built with cpucc --count-accesses, the launch log gives each kernel's global
// requests, sectors and bytes, and its shared-memory requests and wavefronts
// (cpusim/tests/test_cpusim.cpp pins them; cpusim/memory-model.md derives them). On a GPU, ncu's
// l1tex__t_{requests,sectors}, sm__sass_data_bytes, and l1tex__data_pipe_lsu_wavefronts for
// shared loads agree (scripts/validate-profile measures them).
// Expected: "access_patterns: ok" on the CPU backend and on a GPU.
#include "check.cuh"

// Lane i reads element i: one request, 128 bytes in 4 sectors, one 128-byte line.
__global__ void stride1_kernel(const float* in, float* out) { out[threadIdx.x] = in[threadIdx.x]; }

// Lane i reads element 32·i: one request, 32 sectors (and lines) for 128 bytes (one float per sector).
__global__ void stride32_kernel(const float* in, float* out) { out[threadIdx.x] = in[32 * threadIdx.x]; }

// Every lane reads element 0: one request, 1 sector, 4 bytes.
__global__ void broadcast_kernel(const float* in, float* out) { out[threadIdx.x] = in[0]; }

// Lane i reads float4 number i: one request, 512 bytes in 16 sectors, 4 lines.
__global__ void float4_kernel(const float4* in, float4* out) { out[threadIdx.x] = in[threadIdx.x]; }

// Lanes 0..15 only, each adding to one address: 16 atomics in one request.
__global__ void atomic_kernel(const float* in, float* out) {
  if (threadIdx.x < 16) atomicAdd(out, in[threadIdx.x]);
}

// 48 threads: a full warp and a partial one of 16 lanes. Loads: 2 requests, 4 + 2 sectors.
__global__ void partial_warp_kernel(const float* in, float* out) { out[threadIdx.x] = in[threadIdx.x]; }

// Shared memory, 32 banks of 4-byte words. Lane i reads word STRIDE·i of a tile filled first
// (the fill's stores: 33 requests of 1 wavefront each). STRIDE 1: one wavefront; 2: lanes i
// and i + 16 share a bank, 2 wavefronts; 32: every lane in bank 0, 32 wavefronts; 0: the same
// word for all, a broadcast, 1; 33: a column of a tile padded to 33 floats a row, 1.
template <int STRIDE>
__global__ void shared_stride_kernel(float* out) {
  __shared__ float tile[32 * 33];
  for (int i = threadIdx.x; i < 32 * 33; i += 32) tile[i] = float(i);
  __syncthreads();
  out[threadIdx.x] = tile[STRIDE * threadIdx.x];
}

// 16-byte shared loads are served a half-warp at a time. Lane i reads float4 number i: each
// half asks for 64 words, two per bank: 2 wavefronts a half, 4 in all, the minimum. Every lane
// reading float4 0: 1 wavefront a half, 2 (what the H100 counts for lab 02's broadcast).
template <bool BROADCAST>
__global__ void shared_float4_kernel(float4* out) {
  __shared__ float4 tile[32];
  tile[threadIdx.x] = make_float4(1, 2, 3, threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = tile[BROADCAST ? 0 : threadIdx.x];
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
  partial_warp_kernel<<<1, 48>>>(in, out);
  shared_stride_kernel<1><<<1, 32>>>(out);
  shared_stride_kernel<2><<<1, 32>>>(out);
  shared_stride_kernel<32><<<1, 32>>>(out);
  shared_stride_kernel<0><<<1, 32>>>(out);
  shared_stride_kernel<33><<<1, 32>>>(out);
  shared_float4_kernel<false><<<1, 32>>>(reinterpret_cast<float4*>(out));
  shared_float4_kernel<true><<<1, 32>>>(reinterpret_cast<float4*>(out));
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaFree(in));
  CUDA_CHECK(cudaFree(out));
  printf("access_patterns: ok\n");
  return 0;
}
