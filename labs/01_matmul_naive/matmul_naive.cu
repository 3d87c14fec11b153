// Lab 01: naive matrix multiplication, one thread per element of C.
//
// C = A·B with A of M×K, B of K×N and C of M×N, row-major float32 arrays in device memory.
// Every thread computes one element of C as the dot product of a row of A and a column of
// B, reading both straight from global memory.
//
// That is two global loads for every fused multiply-add, so the kernel is limited by memory
// traffic, not arithmetic: lab 02 cuts the traffic with shared memory, lab 03 with registers.
// What it can get right is how a warp reads: its 32 threads load together, and the mapping
// of threads onto C decides how many 32-byte sectors each of their loads touches.
//
// Given: the block shape (kBlockX × kBlockY threads) and the signatures of the kernel and of
// the launcher, which the lab program calls (harness/launchers.h).
//
// You write: the kernel's body (task 1: which element a thread computes, the guard for the
// threads past the edge of C, the sum) and the launcher's (task 2: the grid and the launch).
//
// Besides one kernel and its launch, this file uses only ceil_div and CHECK_LAUNCH from
// common/: no shared memory, no barrier, no library. One launch covers every shape the
// grader checks, so the kernel needs no loop over blocks.
//
// Run and check:  make run LAB=01        Grade:  make grade LAB=01
// The lab's README (labs/01_matmul_naive/README.md) explains the background and the tasks.

#include "common/ceil_div.h"
#include "common/cuda_check.h"
#include "harness/launchers.h"

// ---- constants ----

// 256 threads per block, 32 along x: a block's threads are numbered x first, so each of its
// 8 warps is one value of threadIdx.y and all 32 of threadIdx.x.
constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
static_assert(kBlockX % 32 == 0, "a warp is 32 consecutive threadIdx.x: x must hold whole warps");
static_assert(kBlockX * kBlockY <= 1024, "at most 1024 threads per block");

// ---- kernel ----

// grid  enough blocks of (kBlockX, kBlockY) to give every element of C a thread (task 2)
// A: M×K, B: K×N, C: M×N, row-major. Each thread computes one element of C; the grid is
// rounded up to whole blocks, so threads past the right or bottom edge compute nothing.
// Which of row and column follows threadIdx.x is task 1's decision. A grid has at most
// 65535 blocks along y: one launch covers every shape the grader checks, not any shape.
__global__ void matmul_naive_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int M, int N, int K) {
  // TODO(student) 1: compute this thread's element of C
  // C[row][col] = sum over k of A[row][k] * B[k][col] (element (r, c) of an R×C matrix is at
  // r*C + c). Each thread computes one element and stores it once; a thread whose row or
  // column lies past the edge of C touches no memory.
  // Decide which of row and column follows threadIdx.x. A warp is 32 threads of consecutive
  // threadIdx.x, and global memory serves it in 32-byte sectors: choose the mapping whose
  // loads and store touch the fewest sectors per warp, and count them (README, question 1).
  // Budget: K reads of A, K reads of B and 1 write of C per thread; no shared memory, no
  // barrier; about 6 lines. int indices suffice: no graded matrix reaches 2^31 elements.
  // Assessed: correct for every shape (edges included); coalesced (technique: loads and stores
  // each use at least half the bytes of the sectors they move, on every backend); its speed.
}

// ---- launcher ----

void matmul_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  // TODO(student) 2: launch the kernel over all of C
  // Launch matmul_naive_kernel on the default stream with blocks of kBlockX × kBlockY threads
  // and a thread for every element of C under task 1's mapping, for every shape the grader
  // checks: sizes that are not multiples of the block, and 0 (a grid with a dimension of 0
  // is a launch error; K = 0 makes every element of C an empty sum, 0). Check the launch with
  // CHECK_LAUNCH(); do not synchronize: the harness does, and times the launch.
  // Decide the grid: how many blocks along x and along y.
  // Budget: one launch; about 5 lines (ceil_div is in common/ceil_div.h).
  // Assessed: correct for every shape, sizes of 0 included.
}
