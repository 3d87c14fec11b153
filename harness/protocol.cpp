#include "harness/protocol.h"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace lab {

std::string format_case_line(const ServeCase& c) {
  const Case& s = c.shape;
  const int64_t d0 = s.op == Op::kMatmul ? s.M : s.op == Op::kTranspose ? s.rows : s.n;
  const int64_t d1 = s.op == Op::kMatmul ? s.N : s.op == Op::kTranspose ? s.cols : 0;
  const int64_t d2 = s.op == Op::kMatmul ? s.K : 0;
  std::ostringstream out;
  out << c.id << ' ' << (c.timed ? "time" : "check") << ' ' << op_name(s.op) << ' ' << d0 << ' ' << d1 << ' ' << d2
      << ' ' << c.reps << ' ' << c.warmup << ' ' << s.offset;
  return out.str();
}

bool parse_case_line(const std::string& line, ServeCase* c) {
  std::istringstream in(line);
  std::string kind, op;
  int64_t d0 = -1, d1 = -1, d2 = -1, offset = -1;
  if (!(in >> c->id >> kind >> op >> d0 >> d1 >> d2 >> c->reps >> c->warmup >> offset)) return false;
  if (offset < 0 || offset > 1024) return false;
  if (kind != "check" && kind != "time") return false;
  if (d0 < 0 || d1 < 0 || d2 < 0 || c->reps < 0 || c->warmup < 0) return false;
  c->timed = kind == "time";
  if (op == "matmul") {
    c->shape = Case::matmul(d0, d1, d2);
  } else if (op == "transpose") {
    c->shape = Case::transpose(d0, d1);
  } else if (op == "dot") {
    c->shape = Case::dot(d0);
  } else {
    return false;
  }
  c->shape.offset = offset;
  return true;
}

std::string format_result(const CaseResult& r) {
  std::ostringstream out;
  out.precision(9);
  out << "launch_error " << r.launch_error << "\nrun_error " << r.run_error << "\nguard_before " << r.guard_before
      << "\nguard_after " << r.guard_after << "\nmodified_inputs " << r.modified_inputs << "\nmedian_ms "
      << r.median_ms << "\ntimes_ms";
  for (double t : r.times_ms) out << ' ' << t;
  out << "\nfinished 1\n";
  return out.str();
}

CaseResult parse_result(const std::string& text) {
  CaseResult r;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const size_t space = line.find(' ');
    const std::string key = line.substr(0, space);
    const std::string value = space == std::string::npos ? "" : line.substr(space + 1);
    std::istringstream v(value);
    if (key == "launch_error") r.launch_error = value;
    if (key == "run_error") r.run_error = value;
    if (key == "guard_before") v >> r.guard_before;
    if (key == "guard_after") v >> r.guard_after;
    if (key == "modified_inputs") r.modified_inputs = value;
    if (key == "median_ms") v >> r.median_ms;
    if (key == "times_ms") {
      for (double t; v >> t;) r.times_ms.push_back(t);
    }
    if (key == "finished") r.finished = value == "1";
  }
  return r;
}

std::string error_hint(const std::string& name) {
  if (name == "cudaErrorInvalidConfiguration" || name == "cudaErrorInvalidValue") {
    return "the launch configuration is invalid: at most 1024 threads per block, no dimension 0, "
           "grid y and z at most 65535, dynamic shared memory above 48 KB only after "
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

ResultFields read_result_file(const std::string& path) {
  ResultFields fields;
  std::ifstream in(path);
  std::string key, value;
  while (in >> key && std::getline(in >> std::ws, value)) fields[key] = value;
  return fields;
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
