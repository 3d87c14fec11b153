// grading/estimates.txt: the solution's estimated time (grading/core/estimate.h: the roofline over
// the CPU backend's counts) per graded part at its technique shape, on each reference GPU; what
// the technique check shows a student's own estimate beside where the solution is not there to
// count (a students' copy). `make record-estimates` writes it from the solutions.
//
// The file: # comments, and one estimate per line, its fields separated by tabs:
//   part    the rubric section: 01_matmul_naive, 03_matmul_register.1d
//   shape   the technique shape as the rubric writes it: 256x256x64
//   gpu     the reference GPU: H100, H200 (grading/core/reference_gpu.h)
//   ms      the estimated time, in milliseconds
//   date, commit   when, and from which commit of the solutions
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace grade {

struct SolutionEstimate {
  std::string part, shape, gpu;
  double ms = 0;
  std::string date, commit;
};

// The estimates in the file at PATH (none when there is no file); false, with "PATH:LINE: what" in
// *error, for a line that is not six fields or a time that is not a positive number.
bool load_estimates(const std::string& path, std::vector<SolutionEstimate>* estimates, std::string* error);

// The estimate of PART at SHAPE on GPU; nothing when the file has none.
std::optional<double> estimate_ms(const std::vector<SolutionEstimate>& estimates, const std::string& part, const std::string& shape,
                                  const std::string& gpu);

// Writes E into the file at PATH in place of one of the same part, shape and GPU; false when it
// cannot. Gradings at once write one after another.
bool record_estimate(const std::string& path, const SolutionEstimate& e);

}  // namespace grade
