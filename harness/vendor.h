// The ceilings a lab's kernel is measured against: cuBLAS's implementation of each lab's
// operation (SGEMM in true fp32, Sgeam's transpose, Sdot), CUB's device-wide reduction as a
// dot product, and a device-to-device copy moving the bytes a memory-bound lab must move.
// Each library result is checked like a student's kernel before it is timed, so a wrong
// ceiling (TF32 creeping into SGEMM, say) is reported rather than compared with. `make run`'s
// comparison (harness/ceilings.cpp) and `make bench` (harness/bench.cpp) both measure them
// here, on the seeded inputs the lab programs use. This code links cuBLAS, and CUB is device
// code that nvcc compiles (vendor_cub.cu); the lab programs link neither.
#pragma once

#include <string>
#include <vector>

#include "common/timing.h"
#include "harness/launcher.h"

namespace lab {

using Inputs = std::vector<std::vector<float>>;

struct Measured {
  std::string name;      // "cuBLAS SGEMM (fp32)"
  bool ran = false;      // it ran to the end without a CUDA error
  bool correct = false;  // and its result passed the check
  std::string failure;   // what went wrong, when either is false
  Timing timing;         // when both are true

  bool timed() const { return ran && correct; }
};

// Runs `launcher` once on `inputs` and checks its output against the fp64 reference as a lab
// program does; only a correct result is then timed (time_on_device: warm-up, L2 flushed
// before each of `reps` runs, the median).
Measured check_and_time(const std::string& name, const Case& c, const Inputs& inputs,
                        const Launcher& launcher, int reps);

// cuBLAS on c's operation: cublasGemmEx in CUBLAS_COMPUTE_32F with TF32 off, cublasSgeam with
// the first operand transposed, cublasSdot.
Measured time_cublas(const Case& c, const Inputs& inputs, int reps);

// cub::DeviceReduce::TransformReduce of a[i]·b[i]: lab 05 in a library (c is a dot product).
Measured time_cub_dot(const Case& c, const Inputs& inputs, int reps);

// The ceiling a lab's kernel is compared with: cuBLAS SGEMM for a matrix product, the copy for
// the memory-bound problems.
Measured time_ceiling(const Case& c, int reps);

// cudaMemcpyAsync device to device of c.min_bytes() / 2 bytes: reading and writing them moves
// as many bytes as a memory-bound lab must, so c.rate() of its time is the copy's bandwidth.
Measured time_copy(const Case& c, int reps);

}  // namespace lab
