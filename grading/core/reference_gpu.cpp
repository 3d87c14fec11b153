#include "grading/core/reference_gpu.h"

#include <algorithm>
#include <cctype>

namespace grade {

std::optional<ReferenceGpu> reference_gpu_named(const std::string& name) {
  std::string upper = name;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return char(std::toupper(c)); });
  if (upper == "H100") return kH100;
  if (upper == "H200") return kH200;
  return std::nullopt;
}

ReferenceGpu measured_gpu(const std::string& name, double fp32_peak, double copy_bandwidth, int sms, double l2_bytes) {
  ReferenceGpu g = kH100;
  g.name = name;
  g.fp32_peak = fp32_peak;
  g.fp32_sgemm = fp32_peak * (kH100.fp32_sgemm / kH100.fp32_peak);
  g.dram_bandwidth = copy_bandwidth;
  g.sms = sms;
  g.l2_bytes = l2_bytes;
  g.clock_hz = fp32_peak / (sms * 128 * 2.0);
  return g;
}

}  // namespace grade
