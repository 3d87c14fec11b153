// A hostile submission for the grader's tests: it computes the right result with a plain
// kernel, except when a checking tool is loaded into its process (compute-sanitizer, Nsight
// Compute, AddressSanitizer or ThreadSanitizer's runtime): then it sleeps forever. Those runs
// have no per-shape limit watching them, only a limit of their own (grading/case_runs.h,
// run_limited): the hang must cost that limit, not the rubric's minutes.
#include <unistd.h>

#include <fstream>
#include <string>

#include "common/ceil_div.h"
#include "common/cuda_check.h"
#include "common/grid_limits.h"
#include "harness/launchers.h"

namespace {

bool under_a_tool() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    for (const char* tool : {"compute-sanitizer", "nsight-compute", "libasan", "libtsan"}) {
      if (line.find(tool) != std::string::npos) return true;
    }
  }
  return false;
}

__global__ void tool_hang_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                                 int N, int K) {
  const unsigned col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= unsigned(N)) return;
  for (unsigned row = blockIdx.y * blockDim.y + threadIdx.y; row < unsigned(M); row += gridDim.y * blockDim.y) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc = fmaf(A[size_t(row) * K + k], B[size_t(k) * N + col], acc);
    C[size_t(row) * N + col] = acc;
  }
}

}  // namespace

void matmul_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  if (under_a_tool()) {
    for (;;) sleep(1);
  }
  if (M == 0 || N == 0) return;
  const dim3 block(32, 8), grid(ceil_div(N, 32), ceil_div(M, 8) < kMaxGridRows ? ceil_div(M, 8) : kMaxGridRows);
  tool_hang_kernel<<<grid, block>>>(A, B, C, M, N, K);
  CHECK_LAUNCH();
}
