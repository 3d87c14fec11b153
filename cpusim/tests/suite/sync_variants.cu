// sync_variants: __syncthreads_count, __syncthreads_and, __syncthreads_or and __syncwarp.
// Expected: "sync_variants: count=100 and=0,1 or=1,0 syncwarp=ok" on both.
#include "check.cuh"

// One block of 256 threads; results[0..4] are written by thread 0.
__global__ void sync_variants_kernel(int* results) {
  const int t = threadIdx.x;
  const int count = __syncthreads_count(t < 100);
  const int all_small = __syncthreads_and(t < 100);
  const int all_nonneg = __syncthreads_and(t >= 0);
  const int any_big = __syncthreads_or(t > 200);
  const int any_huge = __syncthreads_or(t > 1000);
  // Within a warp, __syncwarp orders the write before the neighbour's read.
  __shared__ int ring[256];
  ring[t] = t * 3;
  __syncwarp();
  const int neighbour = ring[(t / 32) * 32 + (t + 1) % 32];
  const int ok = __syncthreads_and(neighbour == ((t / 32) * 32 + (t + 1) % 32) * 3);
  if (t == 0) {
    results[0] = count, results[1] = all_small, results[2] = all_nonneg;
    results[3] = any_big, results[4] = any_huge, results[5] = ok;
  }
}

int main() {
  int* d;
  int r[6];
  CUDA_CHECK(cudaMalloc(&d, sizeof r));
  sync_variants_kernel<<<1, 256>>>(d);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(r, d, sizeof r, cudaMemcpyDeviceToHost));
  printf("sync_variants: count=%d and=%d,%d or=%d,%d syncwarp=%s\n", r[0], r[1], r[2], r[3], r[4],
         r[5] ? "ok" : "FAIL");
  return r[0] == 100 && r[1] == 0 && r[2] == 1 && r[3] == 1 && r[4] == 0 && r[5] == 1 ? 0 : 1;
}
