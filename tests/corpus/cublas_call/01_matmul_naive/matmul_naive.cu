// A submission for the grader's tests that hands the work to cuBLAS, with the include hidden
// behind a macro so that a plain text search would miss it. The grader must report the use
// of cuBLAS as such (the preprocessor finds the header), not as a link error.
#define BLAS_HEADER <cublas_v2.h>
#include BLAS_HEADER

#include "harness/launchers.h"

void matmul_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  static cublasHandle_t handle = [] {
    cublasHandle_t h;
    cublasCreate(&h);
    return h;
  }();
  const float one = 1.0f, zero = 0.0f;
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N);
}
