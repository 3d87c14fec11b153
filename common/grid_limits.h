// How many blocks a launch puts along y: at most 65535, the limit of every CUDA GPU (x allows
// 2^31 - 1). A kernel whose problem needs more blocks than that along y loops over the rest
// (`tile_row += gridDim.y`). On a GPU only matrices taller than 65535 blocks take that loop,
// which makes it easy to get wrong unnoticed; the CPU backend's builds therefore set
// LAB_MAX_GRID_ROWS to 64 (Makefile), so that the loop runs on the small shapes its tests and
// the grader use. Results do not change: the same blocks' work is spread over fewer blocks.
#pragma once

#ifndef LAB_MAX_GRID_ROWS
#define LAB_MAX_GRID_ROWS 65535
#endif

constexpr int kMaxGridRows = LAB_MAX_GRID_ROWS;
static_assert(kMaxGridRows >= 1 && kMaxGridRows <= 65535, "a grid has 1 to 65535 blocks along y");
