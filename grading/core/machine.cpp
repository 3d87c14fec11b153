#include "grading/core/machine.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "tools/subprocess.h"

namespace grade {

namespace {

int cores_limit = 0;  // limit_cores's; 0: none

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

// The value of KEY in a file of "key value" lines (/proc/meminfo, a cgroup's memory.stat), or kUnknown.
long long value_of(const std::string& file, const std::string& key) {
  std::ifstream in(file);
  std::string k;
  long long v = 0;
  std::string rest;
  while (in >> k >> v) {
    if (k == key) return v;
    std::getline(in, rest);
  }
  return kUnknown;
}

// The folder of this process's cgroup under ROOT: where the path /proc/self/cgroup gives for
// CONTROLLER ("" for cgroup v2's line) lies, or ROOT itself where the path is not there (a
// container whose cgroup namespace shows its own cgroup as the root).
std::string cgroup_folder(const std::string& root, const std::string& controller) {
  std::ifstream in("/proc/self/cgroup");
  for (std::string line; std::getline(in, line);) {
    const size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string list = "," + line.substr(a + 1, b - a - 1) + ",";
    if (controller.empty() ? b != a + 1 : list.find("," + controller + ",") == std::string::npos) continue;
    const std::string path = line.substr(b + 1);
    std::error_code ec;
    return std::filesystem::is_directory(root + path, ec) && path != "/" ? root + path : root;
  }
  return "";
}

// What cgroup v2 leaves, from this process's cgroup up to the root (a container's limit is often
// on a cgroup above): each level's limit (memory.max, memory.high) less what it holds, the page
// cache it may drop not counted.
long long cgroup_v2_spare() {
  std::string dir = cgroup_folder("/sys/fs/cgroup", "");
  long long spare = kUnknown;
  for (std::error_code ec; !dir.empty() && std::filesystem::exists(dir + "/memory.current", ec);) {
    const long long limit = std::min(bytes_in(dir + "/memory.max"), bytes_in(dir + "/memory.high"));
    const long long held = bytes_in(dir + "/memory.current"), cache = value_of(dir + "/memory.stat", "inactive_file");
    if (limit != kUnknown && held != kUnknown) spare = std::min(spare, std::max(0LL, limit - held + (cache == kUnknown ? 0 : cache)));
    if (dir == "/sys/fs/cgroup") break;
    dir = std::filesystem::path(dir).parent_path().string();
  }
  return spare;
}

// What cgroup v1's memory controller leaves: the limit over this cgroup and its parents less
// what it holds, its droppable page cache not counted.
long long cgroup_v1_spare() {
  const std::string dir = cgroup_folder("/sys/fs/cgroup/memory", "memory");
  if (dir.empty()) return kUnknown;
  const long long limit = value_of(dir + "/memory.stat", "hierarchical_memory_limit");
  const long long held = bytes_in(dir + "/memory.usage_in_bytes"), cache = value_of(dir + "/memory.stat", "total_inactive_file");
  if (limit == kUnknown || held == kUnknown) return kUnknown;
  return std::max(0LL, limit - held + (cache == kUnknown ? 0 : cache));
}

// The CPUs one cgroup folder's quota gives: cgroup v2's cpu.max ("QUOTA PERIOD", or "max PERIOD"),
// v1's cpu.cfs_quota_us over cpu.cfs_period_us (-1: none); rounded up; 0 for none.
int folder_quota_cores(const std::string& dir) {
  long long quota = kUnknown, period = kUnknown;
  std::ifstream v2(dir + "/cpu.max");
  std::string word;
  if (v2 >> word >> period) {
    quota = word == "max" ? kUnknown : std::atoll(word.c_str());
  } else {
    quota = bytes_in(dir + "/cpu.cfs_quota_us");
    period = bytes_in(dir + "/cpu.cfs_period_us");
  }
  if (quota == kUnknown || period == kUnknown || quota <= 0 || period <= 0) return 0;
  return int((quota + period - 1) / period);
}

}  // namespace

int quota_cores(const std::string& folder, const std::string& root) {
  int cores = 0;
  for (std::string dir = folder; !dir.empty();) {
    const int here = folder_quota_cores(dir);
    if (here > 0) cores = cores == 0 ? here : std::min(cores, here);
    if (dir == root || dir.size() <= root.size() || dir.compare(0, root.size(), root) != 0) break;
    dir = std::filesystem::path(dir).parent_path().string();
  }
  return cores;
}

void limit_cores(int cores) { cores_limit = cores; }

int usable_cores() {
  cpu_set_t set;
  int cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : int(sysconf(_SC_NPROCESSORS_ONLN));
  // A container given CPUs by quota (docker --cpus) sees all the host's cores in its affinity.
  for (const int quota : {quota_cores(cgroup_folder("/sys/fs/cgroup", ""), "/sys/fs/cgroup"),
                          quota_cores(cgroup_folder("/sys/fs/cgroup/cpu", "cpu"), "/sys/fs/cgroup/cpu")}) {
    if (quota > 0) cores = std::min(cores, quota);
  }
  if (cores_limit > 0) cores = std::min(cores, cores_limit);
  return std::max(1, cores);
}

long long memory_to_spare_mib() {
  const long long kib = value_of("/proc/meminfo", "MemAvailable:");
  const long long spare = std::min({kib == kUnknown ? kUnknown : kib * 1024, cgroup_v2_spare(), cgroup_v1_spare()});
  return spare == kUnknown ? 0 : spare / (1024 * 1024);
}

std::string visible_gpus() {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  return visible != nullptr && *visible != '\0' ? visible : "all";
}

std::string cpu_backend_missing() {
  if (tools::run_command({"cpusim/cpucc", "--check-deps"}).exited(0)) return "";
  return "the CPU backend cannot be built here: Boost.Context is missing (scripts/install-deps boost installs it)";
}

}  // namespace grade
