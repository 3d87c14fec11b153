// How many blocks a launch may put along y: 65535, the limit of every CUDA GPU (x allows
// 2^31 - 1), and of the CPU backend, which accepts every launch a GPU accepts. A kernel whose
// problem needs more blocks than that along y loops over the rest (`tile_row += gridDim.y`):
// only matrices taller than 65535 tiles take that loop, so the grader checks labs 02-04 on
// such tall, thin shapes (grading/rubric.txt).
#pragma once

constexpr int kMaxGridRows = 65535;
