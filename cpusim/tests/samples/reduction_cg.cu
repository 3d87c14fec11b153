// Sample-style templated reduction with cooperative groups: each block sums its part in shared
// memory with block.sync() until one warp is left, which finishes with tile shuffles
// (shfl_down) and checks itself against cg::reduce; the block's minimum and maximum come from
// cg::reduce with cg::less and cg::greater over 16-thread tiles. Block sums are added on the host.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "sample_helper.h"

namespace cg = cooperative_groups;

// ---- kernel ----
// grid(blocks), block(BlockSize); each thread first adds a grid-strided run of x.
// out_sum[b], out_min[b], out_max[b]: block b's results; agree[b]: 1 when shuffles and cg::reduce agree.
template <class T, unsigned BlockSize>
__global__ void reduce_kernel(const T* x, int n, T* out_sum, T* out_min, T* out_max, int* agree) {
  static_assert(BlockSize >= 64 && (BlockSize & (BlockSize - 1)) == 0, "a power of 2, at least two warps");
  __shared__ T partial[BlockSize];
  cg::thread_block block = cg::this_thread_block();
  const unsigned tid = block.thread_rank();
  T sum = 0, lo = x[0], hi = x[0];
  for (int i = blockIdx.x * BlockSize + tid; i < n; i += gridDim.x * BlockSize) {
    sum += x[i];
    lo = x[i] < lo ? x[i] : lo;
    hi = x[i] > hi ? x[i] : hi;
  }
  partial[tid] = sum;
  block.sync();
  for (unsigned half = BlockSize / 2; half >= 32; half /= 2) {
    if (tid < half) partial[tid] += partial[tid + half];
    block.sync();  // the next round reads what this one wrote
  }
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  if (warp.meta_group_rank() == 0) {
    T v = partial[tid];
    T by_reduce = cg::reduce(warp, v, cg::plus<T>());
    for (unsigned offset = warp.size() / 2; offset > 0; offset /= 2) v += warp.shfl_down(v, offset);
    v = warp.shfl(v, 0);  // every lane gets lane 0's total
    const int agreed = warp.all(v == by_reduce);
    if (warp.thread_rank() == 0) {
      out_sum[blockIdx.x] = v;
      agree[blockIdx.x] = agreed;
    }
  }
  cg::thread_block_tile<16> sixteen = cg::tiled_partition<16>(block);
  const T tile_lo = cg::reduce(sixteen, lo, cg::less<T>());
  const T tile_hi = cg::reduce(sixteen, hi, cg::greater<T>());
  partial[tid] = tile_lo;
  block.sync();
  if (tid == 0) {
    T m = partial[0];
    for (unsigned t = 16; t < BlockSize; t += 16) m = partial[t] < m ? partial[t] : m;
    out_min[blockIdx.x] = m;
  }
  block.sync();  // partial is reused for the maxima
  partial[tid] = tile_hi;
  block.sync();
  if (tid == 0) {
    T m = partial[0];
    for (unsigned t = 16; t < BlockSize; t += 16) m = partial[t] > m ? partial[t] : m;
    out_max[blockIdx.x] = m;
  }
}

// ---- host ----
template <class T, unsigned BlockSize>
bool run(const char* type, int n, int blocks) {
  std::vector<T> h(n);
  T sum = 0, lo = 0, hi = 0;
  for (int i = 0; i < n; ++i) {
    h[i] = T((i * 37) % 101) - T(50);  // small integers: the float sums are exact in any order
    sum += h[i];
    lo = i == 0 || h[i] < lo ? h[i] : lo;
    hi = i == 0 || h[i] > hi ? h[i] : hi;
  }
  T *d_x, *d_sum, *d_min, *d_max;
  int* d_agree;
  checkCudaErrors(cudaMalloc(&d_x, n * sizeof(T)));
  checkCudaErrors(cudaMalloc(&d_sum, blocks * sizeof(T)));
  checkCudaErrors(cudaMalloc(&d_min, blocks * sizeof(T)));
  checkCudaErrors(cudaMalloc(&d_max, blocks * sizeof(T)));
  checkCudaErrors(cudaMalloc(&d_agree, blocks * sizeof(int)));
  checkCudaErrors(cudaMemcpy(d_x, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  reduce_kernel<T, BlockSize><<<blocks, BlockSize>>>(d_x, n, d_sum, d_min, d_max, d_agree);
  getLastCudaError("reduce_kernel failed");
  std::vector<T> bsum(blocks), bmin(blocks), bmax(blocks);
  std::vector<int> agree(blocks);
  checkCudaErrors(cudaMemcpy(bsum.data(), d_sum, blocks * sizeof(T), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(bmin.data(), d_min, blocks * sizeof(T), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(bmax.data(), d_max, blocks * sizeof(T), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(agree.data(), d_agree, blocks * sizeof(int), cudaMemcpyDeviceToHost));
  T got = 0, got_lo = bmin[0], got_hi = bmax[0];
  int agreeing = 0;
  for (int b = 0; b < blocks; ++b) {
    got += bsum[b];
    got_lo = bmin[b] < got_lo ? bmin[b] : got_lo;
    got_hi = bmax[b] > got_hi ? bmax[b] : got_hi;
    agreeing += agree[b];
  }
  checkCudaErrors(cudaFree(d_x));
  checkCudaErrors(cudaFree(d_sum));
  checkCudaErrors(cudaFree(d_min));
  checkCudaErrors(cudaFree(d_max));
  checkCudaErrors(cudaFree(d_agree));
  const bool pass = got == sum && got_lo == lo && got_hi == hi && agreeing == blocks;
  std::printf("reduction_cg<%s, %u>: sum %g (expected %g), min %g, max %g, shuffles agree with cg::reduce in %d of %d blocks: %s\n",
              type, BlockSize, double(got), double(sum), double(got_lo), double(got_hi), agreeing, blocks,
              pass ? "PASS" : "FAIL");
  return pass;
}

int main(int argc, const char** argv) {
  findCudaDevice(argc, argv);
  const bool ok = run<int, 256>("int", 100000, 8) && run<float, 128>("float", 70001, 5) && run<double, 64>("double", 1000, 3);
  return ok ? 0 : 1;
}
