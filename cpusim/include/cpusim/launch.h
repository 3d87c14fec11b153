// The targets of cpucc's source rewriting: kernel launches and __shared__ declarations.
//   k<<<grid, block, smem, stream>>>(a, b)  becomes
//   ::cpusim::launch(site, grid, block, smem, stream, <lambda that calls k(a, b)>)
//   __shared__ float tile[32][32];          becomes a reference into the block's shared arena
//   extern __shared__ float buffer[];       becomes a pointer to the block's dynamic shared memory
#pragma once
#pragma GCC system_header

#include <cstddef>
#include <type_traits>

#include "runtime_api.h"
#include "vector_types.h"

namespace cpusim {

// Where and what a launch is: the kernel's name as written, its call site, and the kernel's
// address when the rewriter could name it (for cudaFuncSetAttribute), else nullptr.
struct launch_site {
  const char* name;
  const char* file;
  int line;
  const void* key;
};

template <class R, class... P> const void* kernel_key(R (*kernel)(P...)) {
  return reinterpret_cast<const void*>(kernel);
}

namespace detail {
void launch_kernel(const launch_site& site, dim3 grid, dim3 block, size_t dynamic_smem,
                   cudaStream_t stream, void (*invoke)(const void*), const void* body);
void note_argument(int index, const void* pointer);
void* shared_alloc(const void* site, size_t size, size_t align, const char* name, const char* file, int line);
extern __thread char* dynamic_shared_base;
}  // namespace detail

template <class F> void launch(const launch_site& site, dim3 grid, dim3 block, size_t smem,
                               cudaStream_t stream, F&& body) {
  using B = std::remove_reference_t<F>;
  detail::launch_kernel(site, grid, block, smem, stream,
                        [](const void* b) { (*static_cast<const B*>(b))(); }, &body);
}
template <class F> void launch(const launch_site& site, dim3 grid, dim3 block, size_t smem, F&& body) {
  launch(site, grid, block, smem, cudaStream_t(0), static_cast<F&&>(body));
}
template <class F> void launch(const launch_site& site, dim3 grid, dim3 block, F&& body) {
  launch(site, grid, block, 0, cudaStream_t(0), static_cast<F&&>(body));
}

// Pointer arguments are checked at the launch: one that points to neither cudaMalloc'd nor
// pinned memory would be an illegal address on a GPU.
template <class... A> void check_kernel_args(const A&... args) {
  int index = 0;
  auto check = [&index](const auto& a) {
    using T = std::decay_t<decltype(a)>;
    if constexpr (std::is_pointer_v<T> && !std::is_function_v<std::remove_pointer_t<T>>)
      detail::note_argument(index, static_cast<const volatile void*>(a) == nullptr ? nullptr
                                   : const_cast<const void*>(static_cast<const volatile void*>(a)));
    ++index;
  };
  (check(args), ...);
}

// Static __shared__: every thread of a block that reaches the declaration gets the same storage,
// allocated in the block's arena the first time; `site` identifies the declaration.
template <class T, size_t Align = 16>
T& static_shared(const void* site, const char* name, const char* file, int line) {
  constexpr size_t align = alignof(T) > Align ? alignof(T) : Align;
  return *static_cast<T*>(detail::shared_alloc(site, sizeof(T), align, name, file, line));
}

// A namespace-scope __shared__ variable: a handle that finds the running block's copy.
template <class T, size_t Align = 16> struct file_shared {
  const char* name;
  const char* file;
  int line;
  T& get() const { return static_shared<T, Align>(this, name, file, line); }
  operator T&() const { return get(); }
  template <class I> decltype(auto) operator[](I i) const { return get()[i]; }
  template <class V> T& operator=(const V& v) const { return get() = v; }
};

template <class T> T* dynamic_shared() { return reinterpret_cast<T*>(detail::dynamic_shared_base); }
// Namespace-scope extern __shared__: a thread_local reference to the OS thread's current block's
// dynamic shared memory (user code is compiled with -fno-strict-aliasing for this pun).
template <class T> T* const& dynamic_shared_ref() {
  return reinterpret_cast<T* const&>(detail::dynamic_shared_base);
}

// `return;` in a kernel body is rewritten to record the line, for barrier diagnostics.
void kernel_return(const char* file, int line);

}  // namespace cpusim
