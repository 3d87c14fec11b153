// indexing: threadIdx, blockIdx, blockDim, gridDim in three dimensions, dim3 defaults, uint3 and
// warpSize. Every thread writes its global linear index at its own position; the host checks.
// Expected: "indexing: ok grid (3,2,2) block (8,4,2) warpSize 32" on both.
#include <vector>

#include "check.cuh"

// grid(3,2,2), block(8,4,2): thread (x,y,z) of block (bx,by,bz) owns element
// ((bz*gy + by)*gx + bx) * threads_per_block + (z*by_dim + y)*bx_dim + x.
__global__ void indexing_kernel(int* out, int* lanes) {
  const uint3 t = threadIdx;
  const dim3 d = blockDim;
  const int block = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  const int local = (t.z * d.y + t.y) * d.x + t.x;
  const int global = block * (d.x * d.y * d.z) + local;
  out[global] = global;
  lanes[global] = local % warpSize;
}

int main() {
  const dim3 grid(3, 2, 2), block(8, 4, 2);
  const dim3 defaults;
  const int total = grid.x * grid.y * grid.z * block.x * block.y * block.z;
  int *d_out, *d_lanes;
  CUDA_CHECK(cudaMalloc(&d_out, total * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_lanes, total * sizeof(int)));
  indexing_kernel<<<grid, block>>>(d_out, d_lanes);
  CUDA_CHECK(cudaGetLastError());
  std::vector<int> out(total), lanes(total);
  CUDA_CHECK(cudaMemcpy(out.data(), d_out, total * sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(lanes.data(), d_lanes, total * sizeof(int), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < total; ++i) wrong += out[i] != i || lanes[i] != i % 64 % 32;
  if (wrong || defaults.x != 1 || defaults.y != 1 || defaults.z != 1) {
    printf("indexing: FAIL %d wrong\n", wrong);
    return 1;
  }
  printf("indexing: ok grid (%u,%u,%u) block (%u,%u,%u) warpSize 32\n", grid.x, grid.y, grid.z, block.x, block.y,
         block.z);
  return 0;
}
