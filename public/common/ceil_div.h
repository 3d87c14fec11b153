// Integer helpers shared by kernels and launchers.
#pragma once

#include <cuda_runtime.h>

// The number of tiles of size b needed to cover a (a >= 0, b > 0): the grid size of a launch
// that must reach every element even when a is not a multiple of the tile. Written without
// a + b - 1, which overflows for a near INT_MAX.
template <class T>
__host__ __device__ constexpr T ceil_div(T a, T b) {
  return a / b + (a % b != 0);
}
