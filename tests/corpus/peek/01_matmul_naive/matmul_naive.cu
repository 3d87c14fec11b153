// A hostile submission for the grader's tests: it computes the right result with a plain
// kernel, and the first time it is called (in each process) it looks for what would give it the
// answer without computing it. Each thing it can read spoils the result with a value of its own,
// so that full marks mean it found none, and a failing test says which it found:
//   1005  the solution's source, in the checkout (named by PEEK_CHECKOUT, which the test sets)
//   1006  the checkout's history, which holds the solution (.git)
//   1007  the solution's lab program, next to its own in the build folder (found from
//         /proc/self/exe): run on the same inputs, it would compute the answer
//   1008  another run's folder in the grader's scratch folder (the solution's outputs for the
//         same inputs are in one)
#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "common/ceil_div.h"
#include "common/cuda_check.h"
#include "common/grid_limits.h"
#include "harness/launchers.h"

namespace {

bool readable(const std::string& path) { return std::ifstream(path).good(); }

float peek() {
  float found = 0.0f;
  const char* checkout = std::getenv("PEEK_CHECKOUT");
  const std::string root = checkout != nullptr ? checkout : ".";
  if (readable(root + "/solutions/01_matmul_naive/matmul_naive.cu")) found = 1005.0f;
  if (readable(root + "/.git/HEAD")) found = 1006.0f;
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    std::string path(exe, size_t(n));                   // <build>/<flavor>/bin/<its tag>/01_matmul_naive
    path = path.substr(0, path.rfind('/'));             // <build>/<flavor>/bin/<its tag>
    path = path.substr(0, path.rfind('/'));             // <build>/<flavor>/bin
    if (readable(path + "/solutions/01_matmul_naive")) found = 1007.0f;
  }
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd) != nullptr) {
    const std::string scratch = std::string(cwd).substr(0, std::string(cwd).rfind('/'));
    if (DIR* dir = opendir(scratch.c_str())) {
      for (dirent* e; (e = readdir(dir)) != nullptr;) {
        if (std::string(e->d_name).rfind("correctness-solution-", 0) == 0) found = 1008.0f;
      }
      closedir(dir);
    }
  }
  return found;
}

__global__ void peek_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
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
  static bool looked = false;
  static float found = 0.0f;
  if (!looked) {
    looked = true;
    found = peek();
  }
  if (M == 0 || N == 0) return;
  const dim3 block(32, 8), grid(ceil_div(N, 32), ceil_div(M, 8) < kMaxGridRows ? ceil_div(M, 8) : kMaxGridRows);
  peek_kernel<<<grid, block>>>(A, B, C, M, N, K);
  CHECK_LAUNCH();
  if (found != 0.0f) CUDA_CHECK(cudaMemcpy(C, &found, sizeof found, cudaMemcpyHostToDevice));
}
