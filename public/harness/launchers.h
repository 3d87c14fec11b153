// The launchers the labs implement (a lab of labs.txt each): the contract between a student file, the lab
// program, the tests and the grader. Each takes device pointers to row-major float arrays,
// launches on the default stream, and returns without synchronizing. Sizes of 0 have their
// mathematical meaning: a matrix product with K = 0 is a matrix of zeros (an empty sum per
// element), a dot product of n = 0 is 0, and a matrix with no elements is not written at all;
// no launcher launches an empty grid (that is a launch error).
// Every student file includes this header, so a launcher with the wrong signature is a
// compile error at the student's own line rather than a link error.
#pragma once

// Lab 01-03: C = A·B with A of M×K, B of K×N and C of M×N.
void matmul_naive(const float* A, const float* B, float* C, int M, int N, int K);
void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K);
// Lab 03 in steps (labs.txt): a line of outputs per thread, a square, then the tuned kernel.
void matmul_register_1d(const float* A, const float* B, float* C, int M, int N, int K);
void matmul_register_2d(const float* A, const float* B, float* C, int M, int N, int K);
void matmul_register(const float* A, const float* B, float* C, int M, int N, int K);

// Lab 04: out (cols × rows) = in (rows × cols) transposed.
void transpose(const float* in, float* out, int rows, int cols);

// Lab 05: *result = Σ a[i]·b[i] over i < n; result points to device memory.
void dot_reduction(const float* a, const float* b, float* result, int n);
