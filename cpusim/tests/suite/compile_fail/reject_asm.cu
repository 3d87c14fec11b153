// reject_asm: inline PTX cannot run on a CPU; cpucc reports the asm line as an error.
#include <cstdio>

__global__ void laneid_kernel(unsigned* out) {
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  out[threadIdx.x] = lane;
}

int main() {
  unsigned* d;
  unsigned h[64];
  cudaMalloc(&d, sizeof h);
  laneid_kernel<<<1, 64>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("reject_asm: lane of thread 40 = %u\n", h[40]);
  return 0;
}
