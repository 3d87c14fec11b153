// error_semantics: which call reports which error, as CUDA 13 does it. A bad launch
// configuration (a block or grid dimension out of range or zero, too many threads, too much
// dynamic shared memory) is returned by cudaPeekAtLastError and cudaGetLastError, is cleared by
// the latter, and the kernel does not run. A fault inside a kernel (here a failed assert) is not
// seen by cudaGetLastError right after the launch, even once the kernel has ended: the next call
// that synchronizes returns it, and from then on every call does (sticky), while each
// cudaGetLastError returns it once. cudaDeviceReset clears the sticky error but not the last one.
// (Nothing runs after the reset: on the H100 we measured on, the next context could not be made.)
// First it prints the value, name and text of the error codes that the lab harness uses.
// Expected: the same lines on the CPU backend and on a GPU (docs/results/cpusim-error-semantics-h100.log).
#include <unistd.h>

#include <cassert>

#include "check.cuh"

constexpr size_t kDefaultDynamicSmem = 48 * 1024;  // without cudaFuncSetAttribute
constexpr size_t kOptinDynamicSmem = 227 * 1024;   // sharedMemPerBlockOptin of an H100

// ---- kernels ----

// Any grid and block: sets the flag, so the host can tell whether the kernel ran.
__global__ void mark_kernel(int* flag) { *flag = 1; }

// Any grid and block, with dynamic shared memory of at least one int.
__global__ void dynamic_smem_kernel(int* flag) {
  extern __shared__ int staged[];
  staged[0] = 1;
  *flag = staged[0];
}

// grid(1), block(1): fails its assert when v >= 0.
__global__ void assert_kernel(int v) { assert(v < 0); }

// ---- host ----

const char* name(cudaError_t e) { return cudaGetErrorName(e); }

bool ran(const int* d_flag) {
  int flag = -1;
  CUDA_CHECK(cudaMemcpy(&flag, d_flag, sizeof flag, cudaMemcpyDeviceToHost));
  return flag == 1;
}

void try_launch(const char* what, dim3 grid, dim3 block, size_t dynamic_smem, int* d_flag) {
  CUDA_CHECK(cudaMemset(d_flag, 0, sizeof(int)));
  if (dynamic_smem > 0)
    dynamic_smem_kernel<<<grid, block, dynamic_smem>>>(d_flag);
  else
    mark_kernel<<<grid, block>>>(d_flag);
  const cudaError_t peek = cudaPeekAtLastError();
  const cudaError_t last = cudaGetLastError();
  const cudaError_t again = cudaGetLastError();
  const cudaError_t sync = cudaDeviceSynchronize();
  printf("error_semantics: %-26s -> peek %s, get %s then %s, sync %s, kernel ran: %s\n", what, name(peek), name(last),
         name(again), name(sync), ran(d_flag) ? "yes" : "no");
}

int main() {
  // The codes that the lab harness and public/common/cuda_check.h name: value, name and text.
  const cudaError_t named[] = {cudaErrorLaunchFailure,       cudaErrorMisalignedAddress, cudaErrorAssert,
                               cudaErrorLaunchOutOfResources, cudaErrorNoDevice,          cudaErrorInsufficientDriver,
                               cudaErrorInitializationError,  cudaErrorMemoryAllocation,  cudaErrorInvalidValue,
                               cudaErrorInvalidConfiguration, cudaErrorIllegalAddress};
  for (const cudaError_t e : named) printf("error_semantics: %d %s \"%s\"\n", int(e), name(e), cudaGetErrorString(e));

  int* d_flag;
  CUDA_CHECK(cudaMalloc(&d_flag, sizeof(int)));
  try_launch("block (1025,1,1)", dim3(1), dim3(1025), 0, d_flag);
  try_launch("block (1,1025,1)", dim3(1), dim3(1, 1025), 0, d_flag);
  try_launch("block (1,0,1)", dim3(1), dim3(1, 0, 1), 0, d_flag);
  try_launch("block (2,1,64) valid", dim3(1), dim3(2, 1, 64), 0, d_flag);
  try_launch("grid (1,1,65536)", dim3(1, 1, 65536), dim3(32), 0, d_flag);
  try_launch("grid (1,0,1)", dim3(1, 0, 1), dim3(32), 0, d_flag);
  try_launch("dynamic smem 48 KB valid", dim3(1), dim3(32), kDefaultDynamicSmem, d_flag);
  try_launch("dynamic smem 48 KB + 1", dim3(1), dim3(32), kDefaultDynamicSmem + 1, d_flag);
  const cudaError_t too_much = cudaFuncSetAttribute(dynamic_smem_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                    int(kOptinDynamicSmem + 1));
  const cudaError_t too_much_last = cudaGetLastError();
  CUDA_CHECK(cudaFuncSetAttribute(dynamic_smem_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  int(kOptinDynamicSmem)));
  printf("error_semantics: cudaFuncSetAttribute 227 KB + 1 -> %s, get %s; 227 KB -> cudaSuccess\n", name(too_much),
         name(too_much_last));
  try_launch("dynamic smem 227 KB valid", dim3(1), dim3(32), kOptinDynamicSmem, d_flag);
  try_launch("dynamic smem 227 KB + 1", dim3(1), dim3(32), kOptinDynamicSmem + 1, d_flag);

  // A fault: seen first by the synchronizing call, then by every call.
  assert_kernel<<<1, 1>>>(1);
  const cudaError_t launch = cudaGetLastError();
  usleep(200 * 1000);  // the kernel has ended by now on a GPU too
  const cudaError_t peek = cudaPeekAtLastError();
  const cudaError_t last = cudaGetLastError();
  const cudaError_t sync = cudaDeviceSynchronize();
  const cudaError_t peek_after = cudaPeekAtLastError();
  const cudaError_t last_after = cudaGetLastError();
  const cudaError_t again_after = cudaGetLastError();
  printf("error_semantics: failed assert -> get %s, after 200 ms peek %s, get %s; sync %s, then peek %s, get %s then %s\n",
         name(launch), name(peek), name(last), name(sync), name(peek_after), name(last_after), name(again_after));
  int* more = nullptr;
  const cudaError_t malloc_error = cudaMalloc(&more, sizeof(int));
  const cudaError_t malloc_last = cudaGetLastError();
  mark_kernel<<<1, 1>>>(d_flag);
  const cudaError_t good_last = cudaGetLastError();
  const cudaError_t good_again = cudaGetLastError();
  mark_kernel<<<1, 2048>>>(d_flag);
  const cudaError_t bad_last = cudaGetLastError();
  const cudaError_t bad_again = cudaGetLastError();
  const cudaError_t sync_again = cudaDeviceSynchronize();
  printf("error_semantics: sticky -> cudaMalloc %s, get %s; valid launch get %s then %s; 2048 threads get %s then %s; "
         "sync %s\n",
         name(malloc_error), name(malloc_last), name(good_last), name(good_again), name(bad_last), name(bad_again),
         name(sync_again));

  // A reset: a fresh context without the sticky error, but this host thread's last error survives.
  const cudaError_t reset = cudaDeviceReset();
  const cudaError_t reset_last = cudaGetLastError();
  const cudaError_t reset_again = cudaGetLastError();
  printf("error_semantics: cudaDeviceReset %s, then get %s then %s\n", name(reset), name(reset_last), name(reset_again));
  return 0;
}
