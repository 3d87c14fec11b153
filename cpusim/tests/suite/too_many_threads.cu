// too_many_threads: launch configurations beyond CUDA's limits fail at the launch with
// cudaErrorInvalidValue in CUDA 13 (not cudaErrorInvalidConfiguration), visible through
// cudaGetLastError, and the kernel does not run. Expected: the same lines on the CPU and a GPU.
#include "check.cuh"

__global__ void mark_kernel(int* flag) { *flag = 1; }

void try_launch(const char* what, dim3 grid, dim3 block, int* d_flag) {
  CUDA_CHECK(cudaMemset(d_flag, 0, sizeof(int)));
  mark_kernel<<<grid, block>>>(d_flag);
  const cudaError_t launch = cudaGetLastError();
  const cudaError_t after = cudaGetLastError();  // not sticky: cleared by the first call
  int ran = -1;
  CUDA_CHECK(cudaMemcpy(&ran, d_flag, sizeof(int), cudaMemcpyDeviceToHost));
  printf("too_many_threads: %-22s -> %s, then %s, kernel ran: %s\n", what, cudaGetErrorName(launch),
         cudaGetErrorName(after), ran ? "yes" : "no");
}

int main() {
  int* d_flag;
  CUDA_CHECK(cudaMalloc(&d_flag, sizeof(int)));
  try_launch("block (2048,1,1)", dim3(1), dim3(2048), d_flag);
  try_launch("block (32,32,2)", dim3(1), dim3(32, 32, 2), d_flag);
  try_launch("block (1,1,65)", dim3(1), dim3(1, 1, 65), d_flag);
  try_launch("block (0,1,1)", dim3(1), dim3(0, 1, 1), d_flag);
  try_launch("grid (1,65536,1)", dim3(1, 65536), dim3(32), d_flag);
  try_launch("grid (0,1,1)", dim3(0), dim3(32), d_flag);
  try_launch("block (1024,1,1) valid", dim3(1), dim3(1024), d_flag);
  return 0;
}
