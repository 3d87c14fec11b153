// matmul_shared: the shared-memory matrix multiply in the style of the CUDA Programming Guide:
// Matrix structs with a stride, BLOCK_SIZE x BLOCK_SIZE sub-matrices staged in __shared__.
// Integer-valued inputs keep every sum exact, so CPU and GPU print the same checksum.
// Expected: "matmul_shared: ok 96x80 * 80x64 checksum ..." on both.
#include "matmul_operands.cuh"

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
  const matmul_operands m(M, K, N, 7, 4);
  const Matrix A{K, M, K, m.d_a}, B{N, K, N, m.d_b}, C{N, M, N, m.d_c};
  dim3 block(BLOCK_SIZE, BLOCK_SIZE);
  dim3 grid(N / BLOCK_SIZE, M / BLOCK_SIZE);
  matmul_shared_kernel<<<grid, block>>>(A, B, C);
  CUDA_CHECK(cudaGetLastError());
  const matmul_verdict v = check_product(m);
  if (v.wrong) {
    printf("matmul_shared: FAIL %d elements wrong, checksum %lld\n", v.wrong, v.checksum);
    return 1;
  }
  printf("matmul_shared: ok %dx%d * %dx%d checksum %lld\n", M, K, K, N, v.checksum);
  return 0;
}
