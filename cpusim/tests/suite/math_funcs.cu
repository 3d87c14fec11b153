// math_funcs: the math the labs use in device code. The GPU's fast intrinsics (__expf, rsqrtf)
// are approximate, so values are printed with 4 significant digits.
// Expected: the same lines on the CPU backend and on a GPU.
#include "check.cuh"

constexpr int RESULTS = 16;

__global__ void math_kernel(float x, float y, float* out, int* bits) {
  out[0] = fmaf(x, y, 1.0f);
  out[1] = __fmaf_rn(x, y, -1.0f);
  out[2] = sqrtf(x);
  out[3] = rsqrtf(x);
  out[4] = fminf(x, y);
  out[5] = fmaxf(x, y);
  out[6] = fabsf(-y);
  out[7] = expf(y);
  out[8] = __expf(y);
  out[9] = min(x, y);
  out[10] = max(x, y);
  out[11] = (float)min(3, -4);
  out[12] = (float)max(3u, 4u);
  out[13] = __int_as_float(__float_as_int(x));
  out[14] = logf(x) + sinf(y) + cosf(y) + tanhf(y);
  out[15] = __fdividef(x, y) + powf(x, 0.5f) + floorf(y) + ceilf(y);
  bits[0] = __float_as_int(1.0f);
  bits[1] = __popc(0xF0F0u);
  bits[2] = __clz(1);
  bits[3] = __ffs(8);
}

int main() {
  float* d_out;
  int* d_bits;
  CUDA_CHECK(cudaMalloc(&d_out, RESULTS * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_bits, 4 * sizeof(int)));
  math_kernel<<<1, 1>>>(2.25f, 0.75f, d_out, d_bits);
  CUDA_CHECK(cudaGetLastError());
  float out[RESULTS];
  int bits[4];
  CUDA_CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(bits, d_bits, sizeof bits, cudaMemcpyDeviceToHost));
  printf("math_funcs:");
  for (float v : out) printf(" %.4g", v);
  printf("\nmath_funcs: bits 0x%08x popc=%d clz=%d ffs=%d\n", bits[0], bits[1], bits[2], bits[3]);
  return 0;
}
