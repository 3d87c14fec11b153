// What device code sees: the built-in index variables, barriers, warp operations, atomics and
// the CUDA-only math functions. Each CUDA thread is a fiber; a block runs on one OS thread.
#pragma once
#pragma GCC system_header

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "vector_types.h"

// The scheduler stores the running fiber's indices here before it resumes the fiber, so reading
// threadIdx costs one thread-local load. __thread (not thread_local) keeps that load direct.
extern __thread uint3 threadIdx;
extern __thread uint3 blockIdx;
extern __thread dim3 blockDim;
extern __thread dim3 gridDim;
constexpr int warpSize = 32;

namespace cpusim::detail {

// Barrier kinds; the warp operations are described by one request so that the runtime can
// match the lanes of a warp that meet at the same call. barrier_grid is a grid-wide barrier
// (cooperative_groups' this_grid().sync()): the block's barrier, then every block's.
enum barrier_kind { barrier_plain, barrier_count, barrier_and, barrier_or, barrier_grid };
int barrier(barrier_kind kind, int predicate, const char* file, int line);
// A barrier of the `size` threads (a power of 2, 64 to 1024) of the calling thread's tile:
// cooperative_groups' tiles of several warps (tile_sync: sync.cpp). Their cg::reduce exchanges
// the warps' values through tile_scratch, a slot of 64 bytes per warp of the block.
void tile_sync(unsigned size, const char* file, int line);
void* tile_scratch();
bool in_cooperative_launch();

enum warp_op { shfl_idx, shfl_up, shfl_down, shfl_xor, vote_ballot, vote_any, vote_all, sync_warp, active_mask };
unsigned long long warp_sync_op(warp_op op, unsigned mask, unsigned long long value, int param, int width,
                                const char* file, int line);

template <class T> unsigned long long to_bits(T v) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value, "warp shuffles move values of at most 8 bytes");
  unsigned long long bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  return bits;
}
template <class T> T from_bits(unsigned long long bits) {
  T v;
  std::memcpy(&v, &bits, sizeof(T));
  return v;
}

}  // namespace cpusim::detail

// ---- barriers ----
inline void __syncthreads(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  cpusim::detail::barrier(cpusim::detail::barrier_plain, 0, file, line);
}
inline int __syncthreads_count(int p, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return cpusim::detail::barrier(cpusim::detail::barrier_count, p, file, line);
}
inline int __syncthreads_and(int p, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return cpusim::detail::barrier(cpusim::detail::barrier_and, p, file, line);
}
inline int __syncthreads_or(int p, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return cpusim::detail::barrier(cpusim::detail::barrier_or, p, file, line);
}
inline void __syncwarp(unsigned mask = 0xffffffffu, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  cpusim::detail::warp_sync_op(cpusim::detail::sync_warp, mask, 0, 0, 32, file, line);
}
// Blocks run one at a time per OS thread, and global memory is coherent host memory.
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __nanosleep(unsigned) {}
inline long long clock64() { return (long long)__builtin_ia32_rdtsc(); }

// ---- warp operations ----
#define CPUSIM_SITE const char *file = __builtin_FILE(), int line = __builtin_LINE()
template <class T> T __shfl_sync(unsigned mask, T var, int src_lane, int width = warpSize, CPUSIM_SITE) {
  using namespace cpusim::detail;
  return from_bits<T>(warp_sync_op(shfl_idx, mask, to_bits(var), src_lane, width, file, line));
}
template <class T> T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize, CPUSIM_SITE) {
  using namespace cpusim::detail;
  return from_bits<T>(warp_sync_op(shfl_up, mask, to_bits(var), (int)delta, width, file, line));
}
template <class T> T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize, CPUSIM_SITE) {
  using namespace cpusim::detail;
  return from_bits<T>(warp_sync_op(shfl_down, mask, to_bits(var), (int)delta, width, file, line));
}
template <class T> T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = warpSize, CPUSIM_SITE) {
  using namespace cpusim::detail;
  return from_bits<T>(warp_sync_op(shfl_xor, mask, to_bits(var), lane_mask, width, file, line));
}
inline unsigned __ballot_sync(unsigned mask, int predicate, CPUSIM_SITE) {
  return (unsigned)cpusim::detail::warp_sync_op(cpusim::detail::vote_ballot, mask, predicate != 0, 0, 32, file, line);
}
inline int __any_sync(unsigned mask, int predicate, CPUSIM_SITE) {
  return (int)cpusim::detail::warp_sync_op(cpusim::detail::vote_any, mask, predicate != 0, 0, 32, file, line);
}
inline int __all_sync(unsigned mask, int predicate, CPUSIM_SITE) {
  return (int)cpusim::detail::warp_sync_op(cpusim::detail::vote_all, mask, predicate != 0, 0, 32, file, line);
}
// The lanes that reach this call together: the runtime waits until every other lane of the warp
// is here or blocked elsewhere, as converged lanes would on a GPU.
inline unsigned __activemask(CPUSIM_SITE) {
  return (unsigned)cpusim::detail::warp_sync_op(cpusim::detail::active_mask, 0, 0, 0, 32, file, line);
}
#undef CPUSIM_SITE

// ---- atomics: relaxed, like CUDA's, and visible to ThreadSanitizer as atomics ----
// The count flavor (src/access_count.cpp) counts each one as an atomic, and the loads and
// stores of its implementation as nothing.
#if defined(CPUSIM_COUNT_ACCESSES)
namespace cpusim::detail {
struct counted_atomic {
  counted_atomic(const void* address, unsigned size);
  ~counted_atomic();
};
}  // namespace cpusim::detail
#define CPUSIM_NOTE_ATOMIC(a) const cpusim::detail::counted_atomic counted_atomic_(a, sizeof *(a))
#else
#define CPUSIM_NOTE_ATOMIC(a) ((void)0)
#endif
namespace cpusim::detail {
template <class T, class F> T atomic_update(T* address, F update) {
  CPUSIM_NOTE_ATOMIC(address);
  using bits_t = std::conditional_t<sizeof(T) == 4, unsigned, unsigned long long>;
  static_assert(sizeof(T) == sizeof(bits_t), "atomics work on 4- and 8-byte values");
  bits_t* word = reinterpret_cast<bits_t*>(address);
  bits_t old_bits = __atomic_load_n(word, __ATOMIC_RELAXED);
  for (;;) {
    T old_value;
    std::memcpy(&old_value, &old_bits, sizeof(T));
    T new_value = update(old_value);
    bits_t new_bits;
    std::memcpy(&new_bits, &new_value, sizeof(T));
    if (__atomic_compare_exchange_n(word, &old_bits, new_bits, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      return old_value;
  }
}
}  // namespace cpusim::detail

// Exactly CUDA's overloads, so that what compiles here compiles with nvcc: there is no
// atomicMin on float, no atomicSub on 64-bit integers, no atomicAdd on long long.
#define CPUSIM_ATOMIC_OP(T, name, builtin) \
  inline T name(T* a, T v) {                 \
    CPUSIM_NOTE_ATOMIC(a);                   \
    return builtin(a, v, __ATOMIC_RELAXED);  \
  }
#define CPUSIM_ATOMIC_MINMAX(T)                                                                   \
  inline T atomicMin(T* a, T v) { return cpusim::detail::atomic_update(a, [v](T o) { return o < v ? o : v; }); } \
  inline T atomicMax(T* a, T v) { return cpusim::detail::atomic_update(a, [v](T o) { return o > v ? o : v; }); }
#define CPUSIM_ATOMIC_BITS(T)                                                                     \
  CPUSIM_ATOMIC_OP(T, atomicAnd, __atomic_fetch_and)                                             \
  CPUSIM_ATOMIC_OP(T, atomicOr, __atomic_fetch_or)                                               \
  CPUSIM_ATOMIC_OP(T, atomicXor, __atomic_fetch_xor)
#define CPUSIM_ATOMIC_EXCH_CAS(T)                                                                 \
  CPUSIM_ATOMIC_OP(T, atomicExch, __atomic_exchange_n)                                           \
  inline T atomicCAS(T* a, T compare, T v) {                                                     \
    CPUSIM_NOTE_ATOMIC(a);                                                                       \
    __atomic_compare_exchange_n(a, &compare, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);      \
    return compare;                                                                              \
  }
CPUSIM_ATOMIC_OP(int, atomicAdd, __atomic_fetch_add)
CPUSIM_ATOMIC_OP(int, atomicSub, __atomic_fetch_sub)
CPUSIM_ATOMIC_MINMAX(int)
CPUSIM_ATOMIC_BITS(int)
CPUSIM_ATOMIC_EXCH_CAS(int)
CPUSIM_ATOMIC_OP(unsigned int, atomicAdd, __atomic_fetch_add)
CPUSIM_ATOMIC_OP(unsigned int, atomicSub, __atomic_fetch_sub)
CPUSIM_ATOMIC_MINMAX(unsigned int)
CPUSIM_ATOMIC_BITS(unsigned int)
CPUSIM_ATOMIC_EXCH_CAS(unsigned int)
CPUSIM_ATOMIC_OP(unsigned long long, atomicAdd, __atomic_fetch_add)
CPUSIM_ATOMIC_MINMAX(unsigned long long)
CPUSIM_ATOMIC_BITS(unsigned long long)
CPUSIM_ATOMIC_EXCH_CAS(unsigned long long)
CPUSIM_ATOMIC_MINMAX(long long)
CPUSIM_ATOMIC_BITS(long long)
#undef CPUSIM_ATOMIC_OP
#undef CPUSIM_ATOMIC_MINMAX
#undef CPUSIM_ATOMIC_BITS
#undef CPUSIM_ATOMIC_EXCH_CAS

inline unsigned short atomicCAS(unsigned short* a, unsigned short compare, unsigned short v) {
  CPUSIM_NOTE_ATOMIC(a);
  __atomic_compare_exchange_n(a, &compare, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return compare;
}
inline float atomicAdd(float* a, float v) { return cpusim::detail::atomic_update(a, [v](float o) { return o + v; }); }
inline double atomicAdd(double* a, double v) { return cpusim::detail::atomic_update(a, [v](double o) { return o + v; }); }
inline float atomicExch(float* a, float v) { return cpusim::detail::atomic_update(a, [v](float) { return v; }); }
inline unsigned atomicInc(unsigned* a, unsigned limit) {
  return cpusim::detail::atomic_update(a, [limit](unsigned o) { return o >= limit ? 0u : o + 1; });
}
inline unsigned atomicDec(unsigned* a, unsigned limit) {
  return cpusim::detail::atomic_update(a, [limit](unsigned o) { return (o == 0 || o > limit) ? limit : o - 1; });
}
#define CPUSIM_SCOPED_ATOMICS(name) \
  template <class... A> auto name##_block(A... a) { return name(a...); } \
  template <class... A> auto name##_system(A... a) { return name(a...); }
CPUSIM_SCOPED_ATOMICS(atomicAdd)
CPUSIM_SCOPED_ATOMICS(atomicSub)
CPUSIM_SCOPED_ATOMICS(atomicExch)
CPUSIM_SCOPED_ATOMICS(atomicMin)
CPUSIM_SCOPED_ATOMICS(atomicMax)
CPUSIM_SCOPED_ATOMICS(atomicCAS)
#undef CPUSIM_SCOPED_ATOMICS

// ---- loads and stores with cache hints: plain accesses on a CPU ----
template <class T> inline T __ldg(const T* p) { return *p; }
template <class T> inline T __ldcg(const T* p) { return *p; }
template <class T> inline T __ldca(const T* p) { return *p; }
template <class T> inline T __ldcs(const T* p) { return *p; }
template <class T> inline T __ldlu(const T* p) { return *p; }
template <class T> inline T __ldcv(const T* p) { return *p; }
template <class T> inline void __stwb(T* p, T v) { *p = v; }
template <class T> inline void __stcg(T* p, T v) { *p = v; }
template <class T> inline void __stcs(T* p, T v) { *p = v; }
template <class T> inline void __stwt(T* p, T v) { *p = v; }

// ---- math: CUDA's intrinsics map to the C library; the _rn variants round to nearest ----
inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
inline float __fmaf_rz(float a, float b, float c) { return fmaf(a, b, c); }
inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __frcp_rn(float a) { return 1.0f / a; }
inline float __fsqrt_rn(float a) { return sqrtf(a); }
inline float __frsqrt_rn(float a) { return 1.0f / sqrtf(a); }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __ddiv_rn(double a, double b) { return a / b; }
inline float __fdividef(float a, float b) { return a / b; }
inline float fdividef(float a, float b) { return a / b; }
inline float rsqrtf(float a) { return 1.0f / sqrtf(a); }
inline double rsqrt(double a) { return 1.0 / sqrt(a); }
inline float rcbrtf(float a) { return 1.0f / cbrtf(a); }
inline float __expf(float a) { return expf(a); }
inline float __exp10f(float a) { return exp10f(a); }
inline float __logf(float a) { return logf(a); }
inline float __log2f(float a) { return log2f(a); }
inline float __log10f(float a) { return log10f(a); }
inline float __sinf(float a) { return sinf(a); }
inline float __cosf(float a) { return cosf(a); }
inline float __tanf(float a) { return tanf(a); }
inline void __sincosf(float a, float* s, float* c) { sincosf(a, s, c); }
inline float __powf(float a, float b) { return powf(a, b); }
inline float __saturatef(float a) { return a < 0.0f ? 0.0f : (a > 1.0f ? 1.0f : (a == a ? a : 0.0f)); }
inline float saturatef(float a) { return __saturatef(a); }
inline float normcdff(float a) { return 0.5f * erfcf(-a * 0.70710678f); }

inline int __float_as_int(float f) { int i; std::memcpy(&i, &f, 4); return i; }
inline unsigned __float_as_uint(float f) { unsigned i; std::memcpy(&i, &f, 4); return i; }
inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
inline float __uint_as_float(unsigned i) { float f; std::memcpy(&f, &i, 4); return f; }
inline long long __double_as_longlong(double d) { long long i; std::memcpy(&i, &d, 8); return i; }
inline double __longlong_as_double(long long i) { double d; std::memcpy(&d, &i, 8); return d; }
inline int __float2int_rn(float f) { return (int)nearbyintf(f); }
inline int __float2int_rz(float f) { return (int)f; }
inline int __float2int_rd(float f) { return (int)floorf(f); }
inline int __float2int_ru(float f) { return (int)ceilf(f); }
inline unsigned __float2uint_rn(float f) { return (unsigned)nearbyintf(f); }
inline float __int2float_rn(int i) { return (float)i; }
inline float __uint2float_rn(unsigned i) { return (float)i; }
inline float __double2float_rn(double d) { return (float)d; }

inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  return __builtin_bswap32(x);
}
inline int __mul24(int a, int b) { return (int)((long long)(a << 8 >> 8) * (b << 8 >> 8)); }
inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }
inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}

// CUDA's min and max overloads, which host code sees too.
#define CPUSIM_MINMAX(R, A, B)                                                                    \
  inline R min(A a, B b) { return (R)a < (R)b ? (R)a : (R)b; }                                    \
  inline R max(A a, B b) { return (R)a > (R)b ? (R)a : (R)b; }
CPUSIM_MINMAX(int, int, int)
CPUSIM_MINMAX(unsigned, unsigned, unsigned)
CPUSIM_MINMAX(unsigned, int, unsigned)
CPUSIM_MINMAX(unsigned, unsigned, int)
CPUSIM_MINMAX(long, long, long)
CPUSIM_MINMAX(unsigned long, unsigned long, unsigned long)
CPUSIM_MINMAX(long long, long long, long long)
CPUSIM_MINMAX(unsigned long long, unsigned long long, unsigned long long)
CPUSIM_MINMAX(unsigned long long, long long, unsigned long long)
CPUSIM_MINMAX(unsigned long long, unsigned long long, long long)
#undef CPUSIM_MINMAX
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }
inline double min(double a, double b) { return fmin(a, b); }
inline double max(double a, double b) { return fmax(a, b); }
inline double min(float a, double b) { return fmin(a, b); }
inline double max(float a, double b) { return fmax(a, b); }
inline double min(double a, float b) { return fmin(a, b); }
inline double max(double a, float b) { return fmax(a, b); }
