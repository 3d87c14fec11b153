// What a timed call's output holds, read where it lies (harness/serve.cpp's timed calls): how many
// of its elements are not finite, and its values at the positions drawn after the call; and
// whether a timed case's inputs are still as they came (harness/device_case.h). Copied to
// the host whole for that, a 64 MiB output took about 20 ms a call over the H200 machine's bus (lab
// 03's kernel takes 3), most of a timed pass's seconds, and all of it inside the grader's time alone
// at the GPU (docs/results/program-start-h200.log); read on the device, microseconds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/device_buffer.h"

namespace lab {

class OutputScan {
 public:
  // For outputs of COUNT floats.
  explicit OutputScan(size_t count);
  // How many of the COUNT floats at OUTPUT, on the device, are not finite.
  int64_t nonfinite(const float* output);
  // The floats at OUTPUT's POSITIONS (each below COUNT).
  std::vector<float> at(const float* output, const std::vector<size_t>& positions);

 private:
  size_t count_;
  unsigned blocks_;
  DeviceBuffer<unsigned> block_counts_;   // each block's count of nonfinite elements
  DeviceBuffer<uint64_t> positions_;      // grown to the most positions asked for
  DeviceBuffer<float> values_;
};

// Whether the COUNT floats at A and at B, on the device, are the same bits.
bool equal_on_device(const float* a, const float* b, size_t count);

}  // namespace lab
