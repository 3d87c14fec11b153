// The launcher host_kernels.cu exports to host_main.cpp.
#pragma once
#include <cuda_runtime.h>

// y = a * x + y on device arrays of n floats.
cudaError_t saxpy(float a, const float* x, float* y, int n);
