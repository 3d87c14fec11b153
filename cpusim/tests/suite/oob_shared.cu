// oob_shared: a stencil reads tile[threadIdx.x + 1] without a halo, one element past the end of a
// __shared__ array. Build with cpucc -fsanitize=address: the red zone after the array catches it
// and cpusim names the array. On a GPU the read stays inside the block's shared memory window,
// so it silently reads garbage.
#include "check.cuh"

constexpr int BLOCK = 128;

// grid(n/BLOCK), block(BLOCK).
__global__ void oob_shared_kernel(const float* in, float* out) {
  __shared__ float tile[BLOCK];
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  tile[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = tile[threadIdx.x] + tile[threadIdx.x + 1];  // BUG: tile[BLOCK] for the last thread
}

int main() {
  const int n = 4 * BLOCK;
  float *d_in, *d_out;
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(float)));
  CUDA_CHECK(cudaMemset(d_in, 0, n * sizeof(float)));
  oob_shared_kernel<<<n / BLOCK, BLOCK>>>(d_in, d_out);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  printf("oob_shared: finished without an error\n");
  return 0;
}
