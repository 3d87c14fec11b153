#include "grading/core/atomic_file.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

namespace grade {

// Makes the folder first: a report folder inside the build folder (as --out and --build-dir may
// name) is gone when a new grader empties that (grading/core/build_folder.h). The temporary file's
// name is the writer's own (a random suffix): writers of one path at once, such as Slurm tasks
// starting together on a shared folder, would otherwise rename each other's file away.
bool write_atomically(const std::string& path, const std::string& text) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  static thread_local std::mt19937_64 draw{std::random_device{}()};
  char suffix[32];
  snprintf(suffix, sizeof suffix, ".tmp.%016llx", static_cast<unsigned long long>(draw()));
  const std::string tmp = path + suffix;
  std::ofstream out(tmp, std::ios::trunc);
  out << text;
  out.close();
  if (out && std::rename(tmp.c_str(), path.c_str()) == 0) return true;
  std::remove(tmp.c_str());
  return false;
}

}  // namespace grade
