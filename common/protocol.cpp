#include "common/protocol.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace lab {

std::string format_case_line(const ServeCase& c) {
  int64_t d[3];
  c.shape.dims(d);
  std::ostringstream out;
  out << c.id << ' ' << (c.timed ? "time" : "check") << ' ' << op_name(c.shape.op) << ' ' << d[0] << ' ' << d[1]
      << ' ' << d[2] << ' ' << c.reps << ' ' << c.warmup << ' ' << c.shape.offset << ' '
      << (c.zero_fill ? "zero" : "poison");
  return out.str();
}

bool parse_case_line(const std::string& line, ServeCase* c) {
  std::istringstream in(line);
  std::string kind, op, fill;
  int64_t d[3] = {-1, -1, -1}, offset = -1;
  if (!(in >> c->id >> kind >> op >> d[0] >> d[1] >> d[2] >> c->reps >> c->warmup >> offset >> fill)) return false;
  if (offset < 0 || offset > 1024 || (fill != "poison" && fill != "zero")) return false;
  c->zero_fill = fill == "zero";
  if (kind != "check" && kind != "time") return false;
  if (d[0] < 0 || d[1] < 0 || d[2] < 0 || c->reps < 0 || c->warmup < 0) return false;
  c->timed = kind == "time";
  if (!Case::from_dims(op, d, &c->shape)) return false;
  c->shape.offset = offset;
  return true;
}

std::string format_result(const CaseResult& r) {
  std::ostringstream out;
  out.precision(9);
  out << "launch_error " << r.launch_error << "\nrun_error " << r.run_error << "\nguard_before " << r.guard_before
      << "\nguard_after " << r.guard_after << "\nmodified_inputs " << r.modified_inputs << "\nhost_copies " << r.host_copies
      << "\nlost_updates " << r.lost_updates << "\nlost_update " << r.lost_update << "\npeak_tflops "
      << r.peak_tflops << "\ncopy_tbps " << r.copy_tbps << "\n";
  // Sampled values as their bits, so that a NaN reads back as the NaN it was.
  for (size_t i = 0; i < r.calls.size(); ++i) {
    const TimedCall& call = r.calls[i];
    out << "call." << i << ' ' << call.ms << ' ' << call.edit_seed << ' ' << call.sample_seed << ' ' << call.nonfinite
        << std::hex;
    for (float v : call.samples) {
      uint32_t bits;
      std::memcpy(&bits, &v, sizeof bits);
      out << ' ' << bits;
    }
    out << std::dec << "\n";
  }
  out << "finished 1\n";
  return out.str();
}

CaseResult parse_result(const std::string& text) {
  CaseResult r;
  for (const auto& [key, value] : parse_fields(text)) {
    std::istringstream v(value);
    if (key == "launch_error") r.launch_error = value;
    if (key == "run_error") r.run_error = value;
    if (key == "guard_before") v >> r.guard_before;
    if (key == "guard_after") v >> r.guard_after;
    if (key == "modified_inputs") r.modified_inputs = value;
    if (key == "host_copies") v >> r.host_copies;
    if (key == "lost_updates") v >> r.lost_updates;
    if (key == "lost_update") r.lost_update = value;
    if (key == "peak_tflops") v >> r.peak_tflops;
    if (key == "copy_tbps") v >> r.copy_tbps;
    if (key.compare(0, 5, "call.") == 0) {
      TimedCall call;
      v >> call.ms >> call.edit_seed >> call.sample_seed >> call.nonfinite >> std::hex;
      for (uint32_t bits; v >> bits;) {
        float x;
        std::memcpy(&x, &bits, sizeof x);
        call.samples.push_back(x);
      }
      const size_t i = size_t(std::atoll(key.c_str() + 5));
      if (i < kMaxTimedCalls) {
        if (r.calls.size() <= i) r.calls.resize(i + 1);
        r.calls[i] = call;
      }
    }
    if (key == "finished") r.finished = value == "1";
  }
  return r;
}

std::string error_hint(const std::string& name) {
  if (name == "cudaErrorInvalidConfiguration" || name == "cudaErrorInvalidValue") {
    return "the launch configuration is invalid: at most 1024 threads per block, no dimension 0, "
           "grid y and z at most 65535 (kMaxGridRows), dynamic "
           "shared memory above 48 KB only after "
           "cudaFuncSetAttribute.";
  }
  if (name == "cudaErrorLaunchOutOfResources") {
    return "the block needs more registers or shared memory than a multiprocessor has; use fewer "
           "threads per block or less shared memory.";
  }
  if (name == "cudaErrorIllegalAddress" || name == "cudaErrorLaunchFailure") {
    return "a kernel accessed memory outside its arrays, or failed a barrier. Check the bounds "
           "guards; compute-sanitizer (GPU) or the CPU backend's AddressSanitizer build (make "
           "grade runs both) shows the line.";
  }
  if (name == "cudaErrorMisalignedAddress") {
    return "a wide load or store (float4: 16 bytes) used an address that is not a multiple of its width.";
  }
  if (name == "cudaErrorAssert") return "an assert in a kernel failed (its message is above).";
  return "see its description.";
}

ResultFields parse_fields(const std::string& text) {
  ResultFields fields;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const size_t space = line.find(' ');
    if (line.empty()) continue;
    fields[line.substr(0, space)] = space == std::string::npos ? "" : line.substr(space + 1);
  }
  return fields;
}

ResultFields read_result_file(const std::string& path) {
  std::ifstream in(path);
  return parse_fields(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
}

bool write_floats(const std::string& path, const float* data, size_t count) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const bool ok = std::fwrite(data, sizeof(float), count, f) == count;
  return std::fclose(f) == 0 && ok;
}

bool read_floats(const std::string& path, std::vector<float>* data, size_t count) {
  data->assign(count, 0.0f);
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  const bool ok = std::fread(data->data(), sizeof(float), count, f) == count && std::fgetc(f) == EOF;
  std::fclose(f);
  return ok;
}

}  // namespace lab
