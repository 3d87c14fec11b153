#include "harness/device_case.h"

#include <cstring>

#include "common/fill.h"
#include "harness/host_copies.h"
#include "harness/output_scan.h"
#include "common/protocol.h"

namespace lab {

DeviceCase::DeviceCase(const Case& c, const std::vector<std::vector<float>>& inputs, bool timed)
    : case_(c), output_(c.output_count(), c.guard_floats(), size_t(c.offset)) {
  for (const std::vector<float>& host : inputs) {
    inputs_.emplace_back(host.size() + size_t(c.offset));
    CUDA_CHECK(cudaMemcpy(input(inputs_.size() - 1), host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
    if (!timed) continue;
    pristine_.emplace_back(host.size());
    CUDA_CHECK(cudaMemcpy(pristine_.back().get(), host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
}

float* DeviceCase::input(size_t i) const { return inputs_[i].get() + case_.offset; }

void DeviceCase::enqueue(const Launcher& launcher) {
  std::vector<const float*> in;
  for (size_t i = 0; i < inputs_.size(); ++i) in.push_back(input(i));
  const unsigned long long before = host_device_copies();
  launcher(case_, in, output_.get());
  host_copies_ = host_device_copies() - before;
}

void DeviceCase::fill_output(unsigned char fill) { output_.poison(fill); }

void DeviceCase::set_inputs(const std::vector<Edit>& edits) {
  std::vector<float> values;
  for (size_t first = 0; first < edits.size(); first += values.size()) {
    values.clear();
    const Edit& e = edits[first];
    for (size_t i = first; i < edits.size() && edits[i].input == e.input && edits[i].index == e.index + values.size(); ++i) {
      values.push_back(edits[i].value);
    }
    CUDA_CHECK(cudaMemcpy(input(e.input) + e.index, values.data(), values.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
}

DeviceCase::Outcome DeviceCase::run(const Launcher& launcher, unsigned char fill) {
  fill_output(fill);
  CUDA_CHECK(cudaDeviceSynchronize());
  Outcome outcome;
  enqueue(launcher);
  outcome.launch = cudaGetLastError();
  outcome.run = cudaDeviceSynchronize();
  return outcome;
}

std::vector<float> DeviceCase::output() const {
  std::vector<float> host(output_.size());
  output_.download(host.data());
  return host;
}

std::vector<std::string> DeviceCase::modified_inputs(const std::vector<std::vector<float>>& inputs) const {
  std::vector<std::string> modified;
  const std::vector<std::string> names = case_.input_names();
  for (size_t i = 0; i < inputs_.size(); ++i) {
    // A timed case's inputs are compared on the device: copied back, 128 to 512 MiB took up to
    // 0.1 s of the grader's time alone at the GPU on the H200.
    if (!pristine_.empty()) {
      if (!equal_on_device(input(i), pristine_[i].get(), pristine_[i].size())) modified.push_back(names[i]);
      continue;
    }
    std::vector<float> now(inputs[i].size());
    CUDA_CHECK(cudaMemcpy(now.data(), input(i), now.size() * sizeof(float), cudaMemcpyDeviceToHost));
    if (std::memcmp(now.data(), inputs[i].data(), now.size() * sizeof(float)) != 0) modified.push_back(names[i]);
  }
  return modified;
}

std::string explain_error(cudaError_t err) {
  return std::string(cudaGetErrorName(err)) + " (" + cudaGetErrorString(err) + "): " + error_hint(cudaGetErrorName(err));
}

}  // namespace lab
