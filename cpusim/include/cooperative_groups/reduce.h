// Part of cpusim, the CPU backend: cg::reduce over a tile, and the operators it takes
// (see cpusim/README.md). A butterfly of shfl_xor: every thread of the tile gets the result.
#pragma once
#pragma GCC system_header

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
  for (unsigned offset = N / 2; offset > 0; offset /= 2) value = op(value, tile.shfl_xor(value, offset, file, line));
  return value;
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
