// What the grader reads of its machine (grading/core/machine.h): the CPUs a cgroup's quota gives,
// cgroup v2's and v1's, at the folder and above it, the least of them, rounded up; none where no
// folder has a quota. Made-up cgroup folders here; make grade on a real quota: docs/grading-speed.md.
#include "grading/core/machine.h"

#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace fs = std::filesystem;

namespace {

// A made-up cgroup tree under build/test: FILES maps a path under its root to its text.
std::string tree(const std::string& name, const std::vector<std::pair<std::string, std::string>>& files) {
  const fs::path root = fs::absolute("build/test/machine-" + std::to_string(getpid()) + "-" + name);
  fs::remove_all(root);
  fs::create_directories(root);
  for (const auto& [path, text] : files) {
    fs::create_directories((root / path).parent_path());
    std::ofstream(root / path) << text;
  }
  return root.string();
}

}  // namespace

TEST_SUITE("machine") {

TEST_CASE("cgroup v2: cpu.max's quota over its period, rounded up, the least from the folder up to the root") {
  const std::string root = tree("v2", {{"cpu.max", "max 100000\n"},
                                       {"docker/cpu.max", "150000 100000\n"},
                                       {"docker/grader/cpu.max", "max 100000\n"},
                                       {"docker/grader/run/cpu.max", "400000 100000\n"}});
  CHECK(grade::quota_cores(root + "/docker/grader/run", root) == 2);  // 1.5 CPUs above it: 2 cores' worth
  CHECK(grade::quota_cores(root + "/docker/grader", root) == 2);
  CHECK(grade::quota_cores(root, root) == 0);  // "max": no quota
  const std::string half = tree("v2-half", {{"box/cpu.max", "50000 100000\n"}});
  CHECK(grade::quota_cores(half + "/box", half) == 1);  // never less than a core
  fs::remove_all(root);
  fs::remove_all(half);
}

TEST_CASE("cgroup v1: cpu.cfs_quota_us over cpu.cfs_period_us, -1 none") {
  const std::string root = tree("v1", {{"cpu.cfs_quota_us", "-1\n"},
                                       {"cpu.cfs_period_us", "100000\n"},
                                       {"box/cpu.cfs_quota_us", "300000\n"},
                                       {"box/cpu.cfs_period_us", "100000\n"},
                                       {"open/cpu.cfs_quota_us", "-1\n"},
                                       {"open/cpu.cfs_period_us", "100000\n"}});
  CHECK(grade::quota_cores(root + "/box", root) == 3);
  CHECK(grade::quota_cores(root + "/open", root) == 0);
  fs::remove_all(root);
}

TEST_CASE("no quota files, or a folder outside the root, or none: no quota, and the cores are at least one") {
  const std::string root = tree("none", {{"box/other", "x\n"}});
  CHECK(grade::quota_cores(root + "/box", root) == 0);
  CHECK(grade::quota_cores("", root) == 0);
  const std::string other = tree("outside", {{"cpu.max", "200000 100000\n"}});
  CHECK(grade::quota_cores(other, root) == 2);  // that folder's own, and nothing above it read
  CHECK(grade::usable_cores() >= 1);
  fs::remove_all(root);
  fs::remove_all(other);
}
}
