// The performance targets of a copy without solutions (a students' copy: make release), in
// grading/targets.txt. Per GPU model and graded part (a rubric section), the share of its
// ceiling's speed that the solution reached at the rubric's performance shape: the ceiling's
// median time over the solution's, both measured in one grading run on that GPU (make bench
// records them). Where there is no solution to time, the target time of a student's launcher is
// the ceiling's median measured in the same run over that share: the grader's performance
// check, and make run's comparison, compare with it.
//
// The file: # comments, and one target per line, its fields separated by tabs:
//   gpu       the GPU's name as nvidia-smi gives it: NVIDIA H100 80GB HBM3
//   part      the rubric section: 01_matmul_naive, 03_matmul_register.1d
//   shape     the performance shape as the rubric writes it: 4096x4096x4096, 8192x4096
//   ceiling   what the share is of: cuBLAS SGEMM (fp32), device-to-device copy
//   share     the solution's speed over the ceiling's, as a fraction: 0.906
//   date      when it was measured: 2026-11-25
//   commit    the commit of the solutions measured: e18164b
//   source    how it was measured: make bench, or the log it was taken from
#pragma once

#include <string>
#include <vector>

namespace lab {

struct Target {
  std::string gpu, part, shape, ceiling;
  double share = 0;
  std::string date, commit, source;
};

// Reads a targets file's text. False, with "PATH:LINE: what" in *error, for a line that is not
// eight fields, a share that is not a number in (0, 10], or a GPU, part and shape listed twice.
bool parse_targets(const std::string& text, const std::string& path, std::vector<Target>* targets, std::string* error);
// The file's text: HEADER (its comment lines, "# ..." each), then the targets, sorted by GPU and part.
std::string format_targets(const std::string& header, std::vector<Target> targets);

// The target for GPU, PART and SHAPE; nullptr when there is none.
const Target* find_target(const std::vector<Target>& targets, const std::string& gpu, const std::string& part,
                          const std::string& shape);
// T in place of the target of the same GPU, part and shape, or added.
void put_target(std::vector<Target>* targets, const Target& t);

}  // namespace lab
