#include "grading/core/estimates.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>

#include "grading/core/atomic_file.h"

namespace grade {

namespace {

const char kHeader[] =
    "# The solutions' estimated times at the rubric's technique shapes, per reference GPU: the roofline of\n"
    "# grading/core/estimate.h over the CPU backend's counts (a floor; docs/estimate.md says how far off).\n"
    "# The technique check shows a student's estimate beside these. Written by make record-estimates.\n"
    "# Fields, separated by tabs: part, shape, gpu, ms, date, commit.\n";

std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> fields;
  std::istringstream in(line);
  for (std::string f; std::getline(in, f, '\t');) fields.push_back(f);
  return fields;
}

}  // namespace

bool load_estimates(const std::string& path, std::vector<SolutionEstimate>* estimates, std::string* error) {
  std::ifstream in(path);
  if (!in) return true;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> f = fields_of(line);
    char* end = nullptr;
    const double ms = f.size() == 6 ? std::strtod(f[3].c_str(), &end) : 0;
    if (f.size() != 6 || end == f[3].c_str() || *end != '\0' || !(ms > 0)) {
      *error = path + ":" + std::to_string(number) + ": not part, shape, gpu, ms, date and commit separated by tabs";
      return false;
    }
    estimates->push_back({f[0], f[1], f[2], ms, f[4], f[5]});
  }
  return true;
}

std::optional<double> estimate_ms(const std::vector<SolutionEstimate>& estimates, const std::string& part, const std::string& shape,
                                  const std::string& gpu) {
  for (const SolutionEstimate& e : estimates) {
    if (e.part == part && e.shape == shape && e.gpu == gpu) return e.ms;
  }
  return std::nullopt;
}

bool record_estimate(const std::string& path, const SolutionEstimate& e) {
  static std::mutex file;
  const std::lock_guard<std::mutex> hold(file);
  std::vector<SolutionEstimate> all;
  std::string error;
  if (!load_estimates(path, &all, &error)) return false;
  all.erase(std::remove_if(all.begin(), all.end(),
                           [&](const SolutionEstimate& o) { return o.part == e.part && o.shape == e.shape && o.gpu == e.gpu; }),
            all.end());
  all.push_back(e);
  std::sort(all.begin(), all.end(), [](const SolutionEstimate& a, const SolutionEstimate& b) {
    return a.part != b.part ? a.part < b.part : a.shape != b.shape ? a.shape < b.shape : a.gpu < b.gpu;
  });
  std::string text = kHeader;
  char ms[32];
  for (const SolutionEstimate& x : all) {
    std::snprintf(ms, sizeof ms, "%.6g", x.ms);
    text += x.part + "\t" + x.shape + "\t" + x.gpu + "\t" + ms + "\t" + x.date + "\t" + x.commit + "\n";
  }
  return write_atomically(path, text);
}

}  // namespace grade
