// missing_barrier: a tiled matmul whose second __syncthreads is missing, so a fast thread
// overwrites a tile that slower threads still read. Whether that shows depends on the order the
// threads run in: cpusim's forward and reverse schedules give different (wrong) checksums, and
// ThreadSanitizer (cpucc -fsanitize=thread) reports the race on the shared tile. On a GPU,
// compute-sanitizer --tool racecheck reports it.
#include <vector>

#include "check.cuh"

constexpr int TILE = 16;

// grid(N/TILE, N/TILE), block(TILE, TILE): C = A * B, N a multiple of TILE.
__global__ void matmul_missing_barrier_kernel(const float* A, const float* B, float* C, int N) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0;
  for (int k0 = 0; k0 < N; k0 += TILE) {
    As[threadIdx.y][threadIdx.x] = A[row * N + k0 + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(k0 + threadIdx.y) * N + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    // BUG: no __syncthreads() here, so the next iteration may overwrite As/Bs too early
  }
  C[row * N + col] = acc;
}

int main() {
  const int N = 64;
  std::vector<float> a(N * N), b(N * N), c(N * N);
  lcg rng(9);
  for (float& x : a) x = rng.next(-3, 3);
  for (float& x : b) x = rng.next(-3, 3);
  float *da, *db, *dc;
  CUDA_CHECK(cudaMalloc(&da, N * N * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&db, N * N * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dc, N * N * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(da, a.data(), N * N * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db, b.data(), N * N * sizeof(float), cudaMemcpyHostToDevice));
  matmul_missing_barrier_kernel<<<dim3(N / TILE, N / TILE), dim3(TILE, TILE)>>>(da, db, dc, N);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(c.data(), dc, N * N * sizeof(float), cudaMemcpyDeviceToHost));
  long long checksum = 0;
  int wrong = 0;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      float ref = 0;
      for (int k = 0; k < N; ++k) ref += a[i * N + k] * b[k * N + j];
      wrong += c[i * N + j] != ref;
      checksum += (long long)c[i * N + j] * (i + 2 * j + 1);
    }
  printf("missing_barrier: %s, %d of %d elements wrong, checksum %lld\n", wrong ? "WRONG" : "ok", wrong, N * N,
         checksum);
  return wrong ? 1 : 0;
}
