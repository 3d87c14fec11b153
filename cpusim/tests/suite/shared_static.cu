// shared_static: static __shared__ storage belongs to one block. Several declarators in one
// declaration, 2-D arrays, a template-sized array, one in a __device__ function and one at
// namespace scope; blocks run concurrently and must not see each other's data.
// Expected: "shared_static: ok 64 blocks" on both.
#include <vector>

#include "check.cuh"

constexpr int BLOCK = 64;

__shared__ int block_tag;  // namespace scope: still one per block

__device__ int reversed_through_device_function(int v) {
  __shared__ int scratch[BLOCK];
  scratch[threadIdx.x] = v;
  __syncthreads();  // all of scratch is written
  return scratch[BLOCK - 1 - threadIdx.x];
}

// grid(64), block(BLOCK): out[block][i] = in[block][BLOCK-1-i] * 1000 + tag checks.
template <int N>
__global__ void shared_static_kernel(const int* in, int* out) {
  __shared__ int a[N], b[N];
  __shared__ int grid2d[4][N / 4];
  const int base = blockIdx.x * N;
  if (threadIdx.x == 0) block_tag = blockIdx.x;
  a[threadIdx.x] = in[base + threadIdx.x];
  b[threadIdx.x] = 2 * a[threadIdx.x];
  grid2d[threadIdx.x % 4][threadIdx.x / 4] = threadIdx.x;
  __syncthreads();  // a, b, grid2d and block_tag are complete
  const int r = reversed_through_device_function(a[threadIdx.x]);
  const int ok = block_tag == (int)blockIdx.x && b[N - 1 - threadIdx.x] == 2 * r &&
                 grid2d[(N - 1 - threadIdx.x) % 4][(N - 1 - threadIdx.x) / 4] == N - 1 - (int)threadIdx.x;
  out[base + threadIdx.x] = ok ? r : -1;
}

int main() {
  const int blocks = 64, n = blocks * BLOCK;
  std::vector<int> in(n), out(n);
  lcg rng(11);
  for (int& v : in) v = rng.next(0, 1000000);
  int *d_in, *d_out;
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  CUDA_CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  shared_static_kernel<BLOCK><<<blocks, BLOCK>>>(d_in, d_out);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int blk = 0; blk < blocks; ++blk)
    for (int i = 0; i < BLOCK; ++i) wrong += out[blk * BLOCK + i] != in[blk * BLOCK + BLOCK - 1 - i];
  if (wrong) {
    printf("shared_static: FAIL %d wrong\n", wrong);
    return 1;
  }
  printf("shared_static: ok %d blocks\n", blocks);
  return 0;
}
