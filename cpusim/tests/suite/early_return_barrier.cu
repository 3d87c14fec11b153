// early_return_barrier: the bounds guard returns before a __syncthreads(), so the threads past the
// end never reach the barrier that the others wait at. cpusim names the barrier and the return.
#include "check.cuh"

// grid(2), block(128), n = 200: the last 56 threads of block 1 return early.
__global__ void early_return_kernel(const float* in, float* out, int n) {
  __shared__ float tile[128];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;  // BUG: these threads never reach the barrier below
  tile[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = tile[threadIdx.x] + tile[(threadIdx.x + 1) % blockDim.x];
}

int main() {
  const int n = 200;
  float *d_in, *d_out;
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(float)));
  CUDA_CHECK(cudaMemset(d_in, 0, n * sizeof(float)));
  early_return_kernel<<<2, 128>>>(d_in, d_out, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  printf("early_return_barrier: finished without an error\n");
  return 0;
}
