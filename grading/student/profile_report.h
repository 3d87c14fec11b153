// make profile's report, the same from both backends: a table per kernel (global requests,
// sectors and lines per request, the share of the moved bytes used; shared requests,
// wavefronts and bank conflicts; DRAM bytes, occupancy, time), the run's arithmetic intensity
// and a roofline estimate of its time on the reference GPU (grading/core/estimate.h), then findings:
// each names its source line (the CPU backend's model; Nsight Compute gives the kernel only)
// and says in one sentence what it means and what to do.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "grading/core/estimate.h"
#include "grading/core/kernel_counts.h"
#include "grading/core/reference_gpu.h"

namespace grade {

struct ProfileContext {
  std::string title;                    // "lab 04 (transpose), rows=256 cols=300"
  std::optional<double> problem_flops;  // the problem's work (common/problems.h), when known
  std::string lines_note;               // why source lines are unknown, or ""
  ReferenceGpu gpu = kH100;
};

struct Finding {
  std::string where;  // "file:line", or the kernel's name
  std::string text;   // one sentence: what it means, what to do
};

// The run's findings, worst first: uncoalesced global accesses, shared bank conflicts, and
// what bounds the estimated time.
std::vector<Finding> profile_findings(const RunCounts& run, const ProfileContext& ctx);
std::string profile_report(const RunCounts& run, const ProfileContext& ctx);

}  // namespace grade
