#include "harness/host_copies.h"

#include <cuda_runtime.h>

#include <atomic>

#if defined(__CPUSIM__)

unsigned long long lab::host_device_copies() { return cpusim::host_device_copies(); }

#else

namespace {
std::atomic<unsigned long long> copies{0};

void count(cudaMemcpyKind kind) {
  if (kind != cudaMemcpyDeviceToDevice) ++copies;
}
}  // namespace

unsigned long long lab::host_device_copies() { return copies.load(); }

// The linker sends every call to cudaMemcpy... here (--wrap=cudaMemcpy...), and __real_... is
// the runtime's own function.
extern "C" {
#define WRAPPED(name, params, args, kind)         \
  cudaError_t __real_##name params;               \
  cudaError_t __wrap_##name params {              \
    count(kind);                                  \
    return __real_##name args;                    \
  }
WRAPPED(cudaMemcpy, (void* dst, const void* src, size_t n, cudaMemcpyKind k), (dst, src, n, k), k)
WRAPPED(cudaMemcpyAsync, (void* dst, const void* src, size_t n, cudaMemcpyKind k, cudaStream_t s),
        (dst, src, n, k, s), k)
WRAPPED(cudaMemcpy2D, (void* dst, size_t dp, const void* src, size_t sp, size_t w, size_t h, cudaMemcpyKind k),
        (dst, dp, src, sp, w, h, k), k)
WRAPPED(cudaMemcpy2DAsync,
        (void* dst, size_t dp, const void* src, size_t sp, size_t w, size_t h, cudaMemcpyKind k, cudaStream_t s),
        (dst, dp, src, sp, w, h, k, s), k)
WRAPPED(cudaMemcpyToSymbol, (const void* sym, const void* src, size_t n, size_t off, cudaMemcpyKind k),
        (sym, src, n, off, k), k)
WRAPPED(cudaMemcpyFromSymbol, (void* dst, const void* sym, size_t n, size_t off, cudaMemcpyKind k),
        (dst, sym, n, off, k), k)
WRAPPED(cudaMemcpyToSymbolAsync,
        (const void* sym, const void* src, size_t n, size_t off, cudaMemcpyKind k, cudaStream_t s),
        (sym, src, n, off, k, s), k)
WRAPPED(cudaMemcpyFromSymbolAsync,
        (void* dst, const void* sym, size_t n, size_t off, cudaMemcpyKind k, cudaStream_t s),
        (dst, sym, n, off, k, s), k)
#undef WRAPPED
}

#endif
