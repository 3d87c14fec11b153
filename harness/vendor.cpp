// cuBLAS and the copy behind the lab launchers' interface, checked and timed (see vendor.h).
#include "harness/vendor.h"

#include <cublas_v2.h>

#include <cstdio>
#include <cstdlib>

#include "common/device_buffer.h"
#include "common/exit_codes.h"
#include "harness/device_case.h"

namespace lab {

namespace {

// A cuBLAS error is the environment's (no library, no memory), never the code under test's.
#define CUBLAS_CHECK(expr)                                                                \
  do {                                                                                    \
    cublasStatus_t status_ = (expr);                                                      \
    if (status_ != CUBLAS_STATUS_SUCCESS) {                                               \
      std::fprintf(stderr, "%s:%d: cuBLAS error %s in %s\n", __FILE__, __LINE__,          \
                   cublasGetStatusName(status_), #expr);                                  \
      std::exit(kExitCannotRun);                                                          \
    }                                                                                     \
  } while (0)

// The launchers are plain function pointers: the handle they use lives here, set by
// time_cublas for the duration of one measurement.
cublasHandle_t cublas_handle = nullptr;

// cuBLAS is column-major, and a row-major matrix is its transpose: C = A·B is computed as
// Cᵀ = Bᵀ·Aᵀ, which is C in row-major order.
void cublas_matmul(const float* A, const float* B, float* C, int M, int N, int K) {
  const float alpha = 1.0f, beta = 0.0f;
  CUBLAS_CHECK(cublasGemmEx(cublas_handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, CUDA_R_32F, N, A,
                            CUDA_R_32F, K, &beta, C, CUDA_R_32F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

// Sgeam computes alpha·op(X) + beta·op(Y); with beta = 0 and op(X) = Xᵀ it is a transpose.
void cublas_transpose(const float* in, float* out, int rows, int cols) {
  const float alpha = 1.0f, beta = 0.0f;
  CUBLAS_CHECK(cublasSgeam(cublas_handle, CUBLAS_OP_T, CUBLAS_OP_N, rows, cols, &alpha, in, cols, &beta, out,
                           rows, out, rows));
}

void cublas_dot(const float* a, const float* b, float* result, int n) {
  CUBLAS_CHECK(cublasSdot(cublas_handle, n, a, 1, b, 1, result));
}

}  // namespace

Measured check_and_time(const std::string& name, const Case& c, const Inputs& inputs,
                        const Launcher& launcher, int reps) {
  Measured m;
  m.name = name;
  DeviceCase run(c, inputs);
  const DeviceCase::Outcome outcome = run.run(launcher);
  if (!outcome.ok()) {
    m.failure = "failed: " + explain_error(outcome.launch != cudaSuccess ? outcome.launch : outcome.run);
    return m;
  }
  m.ran = true;
  const std::vector<float> output = run.output();
  // Seed 1 picks the sampled rows of a large product, as a lab program's default seed does.
  const CheckReport report = check_output(c, inputs, output.data(), 1);
  if (!report.pass()) {
    m.failure = verdict_line(report);
    return m;
  }
  m.correct = true;
  m.timing = time_on_device([&] { run.enqueue(launcher); }, reps, kWarmupRuns);
  return m;
}

Measured time_cublas(const Case& c, const Inputs& inputs, int reps) {
  CUBLAS_CHECK(cublasCreate(&cublas_handle));
  CUBLAS_CHECK(cublasSetMathMode(cublas_handle, CUBLAS_DEFAULT_MATH));  // no TF32
  Launcher launcher;
  std::string name;
  switch (c.op) {
    case Op::kMatmul:
      name = "cuBLAS SGEMM (fp32)";
      launcher = Launcher(cublas_matmul);
      break;
    case Op::kTranspose:
      name = "cuBLAS Sgeam (transpose)";
      launcher = Launcher(cublas_transpose);
      break;
    case Op::kDot:
      name = "cuBLAS Sdot";
      // The result goes to device memory, like a lab launcher's, so no copy back is timed.
      CUBLAS_CHECK(cublasSetPointerMode(cublas_handle, CUBLAS_POINTER_MODE_DEVICE));
      launcher = Launcher(cublas_dot);
      break;
  }
  // The check also proves that no TF32 crept in: its error bound rejects TF32 products.
  const Measured m = check_and_time(name, c, inputs, launcher, reps);
  CUBLAS_CHECK(cublasDestroy(cublas_handle));
  cublas_handle = nullptr;
  return m;
}

Measured time_ceiling(const Case& c, int reps) {
  return c.compute_bound() ? time_cublas(c, make_inputs(c, 1), reps) : time_copy(c, reps);
}

Measured time_copy(const Case& c, int reps) {
  const size_t bytes = size_t(c.min_bytes() / 2);
  DeviceBuffer<unsigned char> src(bytes), dst(bytes);
  src.fill_bytes(1);
  Measured m;
  m.name = "device-to-device copy";
  m.ran = m.correct = true;  // a copy by the runtime: there is nothing of ours to check
  m.timing = time_on_device(
      [&] { CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice)); }, reps, kWarmupRuns);
  return m;
}

}  // namespace lab
