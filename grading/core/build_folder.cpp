#include "grading/core/build_folder.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace grade {

namespace {

namespace fs = std::filesystem;

constexpr const char* kStampFile = ".grader-stamp";
constexpr const char* kLockFile = ".lock";

}  // namespace

bool prepare_build_folder(const std::string& folder, const std::string& stamp, std::string* error) {
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) {
    *error = "cannot make the build folder " + folder + ": " + ec.message();
    return false;
  }
  const std::string stamp_path = folder + "/" + kStampFile;
  std::stringstream kept;
  kept << std::ifstream(stamp_path).rdbuf();
  if (kept.str() == stamp) return true;
  // Only a folder this grader made is ever emptied: --build-dir naming a folder of other files
  // (a home, the checkout's build/) is refused, not wiped.
  if (!fs::exists(stamp_path)) {
    for (const fs::directory_entry& entry : fs::directory_iterator(folder, ec)) {
      if (entry.path().filename() == kLockFile) continue;
      *error = "the build folder " + folder + " holds files, but no " + kStampFile +
               ": it is not a folder the grader made, and the grader empties its build folder when it changes; "
               "give a new or empty folder";
      return false;
    }
  }
  for (const fs::directory_entry& entry : fs::directory_iterator(folder, ec)) {
    if (entry.path().filename() == kLockFile) continue;  // held by this grader
    fs::remove_all(entry.path(), ec);
    if (ec) {
      *error = "cannot empty the build folder " + folder + " (built by an older grader): " + ec.message();
      return false;
    }
  }
  std::ofstream(folder + "/" + kStampFile) << stamp;
  return true;
}

BuildLock::BuildLock(const std::string& folder) {
  fd_ = open((folder + "/" + kLockFile).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) return;  // an unwritable folder: its builds fail next, and say why
  if (flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
  std::printf("(waiting for another grader, which is building in %s)\n", folder.c_str());
  std::fflush(stdout);
  flock(fd_, LOCK_EX);
}

BuildLock::~BuildLock() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace grade
