// How many blocks a launch puts along y: at most 65535, the limit of every CUDA GPU (x allows
// 2^31 - 1). A kernel whose problem needs more blocks than that along y loops over the rest
// (`tile_row += gridDim.y`). On a GPU only matrices taller than 65535 blocks take that loop,
// which makes it easy to get wrong unnoticed. The workbook's CPU-backend builds therefore model
// a device that takes at most 64 blocks along y (-D CPUSIM_MAX_GRID_Y=64, Makefile): the loop
// runs on the small shapes the tests and the grader use there, and a launch past the limit
// fails there as it would on a GPU. Results do not change: the same work, over fewer blocks.
#pragma once

#ifdef CPUSIM_MAX_GRID_Y
constexpr int kMaxGridRows = CPUSIM_MAX_GRID_Y;
#else
constexpr int kMaxGridRows = 65535;
#endif
static_assert(kMaxGridRows >= 1 && kMaxGridRows <= 65535, "a grid has 1 to 65535 blocks along y");
