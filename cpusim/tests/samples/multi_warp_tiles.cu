// Sample-style cooperative groups over tiles of several warps: tiled_partition<64>, <128> and
// <256> of a block (with the block_tile_memory that GPUs before compute capability 8.0 need),
// their ranks and sizes, their sync between a write and a read of shared memory, and cg::reduce
// over them with cg::plus, cg::less and cg::greater; then a tile of 32 shuffling a 16-byte
// struct, which a tile moves in several shuffles, and cg::reduce over such structs.
//   multi_warp_tiles                 the checks; PASS or FAIL per check, exit 0 when all pass
//   multi_warp_tiles --tile-diverges a thread of a 64-thread tile skips the tile's sync: the kernel fails
//   multi_warp_tiles --outside-mask  a shuffle reads a lane outside its mask: cpusim warns
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "sample_helper.h"

namespace cg = cooperative_groups;

// ---- constants ----
constexpr unsigned kBlock = 256;  // threads per block
constexpr int kBlocks = 3;

// 16 bytes: more than one shuffle moves.
struct pair_sum {
  long long count;
  double total;
};
struct add_pairs {
  __host__ __device__ pair_sum operator()(pair_sum a, pair_sum b) const { return {a.count + b.count, a.total + b.total}; }
};

// ---- kernels ----
// grid(kBlocks), block(kBlock); x: kBlocks * kBlock ints. For each tile of Tile threads, out
// gets 5 ints per tile, in tile order across the grid: the tile's sum, minimum and maximum of x
// (by cg::reduce), whether every thread agreed on them, and whether the tile's ranks and mirror
// read through shared memory were right.
template <unsigned Tile>
__global__ void tile_kernel(const int* x, int* out) {
  __shared__ cg::block_tile_memory<kBlock> scratch;
  __shared__ int mirror[kBlock];
  cg::thread_block block = cg::this_thread_block(scratch);
  cg::thread_block_tile<Tile> tile = cg::tiled_partition<Tile>(block);
  const int v = x[blockIdx.x * kBlock + block.thread_rank()];
  const int sum = cg::reduce(tile, v, cg::plus<int>());
  const int lo = cg::reduce(tile, v, cg::less<int>());
  const int hi = cg::reduce(tile, v, cg::greater<int>());
  // Each thread writes its value, then reads the one at the mirror position in its tile.
  mirror[block.thread_rank()] = v;
  tile.sync();  // the whole tile has written before anyone reads a neighbour's value
  const unsigned base = tile.meta_group_rank() * Tile;
  const int mirrored = mirror[base + (Tile - 1 - tile.thread_rank())];
  const int expected_mirror = x[blockIdx.x * kBlock + base + (Tile - 1 - tile.thread_rank())];
  const bool ranks = tile.thread_rank() == block.thread_rank() % Tile && tile.num_threads() == Tile &&
                     tile.meta_group_size() == kBlock / Tile && base + tile.thread_rank() == block.thread_rank();
  // Thread 0 of each tile writes; the others' views must match its own.
  __shared__ int agree[kBlock / Tile];
  if (tile.thread_rank() == 0) agree[tile.meta_group_rank()] = 1;
  tile.sync();
  if (sum != cg::reduce(tile, v, cg::plus<int>()) || !ranks || mirrored != expected_mirror) agree[tile.meta_group_rank()] = 0;
  tile.sync();
  if (tile.thread_rank() == 0) {
    int* o = out + 5 * (blockIdx.x * (kBlock / Tile) + tile.meta_group_rank());
    o[0] = sum;
    o[1] = lo;
    o[2] = hi;
    o[3] = agree[tile.meta_group_rank()];
    o[4] = ranks;
  }
}

// grid(1), block(64); out: 64 pair_sums. Each thread shuffles a 16-byte value down by 1 in its
// warp, then reduces the warp's values with cg::reduce.
__global__ void struct_kernel(pair_sum* shuffled, pair_sum* reduced) {
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  const pair_sum mine{(long long)threadIdx.x, 0.5 * threadIdx.x};
  shuffled[threadIdx.x] = warp.shfl_down(mine, 1);
  reduced[threadIdx.x] = cg::reduce(warp, mine, add_pairs());
}

// grid(1), block(128). Thread 70 skips its 64-thread tile's sync: a bug.
__global__ void diverging_tile_kernel(int* out) {
  cg::thread_block_tile<64> tile = cg::tiled_partition<64>(cg::this_thread_block());
  if (threadIdx.x != 70) tile.sync();  // planted: thread 70 never arrives
  out[threadIdx.x] = 1;
}

// grid(1), block(32). Lanes 0-7 add up their values with a mask of lanes 0-7 only, but the first
// step's offset is 8: lane 0 reads lane 8, outside the mask (undefined on a GPU).
__global__ void outside_mask_kernel(int* out) {
  int v = threadIdx.x;
  if (threadIdx.x < 8)
    for (int offset = 8; offset > 0; offset /= 2) v += __shfl_down_sync(0xffu, v, offset);
  out[threadIdx.x] = v;
}

// ---- host ----
bool report(const char* what, bool pass) {
  std::printf("multi_warp_tiles: %s: %s\n", what, pass ? "PASS" : "FAIL");
  return pass;
}

template <unsigned Tile> bool check_tiles(const std::vector<int>& x, const int* d_x) {
  const int tiles = kBlocks * kBlock / Tile;
  int* d_out;
  checkCudaErrors(cudaMalloc(&d_out, 5 * tiles * sizeof(int)));
  tile_kernel<Tile><<<kBlocks, kBlock>>>(d_x, d_out);
  getLastCudaError("tile_kernel failed");
  std::vector<int> out(5 * tiles);
  checkCudaErrors(cudaMemcpy(out.data(), d_out, out.size() * sizeof(int), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaFree(d_out));
  int right = 0;
  for (int t = 0; t < tiles; ++t) {
    int sum = 0, lo = x[t * Tile], hi = x[t * Tile];
    for (unsigned i = 0; i < Tile; ++i) {
      const int v = x[t * Tile + i];
      sum += v;
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
    const int* o = &out[5 * t];
    right += o[0] == sum && o[1] == lo && o[2] == hi && o[3] == 1 && o[4] == 1;
  }
  std::printf("multi_warp_tiles: tiles of %u: %d of %d tiles right (sum, min, max, sync, ranks)\n", Tile, right, tiles);
  return right == tiles;
}

bool check_structs() {
  pair_sum *d_shuffled, *d_reduced;
  checkCudaErrors(cudaMalloc(&d_shuffled, 64 * sizeof(pair_sum)));
  checkCudaErrors(cudaMalloc(&d_reduced, 64 * sizeof(pair_sum)));
  struct_kernel<<<1, 64>>>(d_shuffled, d_reduced);
  getLastCudaError("struct_kernel failed");
  pair_sum shuffled[64], reduced[64];
  checkCudaErrors(cudaMemcpy(shuffled, d_shuffled, sizeof shuffled, cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(reduced, d_reduced, sizeof reduced, cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaFree(d_shuffled));
  checkCudaErrors(cudaFree(d_reduced));
  int right = 0;
  for (int t = 0; t < 64; ++t) {
    const int source = t % 32 == 31 ? t : t + 1;  // the last lane keeps its own value
    const int first = t / 32 * 32;
    const long long count = 32LL * first + 496;  // first + (first + 1) + ... + (first + 31)
    right += shuffled[t].count == source && shuffled[t].total == 0.5 * source && reduced[t].count == count &&
             reduced[t].total == 0.5 * count;
  }
  std::printf("multi_warp_tiles: 16-byte values: %d of 64 threads right (shfl_down, cg::reduce)\n", right);
  return right == 64;
}

int run_bug(bool diverges) {
  int* d_out;
  checkCudaErrors(cudaMalloc(&d_out, 128 * sizeof(int)));
  if (diverges) {
    diverging_tile_kernel<<<1, 128>>>(d_out);
    checkCudaErrors(cudaDeviceSynchronize());  // fails here
    return 0;
  }
  outside_mask_kernel<<<1, 32>>>(d_out);
  checkCudaErrors(cudaDeviceSynchronize());
  std::printf("multi_warp_tiles: outside_mask_kernel ran\n");
  return 0;
}

int main(int argc, const char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--tile-diverges") == 0) return run_bug(true);
    if (std::strcmp(argv[i], "--outside-mask") == 0) return run_bug(false);
  }
  findCudaDevice(argc, argv);
  std::vector<int> x(kBlocks * kBlock);
  for (size_t i = 0; i < x.size(); ++i) x[i] = int((i * 37) % 101) - 50;
  int* d_x;
  checkCudaErrors(cudaMalloc(&d_x, x.size() * sizeof(int)));
  checkCudaErrors(cudaMemcpy(d_x, x.data(), x.size() * sizeof(int), cudaMemcpyHostToDevice));
  bool ok = report("tiles of 64", check_tiles<64>(x, d_x));
  ok &= report("tiles of 128", check_tiles<128>(x, d_x));
  ok &= report("tiles of 256", check_tiles<256>(x, d_x));
  checkCudaErrors(cudaFree(d_x));
  ok &= report("a tile of 32 shuffles and reduces 16-byte values", check_structs());
  return ok ? 0 : 1;
}
