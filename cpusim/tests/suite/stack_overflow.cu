// stack_overflow: deep recursion in device code. A GPU thread's stack is small (1 KB by default)
// and the launch fails; a cpusim thread's fiber stack is 64 KB, with a guard page below it, and
// cpusim reports the overflow with the kernel, block and thread before the process dies.
#include "check.cuh"

// Each frame passes its address down, so the compiler can neither drop it nor turn the
// recursion into a loop.
__device__ int depth_sum(int depth, volatile int* parent) {
  volatile int frame[64];
  frame[depth % 64] = parent ? parent[(depth + 1) % 64] + 1 : 0;
  if (depth == 0) return frame[0];
  return depth_sum(depth - 1, frame) + frame[depth % 64];
}

__global__ void recursion_kernel(int depth, int* out) { *out = depth_sum(depth, nullptr); }

int main() {
  int* d;
  CUDA_CHECK(cudaMalloc(&d, sizeof(int)));
  recursion_kernel<<<1, 1>>>(100000, d);
  CUDA_CHECK(cudaDeviceSynchronize());
  printf("stack_overflow: finished without an error\n");
  return 0;
}
