// shared_dynamic: extern __shared__ arrays sized at launch, declared in a kernel and at
// namespace scope (both alias the same bytes), and 64 KB of dynamic shared memory after
// cudaFuncSetAttribute raised the kernel's limit.
// Expected: "shared_dynamic: ok small=... big=..." on both.
#include <vector>

#include "check.cuh"

extern __shared__ float file_scope_buffer[];

// grid(blocks), block(threads), dynamic smem threads*sizeof(float): out[i] = the element of the
// block's slice read back in reverse order through the other name.
__global__ void reverse_kernel(const float* in, float* out) {
  extern __shared__ float buffer[];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  buffer[threadIdx.x] = in[i];
  __syncthreads();  // the slice is in shared memory
  out[i] = file_scope_buffer[blockDim.x - 1 - threadIdx.x];
}

// One block, 256 threads, `words` ints of dynamic shared memory: each thread fills a stripe and
// thread 0 sums everything.
__global__ void big_kernel(int words, long long* sum) {
  extern __shared__ int big[];
  for (int i = threadIdx.x; i < words; i += blockDim.x) big[i] = i;
  __syncthreads();  // all of big is written
  if (threadIdx.x == 0) {
    long long s = 0;
    for (int i = 0; i < words; ++i) s += big[i];
    *sum = s;
  }
}

int main() {
  const int threads = 128, blocks = 8, n = threads * blocks;
  std::vector<float> in(n), out(n);
  lcg rng(5);
  for (float& v : in) v = rng.next(-500, 500);
  float *d_in, *d_out;
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  reverse_kernel<<<blocks, threads, threads * sizeof(float)>>>(d_in, d_out);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += out[i] != in[i / threads * threads + threads - 1 - i % threads];

  const int bytes = 64 * 1024, words = bytes / sizeof(int);
  long long* d_sum;
  long long sum = 0;
  CUDA_CHECK(cudaMalloc(&d_sum, sizeof(long long)));
  CUDA_CHECK(cudaFuncSetAttribute(big_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  big_kernel<<<1, 256, bytes>>>(words, d_sum);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost));
  const long long expected = (long long)words * (words - 1) / 2;
  if (wrong || sum != expected) {
    printf("shared_dynamic: FAIL %d wrong, big sum %lld (expected %lld)\n", wrong, sum, expected);
    return 1;
  }
  printf("shared_dynamic: ok small=%d elements big=%d bytes sum=%lld\n", n, bytes, sum);
  return 0;
}
