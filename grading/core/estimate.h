// A kernel's time on a named GPU estimated from its counts (the CPU backend's memory model, or
// Nsight Compute's), without running it there: a roofline with three ceilings, the longest of
// the FLOPs at the fp32 peak, the DRAM bytes at the copy's bandwidth, and the L1's work at one
// step per SM per clock (a 128-byte line of a global request, or a shared-memory wavefront).
// It is a floor, and how far off it is, per lab, is measured in docs/estimate.md: feedback
// (make profile, the technique check's report), never a grade.
#pragma once

#include <optional>

#include "grading/core/kernel_counts.h"
#include "grading/core/reference_gpu.h"

namespace grade {

struct Estimate {
  double seconds = 0;
  const char* bound = "";  // "arithmetic", "DRAM" or "L1"
};
Estimate roofline(double flops, double dram_bytes, double l1_steps, const ReferenceGpu& gpu);

// A kernel's L1 steps: its global requests' lines (Nsight Compute gives no lines: a request's
// sectors / 4, at least one) and its shared wavefronts.
double l1_steps(const KernelCounts& k);

// A kernel's FLOPs: counted (Nsight Compute), or on the CPU backend the problem's
// (PROBLEM_FLOPS, common/problems.h) when the run has this one kernel; else unknown.
std::optional<double> kernel_flops(const RunCounts& run, const KernelCounts& k, std::optional<double> problem_flops);

// The run's estimated time on GPU: its kernels' estimates, one after another.
double estimated_seconds(const RunCounts& run, std::optional<double> problem_flops, const ReferenceGpu& gpu);

}  // namespace grade
