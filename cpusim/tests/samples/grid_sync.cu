// Sample-style cooperative launch: a kernel that normalizes a vector in one launch, with grid
// barriers (this_grid().sync()) between its phases, launched with cudaLaunchCooperativeKernel on
// as many blocks as the device holds at once (the occupancy API times the multiprocessors). It
// checks the device's cooperativeLaunch attribute, the kernel passed as (void*), through
// reinterpret_cast and as a template instance, several grid barriers in a row, a grid too large
// for the device (cudaErrorCooperativeLaunchTooLarge), and cudaLaunchKernel.
//   grid_sync                   the checks; PASS or FAIL per check, exit 0 when all pass
//   grid_sync --not-cooperative this_grid().sync() in a <<<>>> launch: the kernel fails
//   grid_sync --block-exits     a block returns before the grid barrier the others wait at
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "sample_helper.h"

namespace cg = cooperative_groups;

// ---- constants ----
constexpr int kThreads = 128;  // threads per block
constexpr int kSteps = 4;      // grid barriers in steps_kernel's loop

// ---- kernels ----
// grid(any, resident at once), block(kThreads); x, y: n floats; partial: gridDim.x floats.
// Phase 1: each block sums a grid-strided part of x into partial[blockIdx.x]; grid barrier;
// phase 2: every thread adds up partial (the same total everywhere) and writes y = x / total.
// valid[0] gets whether block 0 saw a valid grid group.
__global__ void normalize_kernel(const float* x, float* partial, float* y, int n, int* valid) {
  __shared__ float block_sum[kThreads];
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  float sum = 0;
  for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size()) sum += x[i];
  block_sum[block.thread_rank()] = sum;
  block.sync();
  if (block.thread_rank() == 0) {
    float s = 0;
    for (int t = 0; t < kThreads; ++t) s += block_sum[t];
    partial[blockIdx.x] = s;
  }
  grid.sync();  // every block's partial sum is written before anyone reads them
  float total = 0;
  for (unsigned b = 0; b < gridDim.x; ++b) total += partial[b];
  for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size()) y[i] = x[i] / total;
  if (grid.thread_rank() == 0) valid[0] = grid.is_valid();
}

// grid(any, resident at once), block(kThreads); counters: gridDim.x ints, zero.
// kSteps rounds: each block adds 1 to the counter of the next block, then a grid barrier; after
// it every block checks its own counter has been bumped exactly once per round so far.
// ok[blockIdx.x]: 1 when every round was right.
template <class T>
__global__ void steps_kernel(T* counters, int* ok) {
  cg::grid_group grid = cg::this_grid();
  const unsigned next = (blockIdx.x + 1) % gridDim.x;
  int right = 1;
  for (int step = 1; step <= kSteps; ++step) {
    if (threadIdx.x == 0) counters[next] += T(1);
    grid.sync();  // every bump of this round is done before any block checks
    right &= counters[blockIdx.x] == T(step);
    grid.sync();  // no block bumps the next round before every block has checked this one
  }
  if (threadIdx.x == 0) ok[blockIdx.x] = right;
}

// grid(any), block(kThreads); x: n floats. Scales x in place (a plain launch through cudaLaunchKernel).
__global__ void scale_kernel(float* x, int n, float factor) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= factor;
}

// grid(>= 2), block(kThreads). Block 1 returns before the grid barrier the others wait at: a bug.
__global__ void block_exits_kernel(int* out) {
  if (blockIdx.x == 1) return;  // planted: block 1 never reaches the barrier
  cg::this_grid().sync();
  out[blockIdx.x] = 1;
}

// ---- host ----
bool report(const char* what, bool pass) {
  std::printf("grid_sync: %s: %s\n", what, pass ? "PASS" : "FAIL");
  return pass;
}

// As many blocks of kThreads as the device holds at once.
int resident_blocks(const void* kernel, size_t dynamic_smem) {
  int per_sm = 0, sms = 0;
  checkCudaErrors(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, dynamic_smem));
  checkCudaErrors(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  return per_sm * sms;
}

bool check_normalize() {
  const int n = 50000;
  const int blocks = resident_blocks((const void*)normalize_kernel, 0);
  std::vector<float> x(n);
  double total = 0;
  for (int i = 0; i < n; ++i) total += x[i] = float((i * 7) % 13 + 1);  // integers: the float sums are exact
  float *d_x, *d_partial, *d_y;
  int* d_valid;
  checkCudaErrors(cudaMalloc(&d_x, n * sizeof(float)));
  checkCudaErrors(cudaMalloc(&d_y, n * sizeof(float)));
  checkCudaErrors(cudaMalloc(&d_partial, blocks * sizeof(float)));
  checkCudaErrors(cudaMalloc(&d_valid, sizeof(int)));
  checkCudaErrors(cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  int count = n;
  void* args[] = {&d_x, &d_partial, &d_y, &count, &d_valid};
  checkCudaErrors(cudaLaunchCooperativeKernel((void*)normalize_kernel, blocks, kThreads, args, 0, 0));
  checkCudaErrors(cudaDeviceSynchronize());
  std::vector<float> y(n);
  int valid = 0;
  checkCudaErrors(cudaMemcpy(y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(&valid, d_valid, sizeof(int), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += y[i] != float(x[i] / float(total));
  checkCudaErrors(cudaFree(d_x));
  checkCudaErrors(cudaFree(d_y));
  checkCudaErrors(cudaFree(d_partial));
  checkCudaErrors(cudaFree(d_valid));
  std::printf("grid_sync: normalize on %d blocks: %d of %d elements wrong, grid valid %d\n", blocks, wrong, n, valid);
  return report("one grid barrier between two phases", wrong == 0 && valid == 1);
}

template <class T> bool check_steps(const char* type) {
  const int blocks = resident_blocks(reinterpret_cast<const void*>(steps_kernel<T>), 0);
  T* d_counters;
  int* d_ok;
  checkCudaErrors(cudaMalloc(&d_counters, blocks * sizeof(T)));
  checkCudaErrors(cudaMalloc(&d_ok, blocks * sizeof(int)));
  checkCudaErrors(cudaMemset(d_counters, 0, blocks * sizeof(T)));
  void* args[] = {&d_counters, &d_ok};
  checkCudaErrors(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(steps_kernel<T>), dim3(blocks), dim3(kThreads), args));
  std::vector<int> ok(blocks);
  checkCudaErrors(cudaMemcpy(ok.data(), d_ok, blocks * sizeof(int), cudaMemcpyDeviceToHost));
  int right = 0;
  for (int v : ok) right += v;
  checkCudaErrors(cudaFree(d_counters));
  checkCudaErrors(cudaFree(d_ok));
  std::printf("grid_sync: steps<%s> on %d blocks: %d of %d blocks right after %d rounds\n", type, blocks, right, blocks, kSteps);
  return report("grid barriers in a loop, a template kernel", right == blocks);
}

bool check_too_large() {
  const int blocks = resident_blocks((const void*)steps_kernel<int>, 0) + 1;
  int* d_counters;
  int* d_ok;
  checkCudaErrors(cudaMalloc(&d_counters, blocks * sizeof(int)));
  checkCudaErrors(cudaMalloc(&d_ok, blocks * sizeof(int)));
  checkCudaErrors(cudaMemset(d_ok, 0, blocks * sizeof(int)));
  void* args[] = {&d_counters, &d_ok};
  const cudaError_t launched = cudaLaunchCooperativeKernel((void*)steps_kernel<int>, blocks, kThreads, args, 0, 0);
  const cudaError_t last = cudaGetLastError();
  const cudaError_t after = cudaGetLastError();
  int ran = 0;
  checkCudaErrors(cudaMemcpy(&ran, d_ok, sizeof(int), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaFree(d_counters));
  checkCudaErrors(cudaFree(d_ok));
  std::printf("grid_sync: %d blocks, one more than fit: %s, then %s and %s; kernel ran: %s\n", blocks,
              cudaGetErrorName(launched), cudaGetErrorName(last), cudaGetErrorName(after), ran ? "yes" : "no");
  return report("a grid too large for the device", launched == cudaErrorCooperativeLaunchTooLarge &&
                                                       last == cudaErrorCooperativeLaunchTooLarge &&
                                                       after == cudaSuccess && ran == 0);
}

bool check_launch_kernel() {
  const int n = 1000;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = float(i);
  float* d_x;
  checkCudaErrors(cudaMalloc(&d_x, n * sizeof(float)));
  checkCudaErrors(cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  int count = n;
  float factor = 3;
  void* args[] = {&d_x, &count, &factor};
  checkCudaErrors(cudaLaunchKernel(scale_kernel, dim3((n + kThreads - 1) / kThreads), dim3(kThreads), args, 0, nullptr));
  checkCudaErrors(cudaMemcpy(x.data(), d_x, n * sizeof(float), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaFree(d_x));
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += x[i] != float(3 * i);
  std::printf("grid_sync: cudaLaunchKernel scale: %d of %d elements wrong\n", wrong, n);
  bool refused = true;
#ifdef __CPUSIM__
  // No pointers to the arguments of a kernel that has parameters: refused, with a cpusim: line
  // (a GPU's driver reads through the null pointer).
  const cudaError_t no_args = cudaLaunchKernel(scale_kernel, dim3(1), dim3(kThreads), nullptr, 0, nullptr);
  refused = no_args == cudaErrorInvalidValue && cudaGetLastError() == cudaErrorInvalidValue;
  std::printf("grid_sync: cudaLaunchKernel without args: %s\n", cudaGetErrorName(no_args));
#endif
  return report("cudaLaunchKernel", wrong == 0 && refused);
}

// The planted bugs: each run ends at its cudaDeviceSynchronize with the kernel's fault.
int run_bug(bool cooperative) {
  const int blocks = 4;
  int *d_counters, *d_out;
  checkCudaErrors(cudaMalloc(&d_counters, blocks * sizeof(int)));
  checkCudaErrors(cudaMalloc(&d_out, blocks * sizeof(int)));
  checkCudaErrors(cudaMemset(d_counters, 0, blocks * sizeof(int)));
  if (cooperative) {
    void* args[] = {&d_out};
    checkCudaErrors(cudaLaunchCooperativeKernel((void*)block_exits_kernel, blocks, kThreads, args, 0, 0));
  } else {
    steps_kernel<int><<<blocks, kThreads>>>(d_counters, d_out);  // planted: not a cooperative launch
  }
  checkCudaErrors(cudaDeviceSynchronize());  // fails here
  return 0;
}

int main(int argc, const char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--not-cooperative") == 0) return run_bug(false);
    if (std::strcmp(argv[i], "--block-exits") == 0) return run_bug(true);
  }
  findCudaDevice(argc, argv);
  int cooperative = 0;
  checkCudaErrors(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, 0));
  bool ok = report("the device supports cooperative launches", cooperative == 1);
  ok &= check_normalize();
  ok &= check_steps<int>("int");
  ok &= check_steps<double>("double");
  ok &= check_too_large();
  ok &= check_launch_kernel();
  return ok ? 0 : 1;
}
