// vector_types: float2/float4/int2/int4 with make_*, CUDA's sizes and alignments (a float4 is one
// 16-byte access, so a float* may be reinterpreted as float4*), and __ldg.
// Expected: the same line on the CPU backend and on a GPU.
#include "check.cuh"

static_assert(sizeof(float4) == 16 && alignof(float4) == 16, "float4 is 16 bytes, 16-aligned");
static_assert(sizeof(int4) == 16 && alignof(int4) == 16, "int4 is 16 bytes, 16-aligned");
static_assert(sizeof(float2) == 8 && alignof(float2) == 8, "float2 is 8 bytes, 8-aligned");
static_assert(sizeof(int2) == 8 && alignof(int2) == 8, "int2 is 8 bytes, 8-aligned");
static_assert(sizeof(float3) == 12, "float3 is 12 bytes");

// grid(1), block(64): thread t sums the 4-vector t of `in` (read as float4 through __ldg) and
// writes it into out as a float2 (sum, t) and an int4.
__global__ void vector_types_kernel(const float* __restrict__ in, float2* out2, int4* out4) {
  const int t = threadIdx.x;
  const float4 v = __ldg(reinterpret_cast<const float4*>(in) + t);
  const float s = v.x + v.y + v.z + v.w;
  out2[t] = make_float2(s, (float)t);
  const int2 p = make_int2((int)v.x, (int)v.w);
  out4[t] = make_int4(p.x, p.y, (int)s, t);
}

int main() {
  const int n = 64;
  float h_in[4 * n];
  for (int i = 0; i < 4 * n; ++i) h_in[i] = (float)(i % 17);
  float* d_in;
  float2* d_out2;
  int4* d_out4;
  CUDA_CHECK(cudaMalloc(&d_in, sizeof h_in));
  CUDA_CHECK(cudaMalloc(&d_out2, n * sizeof(float2)));
  CUDA_CHECK(cudaMalloc(&d_out4, n * sizeof(int4)));
  CUDA_CHECK(cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
  vector_types_kernel<<<1, n>>>(d_in, d_out2, d_out4);
  CUDA_CHECK(cudaGetLastError());
  float2 h2[n];
  int4 h4[n];
  CUDA_CHECK(cudaMemcpy(h2, d_out2, sizeof h2, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(h4, d_out4, sizeof h4, cudaMemcpyDeviceToHost));
  long long sum = 0;
  for (int t = 0; t < n; ++t) sum += (long long)h2[t].x * (t + 1) + h4[t].x + 3 * h4[t].y + h4[t].z - h4[t].w;
  printf("vector_types: ok float4 %zu/%zu int2 %zu/%zu checksum %lld\n", sizeof(float4), alignof(float4),
         sizeof(int2), alignof(int2), sum);
  return 0;
}
