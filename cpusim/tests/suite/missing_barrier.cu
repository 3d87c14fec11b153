// missing_barrier: a tiled matmul whose second __syncthreads is missing, so a fast thread
// overwrites a tile that slower threads still read. Whether that shows depends on the order the
// threads run in: cpusim's forward and reverse schedules give different (wrong) checksums, and
// ThreadSanitizer (cpucc -fsanitize=thread) reports the race on the shared tile. On a GPU,
// compute-sanitizer --tool racecheck reports it.
// The operands and the check against the host's product are the ones the correct tiled
// products use (matmul_operands.cuh).
#include "matmul_operands.cuh"

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
  const matmul_operands m(N, N, N, 9, 3);
  matmul_missing_barrier_kernel<<<dim3(N / TILE, N / TILE), dim3(TILE, TILE)>>>(m.d_a, m.d_b, m.d_c, N);
  CUDA_CHECK(cudaGetLastError());
  const matmul_verdict v = check_product(m);
  printf("missing_barrier: %s, %d of %d elements wrong, checksum %lld\n", v.wrong ? "WRONG" : "ok", v.wrong, N * N,
         v.checksum);
  return v.wrong ? 1 : 0;
}
