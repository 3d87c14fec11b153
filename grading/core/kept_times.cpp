#include "grading/core/kept_times.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "grading/core/atomic_file.h"
#include "grading/core/machine.h"

namespace grade {

std::string kept_times_path(const Context& ctx, const LabRubric& lab, const Program& solution, const std::string& what) {
  const bool gpu = ctx.backend == "gpu";
  // Student code as a user of its own, fenced: a grader that is not root shares its user with
  // student code, whose processes might reach the build folder through another's /proc/PID/root.
  if (!ctx.sandbox.namespaces || !ctx.sandbox.as_student || (gpu && ctx.class_run.empty())) return "";
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  const char* threads = std::getenv("CPUSIM_THREADS");
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  std::string key = solution.fingerprint + "\n" + solution.step + "\n" + what + "\n" + host + "\n" +
                    std::to_string(usable_cores()) + " " + std::to_string(std::thread::hardware_concurrency()) + " " +
                    (threads != nullptr ? threads : "-") + "\n";
  if (gpu) key += ctx.device + "\n" + (visible != nullptr ? visible : "-") + "\n" + ctx.class_run + "\n";
  for (const lab::Case& shape : lab.shapes) key += shape.describe() + "\n";
  key += lab.performance_shape.describe() + "\n";
  char name[32];
  std::snprintf(name, sizeof name, "%016zx", std::hash<std::string>{}(key));
  return ctx.build_dir + "/solution-times/" + name;
}

std::optional<std::vector<double>> read_kept_times(const std::string& path, size_t n) {
  std::ifstream in(path);
  std::string title;
  if (!std::getline(in, title) || title.rfind("# ", 0) != 0) return std::nullopt;
  std::vector<double> numbers;
  for (double x; in >> x;) {
    if (!std::isfinite(x)) return std::nullopt;
    numbers.push_back(x);
  }
  if (numbers.size() != n) return std::nullopt;
  return numbers;
}

void keep_times(const std::string& path, const std::string& title, const std::vector<double>& numbers) {
  std::ostringstream text;
  text.precision(17);  // read back as measured
  text << "# " << title << "\n";
  for (double x : numbers) text << x << "\n";
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  write_atomically(path, text.str());
}

}  // namespace grade
