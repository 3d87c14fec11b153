// CUDA_CHECK wraps every runtime call; CHECK_LAUNCH follows every kernel launch.
// Kernel launches report nothing by themselves: a bad configuration only shows in
// cudaGetLastError, and a fault inside the kernel only at the next synchronizing call.
// Build with -DLAB_DEBUG_SYNC (`make DEBUG=1`) to synchronize after every launch, so that
// a fault is reported at the launch that caused it.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "exit_codes.h"

namespace lab {

// Errors that say the program could not run at all, as opposed to errors that the code
// under test caused (a bad launch configuration, an illegal address).
inline bool is_environment_error(cudaError_t err) {
  return err == cudaErrorMemoryAllocation || err == cudaErrorNoDevice ||
         err == cudaErrorInsufficientDriver || err == cudaErrorInitializationError;
}

[[noreturn]] inline void cuda_fail(cudaError_t err, const char* expr, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: CUDA error %s (%s) in %s\n", file, line, cudaGetErrorName(err),
               cudaGetErrorString(err), expr);
  std::exit(is_environment_error(err) ? kExitCannotRun : kExitWrong);
}

}  // namespace lab

#define CUDA_CHECK(expr)                                                   \
  do {                                                                     \
    cudaError_t lab_err_ = (expr);                                         \
    if (lab_err_ != cudaSuccess) ::lab::cuda_fail(lab_err_, #expr, __FILE__, __LINE__); \
  } while (0)

#ifdef LAB_DEBUG_SYNC
#define CHECK_LAUNCH()                       \
  do {                                       \
    CUDA_CHECK(cudaGetLastError());          \
    CUDA_CHECK(cudaDeviceSynchronize());     \
  } while (0)
#else
#define CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
#endif
