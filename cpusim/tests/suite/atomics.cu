// atomics: CUDA's atomics on int, unsigned and unsigned long long (Add, Sub, Min, Max, Exch, CAS,
// as each type has them), atomicAdd and atomicExch on float, atomicAdd on double, each hammered
// by 4 blocks of 256 threads at once. (CUDA has no atomicMin/Max/CAS on float: a float CAS loop
// goes through __float_as_int, as below.)
// Expected: the same line on the CPU backend and on a GPU.
#include "check.cuh"

struct counters {
  int i_add, i_sub, i_min, i_max, i_exch_seen, i_cas;
  unsigned u_add, u_sub, u_min, u_max;
  unsigned long long ull_add, ull_max, ull_cas;
  float f_add, f_exch_seen, f_max;
  double d_add;
};

// grid(4), block(256): thread t (global index) contributes t or t+1 to every counter.
__global__ void atomics_kernel(counters* c) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&c->i_add, t);
  atomicSub(&c->i_sub, 1);
  atomicMin(&c->i_min, 500 - t);
  atomicMax(&c->i_max, t - 500);
  atomicExch(&c->i_exch_seen, 1);
  atomicCAS(&c->i_cas, 0, t + 1);  // exactly one thread wins
  atomicAdd(&c->u_add, 2u);
  atomicSub(&c->u_sub, 1u);
  atomicMin(&c->u_min, (unsigned)t + 7);
  atomicMax(&c->u_max, (unsigned)t * 3);
  atomicAdd(&c->ull_add, 1ull << 33);
  atomicMax(&c->ull_max, (unsigned long long)t << 40);
  atomicCAS(&c->ull_cas, 0ull, 5ull);
  atomicAdd(&c->f_add, 0.5f);
  atomicExch(&c->f_exch_seen, 2.0f);
  // A float maximum through atomicCAS on the bits (values >= 0 here).
  int* bits = reinterpret_cast<int*>(&c->f_max);
  int seen = *bits;
  while (__int_as_float(seen) < t * 0.25f) {
    const int prev = atomicCAS(bits, seen, __float_as_int(t * 0.25f));
    if (prev == seen) break;
    seen = prev;
  }
  atomicAdd(&c->d_add, 0.25);
}

int main() {
  counters* d;
  counters h{};
  h.u_sub = 10000;
  h.i_min = 1 << 30;
  h.i_max = -(1 << 30);
  h.u_min = 1u << 30;
  CUDA_CHECK(cudaMalloc(&d, sizeof h));
  CUDA_CHECK(cudaMemcpy(d, &h, sizeof h, cudaMemcpyHostToDevice));
  atomics_kernel<<<4, 256>>>(d);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
  printf("atomics: int add=%d sub=%d min=%d max=%d exch=%d cas_won=%d\n", h.i_add, h.i_sub, h.i_min, h.i_max,
         h.i_exch_seen, h.i_cas != 0);
  printf("atomics: unsigned add=%u sub=%u min=%u max=%u\n", h.u_add, h.u_sub, h.u_min, h.u_max);
  printf("atomics: ull add=%llu max=%llu cas=%llu\n", h.ull_add, h.ull_max, h.ull_cas);
  printf("atomics: float add=%.1f exch=%.1f max via CAS=%.2f double add=%.2f\n", h.f_add, h.f_exch_seen, h.f_max,
         h.d_add);
  const bool ok = h.i_add == 1023 * 1024 / 2 && h.i_sub == -1024 && h.u_add == 2048 && h.f_add == 512.0f &&
                  h.d_add == 256.0 && h.ull_add == 1024ull << 33;
  return ok ? 0 : 1;
}
