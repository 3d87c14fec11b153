// cpusim: CUDA C++ on the CPU. cuda_runtime.h and friends lead here; cpucc force-includes it in
// .cu files as nvcc does. See cpusim/README.md.
#pragma once
#pragma GCC system_header

#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <new>

#include "toolkit_guards.h"

#include "device_functions.h"
#include "launch.h"
#include "runtime_api.h"
#include "vector_types.h"

// Qualifiers that mean nothing on a CPU. cpucc's rewriter removes __global__, __device__ and
// __shared__ itself (it needs to see them); these remain macros.
#define __host__
#define __constant__
#define __managed__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __grid_constant__
#define __CPUSIM__ 1
