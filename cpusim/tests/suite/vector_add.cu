// vector_add: the textbook first kernel, one thread per element with a bounds guard.
// Expected: "vector_add: ok 1024 elements" on the CPU backend and on a GPU.
#include <vector>

#include "check.cuh"

// grid(ceil(n/256)), block(256): thread i computes c[i] = a[i] + b[i].
__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  const int n = 1000 + 24;
  std::vector<float> a(n), b(n), c(n);
  lcg rng(42);
  for (int i = 0; i < n; ++i) a[i] = rng.next(-1000, 1000), b[i] = rng.next(-1000, 1000);
  float *da, *db, *dc;
  CUDA_CHECK(cudaMalloc(&da, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&db, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dc, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  const int block = 256;
  vector_add_kernel<<<(n + block - 1) / block, block>>>(da, db, dc, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += c[i] != a[i] + b[i];
  CUDA_CHECK(cudaFree(da));
  CUDA_CHECK(cudaFree(db));
  CUDA_CHECK(cudaFree(dc));
  if (wrong) {
    printf("vector_add: FAIL %d of %d elements wrong\n", wrong, n);
    return 1;
  }
  printf("vector_add: ok %d elements\n", n);
  return 0;
}
