// Sample-style warp votes: __all_sync, __any_sync, __ballot_sync and __activemask on a full warp
// and on a branch of it, and the same votes through a cooperative-groups tile of 16 threads.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdio>

#include "sample_helper.h"

namespace cg = cooperative_groups;

// ---- kernel ----
// grid(1), block(64): two warps. Each thread writes its warp's votes into out[8 * tid ...].
__global__ void vote_kernel(const int* x, unsigned* out) {
  const unsigned tid = threadIdx.x;
  const int v = x[tid];
  unsigned* o = out + 8 * tid;
  o[0] = __all_sync(0xffffffffu, v > 0);
  o[1] = __any_sync(0xffffffffu, v > 40);
  o[2] = __ballot_sync(0xffffffffu, v % 3 == 0);
  if (tid % 2 == 0) o[3] = __activemask();  // the even lanes take this branch together
  else o[3] = 0;
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cg::this_thread_block());
  o[4] = tile.all(v > 0);
  o[5] = tile.any(v > 40);
  o[6] = tile.ballot(v % 3 == 0);  // bit i: thread i of the tile
  o[7] = tile.meta_group_rank();
}

// ---- host ----
int main(int argc, const char** argv) {
  findCudaDevice(argc, argv);
  const int threads = 64;
  int h_x[threads];
  for (int i = 0; i < threads; ++i) h_x[i] = i < 32 ? i + 1 : i - 40;  // warp 0 all positive, warp 1 not
  int* d_x;
  unsigned* d_out;
  checkCudaErrors(cudaMalloc(&d_x, sizeof h_x));
  checkCudaErrors(cudaMalloc(&d_out, 8 * threads * sizeof(unsigned)));
  checkCudaErrors(cudaMemcpy(d_x, h_x, sizeof h_x, cudaMemcpyHostToDevice));
  vote_kernel<<<1, threads>>>(d_x, d_out);
  getLastCudaError("vote_kernel failed");
  unsigned h_out[8 * threads];
  checkCudaErrors(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int t = 0; t < threads; ++t) {
    const int w = t / 32 * 32, g = t / 16 * 16;
    unsigned all = 1, any = 0, ballot = 0, tall = 1, tany = 0, tballot = 0;
    for (int l = 0; l < 32; ++l) {
      all &= h_x[w + l] > 0;
      any |= h_x[w + l] > 40;
      ballot |= unsigned(h_x[w + l] % 3 == 0) << l;
    }
    for (int l = 0; l < 16; ++l) {
      tall &= h_x[g + l] > 0;
      tany |= h_x[g + l] > 40;
      tballot |= unsigned(h_x[g + l] % 3 == 0) << l;
    }
    const unsigned want[8] = {all, any, ballot, t % 2 == 0 ? 0x55555555u : 0u, tall, tany, tballot, unsigned(t / 16)};
    for (int k = 0; k < 8; ++k) {
      const bool boolean = k == 0 || k == 1 || k == 4 || k == 5;  // "non-zero", whatever the value
      if (boolean ? (h_out[8 * t + k] != 0) != (want[k] != 0) : h_out[8 * t + k] != want[k]) {
        if (wrong < 5) std::printf("  thread %d vote %d: got 0x%08x, expected 0x%08x\n", t, k, h_out[8 * t + k], want[k]);
        ++wrong;
      }
    }
  }
  checkCudaErrors(cudaFree(d_x));
  checkCudaErrors(cudaFree(d_out));
  std::printf("vote: warp 0 ballot 0x%08x, warp 1 ballot 0x%08x, activemask of the even lanes 0x%08x: %s\n", h_out[2],
              h_out[8 * 32 + 2], h_out[3], wrong == 0 ? "PASS" : "FAIL");
  return wrong == 0 ? 0 : 1;
}
