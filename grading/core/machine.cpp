#include "grading/core/machine.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <string>

namespace grade {

int usable_cores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return int(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
}

namespace {

constexpr long long kUnknown = std::numeric_limits<long long>::max();

// A number of bytes in FILE's first word, or kUnknown ("max", or nothing to read).
long long bytes_in(const std::string& file) {
  std::ifstream in(file);
  std::string word;
  if (!(in >> word) || word == "max") return kUnknown;
  try {
    return std::stoll(word);
  } catch (const std::exception&) {
    return kUnknown;
  }
}

// MemAvailable of /proc/meminfo, in bytes.
long long available_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  long long kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024;
  }
  return kUnknown;
}

// What the cgroups of this process leave, from its own up to the root: a container's limit is
// often set on a cgroup above the one the process is in.
long long cgroup_spare_bytes() {
  std::ifstream in("/proc/self/cgroup");
  std::string line, path;
  while (std::getline(in, line)) {
    if (line.rfind("0::", 0) == 0) path = line.substr(3);
  }
  if (path.empty()) return kUnknown;
  long long spare = kUnknown;
  for (;;) {
    const std::string dir = "/sys/fs/cgroup" + (path == "/" ? std::string() : path);
    const long long max = bytes_in(dir + "/memory.max"), current = bytes_in(dir + "/memory.current");
    if (max != kUnknown && current != kUnknown) spare = std::min(spare, std::max(0LL, max - current));
    if (path == "/" || path.empty()) break;
    const size_t slash = path.rfind('/');
    path = slash == 0 ? "/" : path.substr(0, slash);
  }
  return spare;
}

}  // namespace

long long memory_to_spare_mib() {
  const long long spare = std::min(available_bytes(), cgroup_spare_bytes());
  return spare == kUnknown ? 0 : spare / (1024 * 1024);
}

}  // namespace grade
