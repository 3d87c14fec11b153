// warp_ops: the shuffles (__shfl_sync, _up, _down, _xor) on int, unsigned, float, double and
// long long, with and without a width, and the votes (__ballot_sync, __any_sync, __all_sync,
// __activemask). One warp; lane l starts with the value l.
// Expected: the same lines on the CPU backend and on a GPU.
#include "check.cuh"

constexpr int RESULTS = 12;

__global__ void warp_ops_kernel(long long* out) {
  const int lane = threadIdx.x;
  const unsigned full = 0xffffffffu;
  long long* r = out + lane * RESULTS;
  r[0] = __shfl_sync(full, lane * 10, 3);                           // int, broadcast
  r[1] = __shfl_up_sync(full, (unsigned)lane, 2);                   // unsigned, lanes 0-1 keep
  r[2] = (long long)__shfl_down_sync(full, lane * 0.5f, 4);         // float, lanes 28-31 keep
  r[3] = (long long)(__shfl_xor_sync(full, lane * 2.0, 1) * 10);    // double, pairs swap
  r[4] = __shfl_sync(full, (long long)lane << 33, 31) >> 33;        // long long
  r[5] = __shfl_down_sync(full, lane, 1, 8);                        // width 8: segment ends keep
  r[6] = __shfl_sync(full, lane, 2, 8);                             // width 8: lane 2 of each segment
  r[7] = __ballot_sync(full, lane % 3 == 0);
  r[8] = __any_sync(full, lane == 17);
  r[9] = __all_sync(full, lane < 31);
  unsigned active = 0;
  if (lane % 2 == 0) active = __activemask();  // the even lanes reach it together
  r[10] = active;
  r[11] = 0;
  if (lane < 16) r[11] = __ballot_sync(0x0000ffffu, lane % 4 == 0);  // only the low half takes part
}

int main() {
  long long* d;
  long long h[32 * RESULTS];
  CUDA_CHECK(cudaMalloc(&d, sizeof h));
  warp_ops_kernel<<<1, 32>>>(d);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  const char* names[RESULTS] = {"shfl_int", "shfl_up_unsigned", "shfl_down_float", "shfl_xor_double_x10",
                                "shfl_longlong", "shfl_down_width8", "shfl_width8", "ballot",
                                "any", "all", "activemask_even", "ballot_low16"};
  for (int k = 0; k < RESULTS; ++k) {
    printf("warp_ops: %s:", names[k]);
    for (int lane = 0; lane < 32; lane += (k >= 7 ? 31 : 5)) printf(" %lld", h[lane * RESULTS + k]);
    printf("\n");
  }
  return 0;
}
