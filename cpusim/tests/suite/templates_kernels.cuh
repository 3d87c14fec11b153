// Kernels in a header, for templates.cu: cpucc rewrites included files too.
#pragma once

// grid(ceil(n/BLOCK)), block(BLOCK): x[i] = x[i] * factor + BLOCK, staged through shared memory.
template <int BLOCK, typename T>
__global__ void __launch_bounds__(BLOCK) header_scale_kernel(T* x, T factor, int n) {
  __shared__ T stage[BLOCK];
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  stage[threadIdx.x] = i < n ? x[i] : T(0);
  __syncthreads();  // stage is complete
  if (i < n) x[i] = stage[threadIdx.x] * factor + T(BLOCK);
}
