// race_blocks: thread 0 of each of 8 blocks increments one global counter. Without atomics (no
// argument) the read-modify-writes of different blocks race: ThreadSanitizer (cpucc
// -fsanitize=thread) reports it from happens-before, even in runs that happen to get the right
// count (as CPU runs usually do). With the argument "atomic" it uses atomicAdd and is race-free.
#include <cstring>

#include "check.cuh"

// grid(8), block(64): one increment per block.
__global__ void count_kernel(int* counter, bool use_atomic) {
  if (threadIdx.x != 0) return;
  if (use_atomic)
    atomicAdd(counter, 1);
  else
    *counter = *counter + 1;  // BUG: a data race between blocks
}

int main(int argc, char** argv) {
  const bool use_atomic = argc > 1 && std::strcmp(argv[1], "atomic") == 0;
  int* d;
  int count = 0;
  CUDA_CHECK(cudaMalloc(&d, sizeof(int)));
  CUDA_CHECK(cudaMemset(d, 0, sizeof(int)));
  count_kernel<<<8, 64>>>(d, use_atomic);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(&count, d, sizeof(int), cudaMemcpyDeviceToHost));
  printf("race_blocks: %s count=%d (expected 8)\n", use_atomic ? "atomicAdd" : "plain increment", count);
  return 0;
}
