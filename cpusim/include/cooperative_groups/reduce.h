// Part of cpusim, the CPU backend: cg::reduce over a tile, and the operators it takes
// (see cpusim/README.md). A butterfly of shfl_xor: every thread of the tile gets the result; a
// tile of several warps adds an exchange of the warps' results.
#pragma once
#pragma GCC system_header

#include <algorithm>

#include "../cooperative_groups.h"

#define _COOPERATIVE_GROUPS_REDUCE_H

namespace cooperative_groups {

template <class T> struct plus {
  T operator()(T a, T b) const { return a + b; }
};
template <class T> struct less {  // the lesser of the two: reduce with it gives the minimum
  T operator()(T a, T b) const { return b < a ? b : a; }
};
template <class T> struct greater {  // the greater: reduce with it gives the maximum
  T operator()(T a, T b) const { return a < b ? b : a; }
};
template <class T> struct bit_and {
  T operator()(T a, T b) const { return a & b; }
};
template <class T> struct bit_or {
  T operator()(T a, T b) const { return a | b; }
};
template <class T> struct bit_xor {
  T operator()(T a, T b) const { return a ^ b; }
};

template <unsigned N, class T, class Op>
T reduce(const thread_block_tile<N>& tile, T value, Op op, const char* file = __builtin_FILE(),
         int line = __builtin_LINE()) {
  if constexpr (N <= 32) {
    for (unsigned offset = N / 2; offset > 0; offset /= 2) value = op(value, tile.shfl_xor(value, offset, file, line));
    return value;
  } else {
    // Each warp reduces its lanes; lane 0 leaves the warp's value in its slot of the block's
    // scratch (64 bytes per warp); after the tile's sync every thread combines its tile's slots in
    // warp order, so all get the same result; a second sync keeps the next reduce from writing the
    // slots before everyone has read them.
    static_assert(sizeof(T) <= 64 && std::is_trivially_copyable<T>::value,
                  "cooperative_groups::reduce over a tile of several warps: the CPU backend (cpusim) exchanges "
                  "trivially copyable values of at most 64 bytes between the warps");
    const thread_block_tile<32> warp = tiled_partition<32>(this_thread_block());
    value = reduce(warp, value, op, file, line);
    char* const slots = static_cast<char*>(cpusim::detail::tile_scratch());
    const unsigned rank = details::block_rank();
    if (rank % 32 == 0) std::memcpy(slots + rank / 32 * 64, &value, sizeof(T));
    tile.sync(file, line);
    const unsigned first = rank / N * N;
    const unsigned last = std::min(first + N, details::block_size());
    T total;
    std::memcpy(static_cast<void*>(&total), slots + first / 32 * 64, sizeof(T));
    for (unsigned w = first / 32 + 1; w * 32 < last; ++w) {
      T v;
      std::memcpy(static_cast<void*>(&v), slots + w * 64, sizeof(T));
      total = op(total, v);
    }
    tile.sync(file, line);
    return total;
  }
}

// A whole block or a tile known only at run time: CUDA reduces over tiles and coalesced groups.
template <class T, class Op>
T reduce(const thread_group&, T, Op) {
  static_assert(details::not_supported<T, Op>::value,
                "cooperative_groups::reduce takes a tile (tiled_partition<N>): a block or a run-time tile has no "
                "reduce in CUDA either");
  return T();
}

}  // namespace cooperative_groups
