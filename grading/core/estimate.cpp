#include "grading/core/estimate.h"

#include <algorithm>

namespace grade {

Estimate roofline(double flops, double dram_bytes, double l1_steps, const ReferenceGpu& gpu) {
  Estimate e{flops / gpu.fp32_peak, "arithmetic"};
  if (dram_bytes / gpu.dram_bandwidth > e.seconds) e = {dram_bytes / gpu.dram_bandwidth, "DRAM"};
  const double l1 = l1_steps / (gpu.sms * gpu.clock_hz);
  if (l1 > e.seconds) e = {l1, "L1"};
  return e;
}

double l1_steps(const KernelCounts& k) {
  auto global = [&](const Accesses& a) { return k.has_lines ? a.lines : std::max(a.requests, a.sectors / 4); };
  return global(k.global_load) + global(k.global_store) + k.shared_load.wavefronts + k.shared_store.wavefronts;
}

std::optional<double> kernel_flops(const RunCounts& run, const KernelCounts& k, std::optional<double> problem_flops) {
  if (k.flops) return k.flops;
  if (run.backend == "cpu" && run.kernels.size() == 1) return problem_flops;
  return std::nullopt;
}

double estimated_seconds(const RunCounts& run, std::optional<double> problem_flops, const ReferenceGpu& gpu) {
  double seconds = 0;
  for (const KernelCounts& k : run.kernels) {
    seconds += roofline(kernel_flops(run, k, problem_flops).value_or(0), k.dram_bytes.value_or(0), l1_steps(k), gpu).seconds;
  }
  return seconds;
}

}  // namespace grade
