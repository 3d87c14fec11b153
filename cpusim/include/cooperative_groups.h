// Part of cpusim, the CPU backend: the basic cooperative groups (see cpusim/README.md).
// A thread block and its tiles of 1 to 32 threads are cpusim's own barrier and warp operations
// under CUDA's names: a tile's sync, shuffles and votes are __syncwarp, __shfl_*_sync and the
// vote functions with the tile's lanes as their mask and its size as their width. Every member
// that waits for other threads takes its caller's file and line (default arguments), as
// __syncthreads does, so that cpusim matches the threads at the same call and names that line
// when they do not meet.
// The grid's sync is a barrier of every thread of the grid, in a cooperative launch
// (src/cooperative.cpp).
// Outside the subset, each a compile-time error that says why: coalesced groups, cluster groups
// and the partitions by label.
#pragma once
#pragma GCC system_header

#include "cpusim/cpusim.h"

// The toolkit's guard, which code may test (and which makes its own copy of this header empty).
#define _COOPERATIVE_GROUPS_H_

#define CPUSIM_CG_SITE const char *file = __builtin_FILE(), int line = __builtin_LINE()

namespace cooperative_groups {

namespace details {
// A thread's rank in its block, x fastest, as CUDA numbers the threads of a block (and so warps).
inline unsigned block_rank() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
inline unsigned block_size() { return blockDim.x * blockDim.y * blockDim.z; }

// The lanes of the calling thread's warp in its tile of `size` threads (a power of 2 up to 32),
// without the lanes a last, partial warp of the block does not have.
inline unsigned tile_mask(unsigned size) {
  const unsigned rank = block_rank();
  const unsigned lane = rank % 32;
  const unsigned first = lane / size * size;
  const unsigned tile = size == 32 ? 0xffffffffu : ((1u << size) - 1) << first;
  const unsigned lanes_here = block_size() - (rank - lane);
  return lanes_here >= 32 ? tile : tile & ((1u << lanes_here) - 1);
}

template <class... T> struct not_supported { static constexpr bool value = false; };
}  // namespace details

// Any group: a whole block (tile size 0), or a tile of a block.
class thread_group {
 public:
  void sync(CPUSIM_CG_SITE) const {
    if (tile_size_ == 0) __syncthreads(file, line);
    else __syncwarp(details::tile_mask(tile_size_), file, line);
  }
  unsigned long long thread_rank() const { return tile_size_ == 0 ? details::block_rank() : details::block_rank() % tile_size_; }
  unsigned long long num_threads() const { return tile_size_ == 0 ? details::block_size() : tile_size_; }
  unsigned long long size() const { return num_threads(); }

 protected:
  explicit thread_group(unsigned tile_size) : tile_size_(tile_size) {}
  friend thread_group tiled_partition(const thread_group& parent, unsigned tile_size);

 private:
  unsigned tile_size_;
};

class thread_block : public thread_group {
 public:
  void sync(CPUSIM_CG_SITE) const { __syncthreads(file, line); }
  unsigned thread_rank() const { return details::block_rank(); }
  unsigned num_threads() const { return details::block_size(); }
  unsigned size() const { return num_threads(); }
  dim3 group_index() const { return blockIdx; }
  dim3 thread_index() const { return threadIdx; }
  dim3 dim_threads() const { return blockDim; }
  dim3 group_dim() const { return blockDim; }

 private:
  thread_block() : thread_group(0) {}
  friend thread_block this_thread_block();
};

inline thread_block this_thread_block() { return thread_block(); }

// A tile of N consecutive threads of a block (by thread_rank), N a power of 2 up to 32: a warp
// or a part of one.
template <unsigned N>
class thread_block_tile : public thread_group {
  static_assert(N == 1 || N == 2 || N == 4 || N == 8 || N == 16 || N == 32,
                "cooperative_groups::tiled_partition<N>: the CPU backend (cpusim) has tiles of 1, 2, 4, 8, 16 "
                "and 32 threads, parts of one warp; a larger tile spans several warps, which cpusim's warp "
                "operations do not");

 public:
  void sync(CPUSIM_CG_SITE) const { __syncwarp(mask(), file, line); }
  unsigned thread_rank() const { return details::block_rank() % N; }
  static constexpr unsigned num_threads() { return N; }
  static constexpr unsigned size() { return N; }
  unsigned meta_group_rank() const { return details::block_rank() / N; }
  unsigned meta_group_size() const { return (details::block_size() + N - 1) / N; }

  template <class T> T shfl(T var, int src_rank, CPUSIM_CG_SITE) const {
    return __shfl_sync(mask(), var, src_rank, N, file, line);
  }
  template <class T> T shfl_up(T var, unsigned delta, CPUSIM_CG_SITE) const {
    return __shfl_up_sync(mask(), var, delta, N, file, line);
  }
  template <class T> T shfl_down(T var, unsigned delta, CPUSIM_CG_SITE) const {
    return __shfl_down_sync(mask(), var, delta, N, file, line);
  }
  template <class T> T shfl_xor(T var, unsigned lane_mask, CPUSIM_CG_SITE) const {
    return __shfl_xor_sync(mask(), var, int(lane_mask), N, file, line);
  }
  int any(int predicate, CPUSIM_CG_SITE) const { return __any_sync(mask(), predicate, file, line); }
  int all(int predicate, CPUSIM_CG_SITE) const { return __all_sync(mask(), predicate, file, line); }
  // Bit i stands for the tile's thread i, as on a GPU (not for lane i of the warp).
  unsigned ballot(int predicate, CPUSIM_CG_SITE) const {
    return __ballot_sync(mask(), predicate, file, line) >> (details::block_rank() % 32 / N * N);
  }

 private:
  thread_block_tile() : thread_group(N) {}
  static unsigned mask() { return details::tile_mask(N); }
  template <unsigned M> friend thread_block_tile<M> tiled_partition(const thread_block&);
  template <unsigned M, unsigned P> friend thread_block_tile<M> tiled_partition(const thread_block_tile<P>&);
};

template <unsigned N> thread_block_tile<N> tiled_partition(const thread_block&) { return thread_block_tile<N>(); }

// Tiles are aligned on multiples of their size, so a tile of a tile is a tile of the block.
template <unsigned N, unsigned P> thread_block_tile<N> tiled_partition(const thread_block_tile<P>&) {
  static_assert(N <= P, "cooperative_groups::tiled_partition<N>(tile): a tile can only be split into smaller tiles");
  return thread_block_tile<N>();
}

// The tile size known at run time; it must be a power of 2 up to 32 and at most the parent's.
inline thread_group tiled_partition(const thread_group& parent, unsigned tile_size) {
  assert(tile_size >= 1 && tile_size <= 32 && (tile_size & (tile_size - 1)) == 0 &&
         tile_size <= parent.num_threads() && "cooperative_groups::tiled_partition: the tile size must be a power of 2 up to 32");
  return thread_group(tile_size);
}

template <class Group> void sync(const Group& group, CPUSIM_CG_SITE) { group.sync(file, line); }

// The grid: its ranks and sizes work in any launch; its sync only in a cooperative one.
class grid_group {
 public:
  // A barrier of every thread of the grid. It needs every block resident at once, which only a
  // cooperative launch (cudaLaunchCooperativeKernel) guarantees; in any other launch it is a
  // fault that says so (on a GPU it may hang).
  void sync(CPUSIM_CG_SITE) const { cpusim::detail::barrier(cpusim::detail::barrier_grid, 0, file, line); }
  bool is_valid() const { return cpusim::detail::in_cooperative_launch(); }
  unsigned long long thread_rank() const { return block_rank() * details::block_size() + details::block_rank(); }
  unsigned long long num_threads() const { return num_blocks() * details::block_size(); }
  unsigned long long size() const { return num_threads(); }
  unsigned long long block_rank() const {
    return blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
  }
  unsigned long long num_blocks() const { return (unsigned long long)gridDim.x * gridDim.y * gridDim.z; }
  dim3 block_index() const { return blockIdx; }
  dim3 dim_blocks() const { return gridDim; }
};

inline grid_group this_grid() { return grid_group(); }

// Outside the subset. Called, each stops the compile with its reason.
template <class T = void> int coalesced_threads() {
  static_assert(details::not_supported<T>::value,
                "cooperative_groups::coalesced_threads() is not in the CPU backend's (cpusim) subset: cpusim "
                "runs a warp's lanes one after another, so which lanes are converged is not known at the call; "
                "use a tile (tiled_partition<32>) or __activemask()");
  return 0;
}
template <class... T> int labeled_partition(const T&...) {
  static_assert(details::not_supported<T...>::value,
                "cooperative_groups::labeled_partition is not in the CPU backend's (cpusim) subset: it needs "
                "coalesced groups; use tiles (tiled_partition<N>)");
  return 0;
}
template <class... T> int binary_partition(const T&...) {
  static_assert(details::not_supported<T...>::value,
                "cooperative_groups::binary_partition is not in the CPU backend's (cpusim) subset: it needs "
                "coalesced groups; use tiles (tiled_partition<N>)");
  return 0;
}
template <class T = void> int this_cluster() {
  static_assert(details::not_supported<T>::value,
                "cooperative_groups::this_cluster() needs a GPU: thread block clusters (compute capability "
                "9.0) are outside the CPU backend's (cpusim) subset");
  return 0;
}

}  // namespace cooperative_groups

#undef CPUSIM_CG_SITE
