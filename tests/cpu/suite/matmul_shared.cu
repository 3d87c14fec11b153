// matmul_shared: the shared-memory matrix multiply in the style of the CUDA Programming Guide:
// Matrix structs with a stride, BLOCK_SIZE x BLOCK_SIZE sub-matrices staged in __shared__.
// Integer-valued inputs keep every sum exact, so CPU and GPU print the same checksum.
// Expected: "matmul_shared: ok 96x80 * 80x64 checksum ..." on both.
#include <vector>

#include "check.cuh"

constexpr int BLOCK_SIZE = 16;

// Row-major: M(row, col) = elements[row * stride + col].
struct Matrix {
  int width;
  int height;
  int stride;
  float* elements;
};

__device__ float get_element(const Matrix a, int row, int col) { return a.elements[row * a.stride + col]; }
__device__ void set_element(Matrix a, int row, int col, float value) { a.elements[row * a.stride + col] = value; }

// The BLOCK_SIZE x BLOCK_SIZE sub-matrix of `a` that is `row` tiles down and `col` tiles across.
__device__ Matrix get_sub_matrix(Matrix a, int row, int col) {
  Matrix sub;
  sub.width = BLOCK_SIZE;
  sub.height = BLOCK_SIZE;
  sub.stride = a.stride;
  sub.elements = &a.elements[a.stride * BLOCK_SIZE * row + BLOCK_SIZE * col];
  return sub;
}

// grid(C.width/BLOCK_SIZE, C.height/BLOCK_SIZE), block(BLOCK_SIZE, BLOCK_SIZE): each block computes
// one tile of C, each thread one element; all dimensions are multiples of BLOCK_SIZE.
__global__ void matmul_shared_kernel(Matrix A, Matrix B, Matrix C) {
  const int block_row = blockIdx.y, block_col = blockIdx.x;
  const int row = threadIdx.y, col = threadIdx.x;
  Matrix c_sub = get_sub_matrix(C, block_row, block_col);
  float c_value = 0;
  for (int m = 0; m < A.width / BLOCK_SIZE; ++m) {
    Matrix a_sub = get_sub_matrix(A, block_row, m);
    Matrix b_sub = get_sub_matrix(B, m, block_col);
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
    As[row][col] = get_element(a_sub, row, col);
    Bs[row][col] = get_element(b_sub, row, col);
    __syncthreads();  // the tiles are complete before anyone reads them
    for (int e = 0; e < BLOCK_SIZE; ++e) c_value += As[row][e] * Bs[e][col];
    __syncthreads();  // everyone is done reading before the next iteration overwrites the tiles
  }
  set_element(c_sub, row, col, c_value);
}

int main() {
  const int M = 96, K = 80, N = 64;
  std::vector<float> a(M * K), b(K * N), c(M * N);
  lcg rng(7);
  for (float& x : a) x = rng.next(-4, 4);
  for (float& x : b) x = rng.next(-4, 4);
  Matrix A{K, M, K, nullptr}, B{N, K, N, nullptr}, C{N, M, N, nullptr};
  CUDA_CHECK(cudaMalloc(&A.elements, a.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&B.elements, b.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&C.elements, c.size() * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(A.elements, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(B.elements, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
  dim3 block(BLOCK_SIZE, BLOCK_SIZE);
  dim3 grid(N / BLOCK_SIZE, M / BLOCK_SIZE);
  matmul_shared_kernel<<<grid, block>>>(A, B, C);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(c.data(), C.elements, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
  long long checksum = 0;
  int wrong = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float ref = 0;
      for (int k = 0; k < K; ++k) ref += a[i * K + k] * b[k * N + j];
      wrong += c[i * N + j] != ref;
      checksum += (long long)c[i * N + j] * (i + 2 * j + 1);
    }
  if (wrong) {
    printf("matmul_shared: FAIL %d elements wrong, checksum %lld\n", wrong, checksum);
    return 1;
  }
  printf("matmul_shared: ok %dx%d * %dx%d checksum %lld\n", M, K, K, N, checksum);
  return 0;
}
