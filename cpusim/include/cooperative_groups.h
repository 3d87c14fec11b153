// Part of cpusim, the CPU backend: the basic cooperative groups (see cpusim/README.md).
// A thread block and its tiles of 1 to 32 threads are cpusim's own barrier and warp operations
// under CUDA's names: a tile's sync, shuffles and votes are __syncwarp, __shfl_*_sync and the
// vote functions with the tile's lanes as their mask and its size as their width. Tiles of 64 to
// 1024 threads (several warps) sync with a barrier of their own threads (tile_sync). The grid's
// sync is a barrier of every thread of the grid, in a cooperative launch (src/cooperative.cpp).
// Every member that waits for other threads takes its caller's file and line (default
// arguments), as __syncthreads does, so that cpusim matches the threads at the same call and
// names that line when they do not meet.
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

// Shuffles move 8 bytes at most; a tile's shfl moves any trivially copyable value, 8 bytes at a time.
template <class T, class Shuffle> T shuffle_parts(const T& value, Shuffle shuffle) {
  static_assert(std::is_trivially_copyable<T>::value, "cooperative_groups: a tile shuffles trivially copyable values");
  if constexpr (sizeof(T) <= 8) {
    return shuffle(value);
  } else {
    unsigned long long parts[(sizeof(T) + 7) / 8] = {};
    std::memcpy(parts, &value, sizeof(T));
    for (unsigned long long& part : parts) part = shuffle(part);
    T result;
    std::memcpy(static_cast<void*>(&result), parts, sizeof(T));
    return result;
  }
}
}  // namespace details

// Any group: a whole block (tile size 0), or a tile of a block.
class thread_group {
 public:
  void sync(CPUSIM_CG_SITE) const {
    if (tile_size_ == 0) __syncthreads(file, line);
    else if (tile_size_ > 32) cpusim::detail::tile_sync(tile_size_, file, line);
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

// What CUDA's tiles of several warps use for their exchanges on GPUs before compute capability
// 8.0. cpusim's use memory of their own (cpusim::detail::tile_scratch, as a GPU of compute
// capability 8.0 or later uses memory it reserves), so this takes its place in shared memory, 8
// bytes per warp of the largest block, and nothing reads it.
template <unsigned MaxBlockSize = 1024> struct block_tile_memory {
  static_assert(MaxBlockSize >= 32 && MaxBlockSize <= 1024, "cooperative_groups::block_tile_memory: a block has 32 to 1024 threads");
  unsigned long long reserved[MaxBlockSize / 32];
};
template <unsigned MaxBlockSize> thread_block this_thread_block(block_tile_memory<MaxBlockSize>&) {
  return this_thread_block();
}

// A tile of N consecutive threads of a block (by thread_rank), N a power of 2 up to 1024: up to
// 32, a warp or a part of one; from 64, several whole warps, which have sync, the ranks and sizes,
// and cg::reduce, but (as in CUDA) no shuffles or votes.
template <unsigned N>
class thread_block_tile : public thread_group {
  static_assert(N >= 1 && N <= 1024 && (N & (N - 1)) == 0,
                "cooperative_groups::tiled_partition<N>: N is a power of 2 up to 1024");

 public:
  void sync(CPUSIM_CG_SITE) const {
    if constexpr (N > 32) cpusim::detail::tile_sync(N, file, line);
    else __syncwarp(mask(), file, line);
  }
  unsigned thread_rank() const { return details::block_rank() % N; }
  static constexpr unsigned num_threads() { return N; }
  static constexpr unsigned size() { return N; }
  unsigned meta_group_rank() const { return details::block_rank() / N; }
  unsigned meta_group_size() const { return (details::block_size() + N - 1) / N; }

  // Shuffles and votes: tiles of one warp at most (a static_assert says so when called on more).
  template <class T> T shfl(T var, int src_rank, CPUSIM_CG_SITE) const {
    return details::shuffle_parts(var, [&](auto part) { return __shfl_sync(mask(), part, src_rank, N, file, line); });
  }
  template <class T> T shfl_up(T var, unsigned delta, CPUSIM_CG_SITE) const {
    return details::shuffle_parts(var, [&](auto part) { return __shfl_up_sync(mask(), part, delta, N, file, line); });
  }
  template <class T> T shfl_down(T var, unsigned delta, CPUSIM_CG_SITE) const {
    return details::shuffle_parts(var, [&](auto part) { return __shfl_down_sync(mask(), part, delta, N, file, line); });
  }
  template <class T> T shfl_xor(T var, unsigned lane_mask, CPUSIM_CG_SITE) const {
    return details::shuffle_parts(var, [&](auto part) { return __shfl_xor_sync(mask(), part, int(lane_mask), N, file, line); });
  }
  int any(int predicate, CPUSIM_CG_SITE) const { return __any_sync(mask(), predicate, file, line); }
  int all(int predicate, CPUSIM_CG_SITE) const { return __all_sync(mask(), predicate, file, line); }
  // Bit i stands for the tile's thread i, as on a GPU (not for lane i of the warp).
  unsigned ballot(int predicate, CPUSIM_CG_SITE) const {
    return __ballot_sync(mask(), predicate, file, line) >> (details::block_rank() % 32 / N * N);
  }

 private:
  thread_block_tile() : thread_group(N) {}
  static unsigned mask() {
    static_assert(N <= 32, "cooperative_groups: a tile of more than 32 threads has no shuffles or votes (as in CUDA); "
                           "use cg::reduce, or a tile of 32 (tiled_partition<32>)");
    return details::tile_mask(N);
  }
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
