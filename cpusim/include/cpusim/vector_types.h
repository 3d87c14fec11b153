// CUDA's built-in vector types (uint3, dim3, float4, ...) and their make_* constructors.
// Sizes and alignments are CUDA's: a float4 is 16-byte aligned, so code that loads it with one
// 128-bit access, or reinterpret_casts a float* to float4*, meets the same rules as on a GPU.
#pragma once
#pragma GCC system_header

#define CPUSIM_VECTOR_TYPES(T, N, A2, A4)                                                         \
  struct N##1 { T x; };                                                                          \
  struct __attribute__((aligned(A2))) N##2 { T x, y; };                                          \
  struct N##3 { T x, y, z; };                                                                    \
  struct __attribute__((aligned(A4))) N##4 { T x, y, z, w; };                                    \
  inline constexpr N##1 make_##N##1(T x) { return N##1{x}; }                                     \
  inline constexpr N##2 make_##N##2(T x, T y) { return N##2{x, y}; }                             \
  inline constexpr N##3 make_##N##3(T x, T y, T z) { return N##3{x, y, z}; }                     \
  inline constexpr N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }

CPUSIM_VECTOR_TYPES(signed char, char, 2, 4)
CPUSIM_VECTOR_TYPES(unsigned char, uchar, 2, 4)
CPUSIM_VECTOR_TYPES(short, short, 4, 8)
CPUSIM_VECTOR_TYPES(unsigned short, ushort, 4, 8)
CPUSIM_VECTOR_TYPES(int, int, 8, 16)
CPUSIM_VECTOR_TYPES(unsigned int, uint, 8, 16)
CPUSIM_VECTOR_TYPES(long, long, 16, 16)
CPUSIM_VECTOR_TYPES(unsigned long, ulong, 16, 16)
CPUSIM_VECTOR_TYPES(long long, longlong, 16, 16)
CPUSIM_VECTOR_TYPES(unsigned long long, ulonglong, 16, 16)
CPUSIM_VECTOR_TYPES(float, float, 8, 16)
CPUSIM_VECTOR_TYPES(double, double, 16, 16)
#undef CPUSIM_VECTOR_TYPES

static_assert(sizeof(float4) == 16 && alignof(float4) == 16, "float4 must match CUDA's layout");
static_assert(sizeof(float3) == 12 && alignof(float3) == 4, "float3 must match CUDA's layout");

// dim3 is a uint3 whose unspecified components are 1.
struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};
