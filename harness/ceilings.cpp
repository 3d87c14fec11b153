// The comparison at the end of `make run` on a GPU: the student's kernel, the solution and
// what the GPU can do, measured in the same run on the same device and sizes. The ceiling
// of a matrix product is cuBLAS SGEMM in true fp32 (CUBLAS_COMPUTE_32F, no TF32); the
// ceiling of the memory-bound labs is a device-to-device copy moving the same bytes, with
// cuBLAS's own transpose (Sgeam) and dot (Sdot) for reference. This program links cuBLAS;
// the lab programs do not.
#include <cublas_v2.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "common/cli.h"
#include "common/device_info.h"
#include "common/exit_codes.h"
#include "common/timing.h"
#include "harness/device_case.h"

namespace {

#define CUBLAS_CHECK(expr)                                                                \
  do {                                                                                    \
    cublasStatus_t status_ = (expr);                                                      \
    if (status_ != CUBLAS_STATUS_SUCCESS) {                                               \
      std::fprintf(stderr, "%s:%d: cuBLAS error %s in %s\n", __FILE__, __LINE__,          \
                   cublasGetStatusName(status_), #expr);                                  \
      std::exit(lab::kExitCannotRun);                                                     \
    }                                                                                     \
  } while (0)

using Fields = std::map<std::string, std::string>;

// A result file of a lab program: "key value" lines.
Fields read_result(const std::string& path) {
  Fields fields;
  std::ifstream in(path);
  std::string key, value;
  while (in >> key && std::getline(in >> std::ws, value)) fields[key] = value;
  return fields;
}

lab::Case case_of(const Fields& r) {
  std::istringstream dims(r.at("dims"));
  int64_t a = 0, b = 0, c = 0;
  dims >> a >> b >> c;
  const std::string& op = r.at("op");
  if (op == "matmul") return lab::Case::matmul(a, b, c);
  if (op == "transpose") return lab::Case::transpose(a, b);
  return lab::Case::dot(a);
}

void print_row(const char* name, double ms, double rate, const char* unit, double ceiling_ms) {
  if (ms <= 0) {
    std::printf("    %-28s %10s %10s\n", name, "-", "-");
    return;
  }
  std::printf("    %-28s %10.3f %10.2f %s %7.1f%%\n", name, ms, rate, unit, 100.0 * ceiling_ms / ms);
}

// cuBLAS on the same random inputs the lab programs use. Returns the median time.
double time_cublas(const lab::Case& c, int reps, std::string* name) {
  const std::vector<std::vector<float>> inputs = lab::make_inputs(c, 1);
  lab::DeviceCase run(c, inputs);
  cublasHandle_t handle;
  CUBLAS_CHECK(cublasCreate(&handle));
  CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));  // no TF32
  // The lab launchers' interface, implemented with cuBLAS. cuBLAS is column-major: a
  // row-major matrix is its transpose, so C = A·B is computed as Cᵀ = Bᵀ·Aᵀ.
  lab::Launcher launcher;
  static cublasHandle_t h;  // captureless lambdas (plain function pointers) reach it here
  h = handle;
  switch (c.op) {
    case lab::Op::kMatmul:
      *name = "cuBLAS SGEMM (fp32)";
      launcher.matmul = [](const float* A, const float* B, float* C, int M, int N, int K) {
        const float alpha = 1.0f, beta = 0.0f;
        CUBLAS_CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, CUDA_R_32F, N, A,
                                  CUDA_R_32F, K, &beta, C, CUDA_R_32F, N, CUBLAS_COMPUTE_32F,
                                  CUBLAS_GEMM_DEFAULT));
      };
      break;
    case lab::Op::kTranspose:
      *name = "cuBLAS Sgeam (transpose)";
      launcher.transpose = [](const float* in, float* out, int rows, int cols) {
        const float alpha = 1.0f, beta = 0.0f;
        CUBLAS_CHECK(cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, rows, cols, &alpha, in, cols, &beta,
                                 out, rows, out, rows));
      };
      break;
    case lab::Op::kDot:
      *name = "cuBLAS Sdot";
      CUBLAS_CHECK(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_DEVICE));
      launcher.dot = [](const float* a, const float* b, float* result, int n) {
        CUBLAS_CHECK(cublasSdot(h, n, a, 1, b, 1, result));
      };
      break;
  }
  // Check it like a student's kernel: this also proves that no TF32 crept in.
  run.run(launcher);
  const std::vector<float> out = run.output();
  const lab::CheckReport report = lab::check_output(c, inputs, out.data(), 1);
  if (!report.pass()) *name += " (wrong result!)";
  const lab::Timing t = lab::time_on_device([&] { run.enqueue(launcher); }, reps, 3);
  CUBLAS_CHECK(cublasDestroy(handle));
  return t.median;
}

}  // namespace

int main(int argc, char** argv) {
  std::string yours, solution;
  int64_t reps = 20;
  lab::Cli cli(argv[0], "Prints make run's comparison: the result files of the student's and the solution's\n"
                        "runs, next to cuBLAS and a device-to-device copy of the same sizes.");
  cli.add_string("yours", &yours, "result file of the student's run (sizes are read from it)");
  cli.add_string("solution", &solution, "result file of the solution's run");
  cli.add_int("reps", &reps, 1, 1000, "timed repetitions");
  cli.parse(argc, argv);
  const Fields mine = read_result(yours);
  if (mine.count("op") == 0) {
    std::fprintf(stderr, "ceilings: no result in '%s'\n", yours.c_str());
    return lab::kExitCannotRun;
  }
  const Fields theirs = read_result(solution);
  const lab::Case c = case_of(mine);
  lab::open_device();

  std::string cublas_name;
  const double cublas_ms = time_cublas(c, int(reps), &cublas_name);
  // A copy reads and writes min_bytes in all: it copies half of them.
  const double copy_ms = c.min_bytes() / lab::measure_copy_bandwidth(size_t(c.min_bytes() / 2), int(reps)) * 1e3;
  const double ceiling_ms = c.compute_bound() ? cublas_ms : copy_ms;
  auto ms_of = [](const Fields& f) { return f.count("check") && f.at("check") == "pass" ? std::stod(f.at("median_ms")) : 0.0; };

  std::printf("\n  compared in this run (same GPU, same sizes; last column: share of the %s)\n",
              c.compute_bound() ? "cuBLAS time" : "copy's speed");
  std::printf("    %-28s %10s %10s\n", "", "median ms", c.rate_unit());
  print_row(("your " + mine.at("name")).c_str(), ms_of(mine), c.rate(ms_of(mine)), c.rate_unit(), ceiling_ms);
  if (theirs.count("check")) print_row("solution", ms_of(theirs), c.rate(ms_of(theirs)), c.rate_unit(), ceiling_ms);
  print_row(cublas_name.c_str(), cublas_ms, c.rate(cublas_ms), c.rate_unit(), ceiling_ms);
  if (!c.compute_bound()) print_row("device-to-device copy", copy_ms, c.rate(copy_ms), c.rate_unit(), ceiling_ms);
  return lab::kExitPass;
}
