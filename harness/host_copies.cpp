#include "harness/host_copies.h"

#include <cuda_runtime.h>

#include <atomic>

#if defined(__CPUSIM__)

unsigned long long lab::host_device_copies() { return cpusim::host_device_copies(); }

#else

namespace {
std::atomic<unsigned long long> copies{0};

bool device_memory(const void* p) {
  cudaPointerAttributes a;
  return cudaPointerGetAttributes(&a, p) == cudaSuccess && a.type == cudaMemoryTypeDevice;
}

// cudaMemcpyDefault goes by where the pointers point, as the CPU backend does; a null pointer
// stands for a symbol, which is device memory.
void count(cudaMemcpyKind kind, const void* dst, const void* src) {
  auto on_device = [](const void* p) { return p == nullptr || device_memory(p); };
  const bool host = kind == cudaMemcpyDefault ? !(on_device(dst) && on_device(src)) : kind != cudaMemcpyDeviceToDevice;
  if (host) ++copies;
}
}  // namespace

unsigned long long lab::host_device_copies() { return copies.load(); }

// The linker sends every call to cudaMemcpy... here (--wrap=cudaMemcpy...), and __real_... is
// the runtime's own function.
extern "C" {
// The symbol copies pass nullptr for the symbol's side.
#define WRAPPED(name, params, args, dst, src)     \
  cudaError_t __real_##name params;               \
  cudaError_t __wrap_##name params {              \
    count(k, dst, src);                           \
    return __real_##name args;                    \
  }
WRAPPED(cudaMemcpy, (void* dst, const void* src, size_t n, cudaMemcpyKind k), (dst, src, n, k), dst, src)
WRAPPED(cudaMemcpyAsync, (void* dst, const void* src, size_t n, cudaMemcpyKind k, cudaStream_t s),
        (dst, src, n, k, s), dst, src)
WRAPPED(cudaMemcpy2D, (void* dst, size_t dp, const void* src, size_t sp, size_t w, size_t h, cudaMemcpyKind k),
        (dst, dp, src, sp, w, h, k), dst, src)
WRAPPED(cudaMemcpy2DAsync,
        (void* dst, size_t dp, const void* src, size_t sp, size_t w, size_t h, cudaMemcpyKind k, cudaStream_t s),
        (dst, dp, src, sp, w, h, k, s), dst, src)
WRAPPED(cudaMemcpyToSymbol, (const void* sym, const void* src, size_t n, size_t off, cudaMemcpyKind k),
        (sym, src, n, off, k), nullptr, src)
WRAPPED(cudaMemcpyFromSymbol, (void* dst, const void* sym, size_t n, size_t off, cudaMemcpyKind k),
        (dst, sym, n, off, k), dst, nullptr)
WRAPPED(cudaMemcpyToSymbolAsync,
        (const void* sym, const void* src, size_t n, size_t off, cudaMemcpyKind k, cudaStream_t s),
        (sym, src, n, off, k, s), nullptr, src)
WRAPPED(cudaMemcpyFromSymbolAsync,
        (void* dst, const void* sym, size_t n, size_t off, cudaMemcpyKind k, cudaStream_t s),
        (dst, sym, n, off, k, s), dst, nullptr)
#undef WRAPPED
}

#endif
