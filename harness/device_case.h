// One problem case on the device: the inputs uploaded, the output poisoned and surrounded by
// guard zones, the launcher called, and what happened collected for the check.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/device_buffer.h"
#include "common/fill.h"
#include "harness/launcher.h"
#include "common/rep_check.h"

namespace lab {

class DeviceCase {
 public:
  // TIMED: a timed case, whose inputs are also kept as they came on the device, so that
  // modified_inputs() compares them there (the grader keeps the GPU alone meanwhile).
  DeviceCase(const Case& c, const std::vector<std::vector<float>>& inputs, bool timed = false);

  struct Outcome {
    cudaError_t launch = cudaSuccess;  // from cudaGetLastError right after the launcher
    cudaError_t run = cudaSuccess;     // from cudaDeviceSynchronize: faults while running
    bool ok() const { return launch == cudaSuccess && run == cudaSuccess; }
  };
  // Fills the output with `fill` bytes (the NaN poison, or 0 for 0.0f), calls the launcher
  // once and waits for it.
  Outcome run(const Launcher& launcher, unsigned char fill = kPoisonByte);
  // The parts of run(), for timing: the fill, and the call without waiting.
  void fill_output(unsigned char fill);
  void enqueue(const Launcher& launcher);
  // Copies between host and device that the last launcher call made.
  unsigned long long host_copies() const { return host_copies_; }
  // Sets input elements (common/rep_check.h), contiguous runs in one copy each.
  void set_inputs(const std::vector<Edit>& edits);

  std::vector<float> output() const;
  // The output where the launcher writes it, on the device.
  const float* output_on_device() const { return output_.get(); }
  size_t output_count() const { return output_.size(); }
  // Canaries overwritten before and after the output.
  std::pair<size_t, size_t> damaged_guards() const { return output_.damaged_guards(); }
  // Names of the inputs whose device copy no longer equals `inputs`.
  std::vector<std::string> modified_inputs(const std::vector<std::vector<float>>& inputs) const;

 private:
  float* input(size_t i) const;  // input i as the launcher sees it (after the offset)

  Case case_;
  std::vector<DeviceBuffer<float>> inputs_;
  std::vector<DeviceBuffer<float>> pristine_;  // a timed case's inputs as they came
  GuardedOutput output_;
  unsigned long long host_copies_ = 0;
};

// An error's name and text, and what it usually means in these labs.
std::string explain_error(cudaError_t err);

}  // namespace lab
