#include "harness/device_case.h"

#include <cstring>

#include "common/fill.h"

namespace lab {

void Launcher::operator()(const Case& c, const std::vector<const float*>& in, float* out) const {
  switch (c.op) {
    case Op::kMatmul: matmul(in[0], in[1], out, int(c.M), int(c.N), int(c.K)); break;
    case Op::kTranspose: transpose(in[0], out, int(c.rows), int(c.cols)); break;
    case Op::kDot: dot(in[0], in[1], out, int(c.n)); break;
  }
}

DeviceCase::DeviceCase(const Case& c, const std::vector<std::vector<float>>& inputs)
    : case_(c), output_(c.output_count()) {
  for (const std::vector<float>& host : inputs) {
    inputs_.emplace_back(host.size());
    inputs_.back().upload(host);
  }
}

void DeviceCase::enqueue(const Launcher& launcher) {
  std::vector<const float*> in;
  for (const DeviceBuffer<float>& buffer : inputs_) in.push_back(buffer.get());
  launcher(case_, in, output_.get());
}

DeviceCase::Outcome DeviceCase::run(const Launcher& launcher) {
  output_.poison(kPoisonByte);
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
    const std::vector<float> now = inputs_[i].download();
    if (std::memcmp(now.data(), inputs[i].data(), now.size() * sizeof(float)) != 0) modified.push_back(names[i]);
  }
  return modified;
}

std::string explain_error(cudaError_t err) {
  std::string text = std::string(cudaGetErrorName(err)) + " (" + cudaGetErrorString(err) + ")";
  switch (err) {
    case cudaErrorInvalidConfiguration:
      return text + ": the grid or block size is invalid (at most 1024 threads per block, "
                    "no dimension 0, grid y and z at most 65535).";
    case cudaErrorInvalidValue:
      return text + ": a launch or runtime call got an invalid argument (too much dynamic "
                    "shared memory?).";
    case cudaErrorLaunchOutOfResources:
      return text + ": the block needs more registers or shared memory than a multiprocessor "
                    "has; use fewer threads per block.";
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
      return text + ": a kernel accessed memory outside its arrays. Check the bounds guards; "
                    "compute-sanitizer (GPU) or the CPU backend's AddressSanitizer build "
                    "shows the line.";
    case cudaErrorMisalignedAddress:
      return text + ": a wide load or store (float4: 16 bytes) used an address that is not a "
                    "multiple of its width.";
    case cudaErrorAssert:
      return text + ": an assert in a kernel failed (its message is above).";
    default:
      return text + ".";
  }
}

}  // namespace lab
