// bench_cpusim: what the CPU backend costs (`make bench-cpusim` runs it on one OS thread,
// CPUSIM_THREADS=1). Two numbers: one barrier round trip per thread (the scheduler resumes the
// fiber, the fiber yields at __syncthreads: two fiber switches), and a 512x512x512 shared-memory
// tiled matmul with 32x32 tiles (1024 threads per block, two barriers per tile step).
// It also builds with nvcc, where it times the same kernels on the GPU.
#include <chrono>

#include "matmul_operands.cuh"

constexpr int TILE = 32;

__global__ void barrier_kernel(int rounds, int* out) {
  int v = threadIdx.x;
  for (int r = 0; r < rounds; ++r) {
    __syncthreads();
    v += r;
  }
  out[threadIdx.x] = v;
}

// grid(N/TILE, N/TILE), block(TILE, TILE): C = A * B, N a multiple of TILE.
__global__ void matmul_tiled_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                    int N) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0;
  for (int k0 = 0; k0 < N; k0 += TILE) {
    As[threadIdx.y][threadIdx.x] = A[row * N + k0 + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(k0 + threadIdx.y) * N + col];
    __syncthreads();  // both tiles are loaded
    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();  // everyone is done with the tiles before they are overwritten
  }
  C[row * N + col] = acc;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int main() {
  // Barrier round trips: 1024 threads x rounds barriers, best of 3.
  const int threads = 1024, rounds = 200;
  int* d_out;
  CUDA_CHECK(cudaMalloc(&d_out, threads * sizeof(int)));
  barrier_kernel<<<1, threads>>>(1, d_out);  // warm-up: stacks, pages
  CUDA_CHECK(cudaDeviceSynchronize());
  double best = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    const auto start = std::chrono::steady_clock::now();
    barrier_kernel<<<1, threads>>>(rounds, d_out);
    CUDA_CHECK(cudaDeviceSynchronize());
    const double s = seconds_since(start);
    best = s < best ? s : best;
  }
  const double per_wait = best / (double(threads) * rounds) * 1e9;
  printf("bench_cpusim: barrier wait (resume + yield at __syncthreads): %.1f ns per thread; %.1f ns per fiber switch\n",
         per_wait, per_wait / 2);

  // The tiled matmul, once warm.
  const int N = 512;
  const matmul_operands m(N, N, N, 1, 2);
  const dim3 grid(N / TILE, N / TILE), block(TILE, TILE);
  matmul_tiled_kernel<<<grid, block>>>(m.d_a, m.d_b, m.d_c, N);
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto start = std::chrono::steady_clock::now();
  matmul_tiled_kernel<<<grid, block>>>(m.d_a, m.d_b, m.d_c, N);
  CUDA_CHECK(cudaDeviceSynchronize());
  const double s = seconds_since(start);
  // Every element is checked, after the timing: the host's product is not part of the time.
  const matmul_verdict v = check_product(m);
  printf("bench_cpusim: matmul %dx%dx%d, %dx%d tiles, %d threads per block: %.3f s (%.2f GFLOP/s)%s\n", N, N, N, TILE,
         TILE, TILE * TILE, s, 2.0 * N * N * N / s * 1e-9, v.wrong ? " WRONG RESULT" : "");
  return v.wrong ? 1 : 0;
}
