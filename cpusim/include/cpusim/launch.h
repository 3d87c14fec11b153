// The targets of cpucc's source rewriting: kernel launches and __shared__ declarations.
//   k<<<grid, block, smem, stream>>>(a, b)  becomes
//   ::cpusim::launch(site, grid, block, smem, stream, <lambda that calls k(a, b)>)
//   __shared__ float tile[32][32];          becomes a reference into the block's shared arena
//   extern __shared__ float buffer[];       becomes a pointer to the block's dynamic shared memory
#pragma once
#pragma GCC system_header

#include <cstddef>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>

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
// Runs the grid and returns when it is done: a launch error (the kernel did not run), or
// cudaSuccess (a fault while it ran becomes the sticky error, as on a GPU).
cudaError_t launch_kernel(const launch_site& site, dim3 grid, dim3 block, size_t dynamic_smem,
                          cudaStream_t stream, void (*invoke)(const void*), const void* body, bool cooperative = false);
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

// ---- cudaLaunchKernel and cudaLaunchCooperativeKernel ----
// CUDA code passes the kernel as a void* and its arguments as an array of pointers to them. A
// void* hides the kernel's parameters, which a CPU call needs, so cpucc's rewriter hands these
// calls the kernel itself, as it was written before its cast to void*, with its name and the
// call's line: cudaLaunchKernel((void*)k, ...) is compiled as
// cudaLaunchKernel(::cpusim::name_kernel("k", __builtin_FILE(), __builtin_LINE(), k), ...).
template <class F> struct named_kernel {
  const char* name;
  const char* file;
  int line;
  F* kernel;
};
template <class F> named_kernel<F> name_kernel(const char* name, const char* file, int line, F* kernel) {
  return {name, file, line, kernel};
}

namespace detail {
cudaError_t bad_launch_arguments(const launch_site& site, int index);  // a null args or args[index]

// An argument as CUDA copies it: the bytes of the parameter's type at the pointer.
template <class T> T kernel_argument(void* p) {
  if constexpr (std::is_trivially_copyable_v<T>) {
    T value;
    std::memcpy(static_cast<void*>(&value), p, sizeof(T));
    return value;
  } else {
    return *static_cast<T*>(p);
  }
}

template <class... P, size_t... I>
cudaError_t launch_with_arguments(const named_kernel<void(P...)>& k, std::index_sequence<I...>, dim3 grid, dim3 block,
                                  void** args, size_t smem, cudaStream_t stream, bool cooperative) {
  const launch_site site{k.name, k.file, k.line, kernel_key(k.kernel)};
  if constexpr (sizeof...(P) > 0) {
    if (args == nullptr) return bad_launch_arguments(site, -1);
    for (int i = 0; i < int(sizeof...(P)); ++i)
      if (args[i] == nullptr) return bad_launch_arguments(site, i);
  }
  // The launch returns when the grid is done, so the threads can read the values from here.
  const std::tuple<std::decay_t<P>...> values{kernel_argument<std::decay_t<P>>(args[I])...};
  check_kernel_args(std::get<I>(values)...);
  void (*const kernel)(P...) = k.kernel;
  const auto body = [&values, kernel] { kernel(std::get<I>(values)...); };
  using B = decltype(body);
  return launch_kernel(site, grid, block, smem, stream, [](const void* b) { (*static_cast<const B*>(b))(); }, &body,
                       cooperative);
}

template <class... F> struct needs_kernel { static constexpr bool value = false; };
}  // namespace detail

}  // namespace cpusim

// A cooperative launch: all of the grid's blocks resident at once, so that this_grid().sync()
// can open; a grid larger than the device holds fails with cudaErrorCooperativeLaunchTooLarge.
template <class... P>
cudaError_t cudaLaunchCooperativeKernel(cpusim::named_kernel<void(P...)> kernel, dim3 grid, dim3 block, void** args,
                                        size_t sharedMem = 0, cudaStream_t stream = 0) {
  return cpusim::detail::launch_with_arguments(kernel, std::index_sequence_for<P...>{}, grid, block, args, sharedMem,
                                               stream, true);
}
template <class... P>
cudaError_t cudaLaunchKernel(cpusim::named_kernel<void(P...)> kernel, dim3 grid, dim3 block, void** args,
                             size_t sharedMem = 0, cudaStream_t stream = 0) {
  return cpusim::detail::launch_with_arguments(kernel, std::index_sequence_for<P...>{}, grid, block, args, sharedMem,
                                               stream, false);
}
// The kernel as a void* the rewriter could not look behind (a variable), or an unrewritten call.
#define CPUSIM_KERNEL_AS_VOID_POINTER(name)                                                                         \
  template <class F, class... A, std::enable_if_t<!std::is_function_v<F>, int> = 0>                              \
  cudaError_t name(cpusim::named_kernel<F>, A...) {                                                                \
    static_assert(cpusim::detail::needs_kernel<F>::value,                                                         \
                  #name ": the CPU backend (cpusim) needs the kernel itself as the first argument (its name, cast " \
                  "to void* or not), to know its parameters; a void* variable hides them");                        \
    return cudaErrorInvalidDeviceFunction;                                                                          \
  }                                                                                                                 \
  template <class... A> cudaError_t name(const void*, A...) {                                                      \
    static_assert(cpusim::detail::needs_kernel<A...>::value,                                                      \
                  #name ": the CPU backend (cpusim) needs the kernel itself as the first argument, which cpucc "   \
                  "passes when it compiles the call (call it from a .cu or .cpp file that cpucc compiles)");      \
    return cudaErrorInvalidDeviceFunction;                                                                          \
  }
CPUSIM_KERNEL_AS_VOID_POINTER(cudaLaunchCooperativeKernel)
CPUSIM_KERNEL_AS_VOID_POINTER(cudaLaunchKernel)
#undef CPUSIM_KERNEL_AS_VOID_POINTER

namespace cpusim {

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
