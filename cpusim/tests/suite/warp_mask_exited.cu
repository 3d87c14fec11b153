// warp_mask_exited: a warp reduction with the full mask after half of the warp has returned; the
// mask names lanes that will never arrive. cpusim reports the lane and the line.
#include "check.cuh"

// One block of 32 threads, n = 16.
__global__ void warp_mask_exited_kernel(const int* x, int n, int* sum) {
  const int lane = threadIdx.x;
  if (lane >= n) return;  // BUG: the lanes past n leave the warp
  int v = x[lane];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  if (lane == 0) *sum = v;
}

int main() {
  int *d_x, *d_sum;
  CUDA_CHECK(cudaMalloc(&d_x, 32 * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_sum, sizeof(int)));
  CUDA_CHECK(cudaMemset(d_x, 0, 32 * sizeof(int)));
  warp_mask_exited_kernel<<<1, 32>>>(d_x, 16, d_sum);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  printf("warp_mask_exited: finished without an error\n");
  return 0;
}
