#include "grading/core/student_uid.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "grading/core/cannot_grade.h"

namespace grade {

namespace {

namespace fs = std::filesystem;

constexpr unsigned kNobodyUid = 65534;
constexpr unsigned kLowestUid = 65000;  // the bottom of Debian's reserved range
constexpr char kLockFolder[] = "/run/workbook-grade";

// Whether UID may run student code: no user or group of this machine is it (whose files, or
// whose group's, it would reach), but for nobody and its group nogroup, which own nothing.
bool unnamed(unsigned uid) {
  std::vector<char> buffer(1 << 16);
  passwd user_entry{};
  passwd* found_user = nullptr;
  getpwuid_r(uid, &user_entry, buffer.data(), buffer.size(), &found_user);
  if (uid == kNobodyUid) return found_user == nullptr || std::strcmp(found_user->pw_name, "nobody") == 0;
  group group_entry{};
  group* found_group = nullptr;
  getgrgid_r(uid, &group_entry, buffer.data(), buffer.size(), &found_group);
  return found_user == nullptr && found_group == nullptr;
}

// Whether a live process runs as UID, by its real, effective, saved or file-system uid (the
// status file, which every process has and none can hide, unlike its /proc folder's owner).
bool runs_processes(unsigned uid) {
  std::error_code ec;
  for (const fs::directory_entry& process : fs::directory_iterator("/proc", ec)) {
    if (process.path().filename().string().find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream status(process.path() / "status");
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("Uid:", 0) != 0) continue;
      std::istringstream ids(line.substr(4));
      for (unsigned id; ids >> id;) {
        if (id == uid) return true;
      }
      break;
    }
  }
  return false;
}

}  // namespace

std::string machine_lock_folder() {
  const bool root = geteuid() == 0;
  // Root's folder is the machine's; another user's, in /tmp, is that user's alone (mode 0700).
  const std::string folder = root ? kLockFolder : "/tmp/workbook-grade-" + std::to_string(geteuid());
  if (mkdir(folder.c_str(), root ? 0755 : 0700) != 0 && errno != EEXIST) {
    throw CannotGrade("cannot make " + folder + ", where gradings on this machine take turns: " + std::strerror(errno));
  }
  // One that others may write is refused: a student's program could hold a lock there, or
  // replace a lock file with its own.
  struct stat st {};
  if (lstat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & (root ? 022 : 077)) != 0) {
    throw CannotGrade(folder + ", where gradings on this machine take turns, is not a folder that only " +
                      (root ? std::string("root") : "this user") + " may write");
  }
  return folder;
}

namespace {

// The uids of the pool, in the order they are taken.
const std::vector<unsigned>& pool() {
  static const std::vector<unsigned> uids = [] {
    std::vector<unsigned> found;
    for (unsigned uid = kNobodyUid; found.size() < kStudentUidPoolSize && uid >= kLowestUid; --uid) {
      if (unnamed(uid)) found.push_back(uid);
    }
    return found;
  }();
  return uids;
}

}  // namespace

std::unique_ptr<StudentUid> StudentUid::try_take() {
  const std::string folder = machine_lock_folder();
  if (pool().empty()) throw CannotGrade("no uid of 65000 to 65534 is free of a user or group of this machine: none to run student code as");
  for (unsigned uid : pool()) {
    const std::string path = folder + "/uid-" + std::to_string(uid) + ".lock";
    // Not inherited by what the grader runs: a student's program holding it could unlock it.
    const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) throw CannotGrade("cannot open " + path + ": " + std::strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) == 0 && !runs_processes(uid)) return std::unique_ptr<StudentUid>(new StudentUid(uid, fd));
    close(fd);
  }
  return nullptr;
}

std::unique_ptr<StudentUid> StudentUid::take() {
  for (bool said = false;; said = true) {
    if (std::unique_ptr<StudentUid> taken = try_take()) return taken;
    if (!said) {
      std::printf("(waiting for a user to run student code as: the other gradings on this machine hold every one)\n");
      std::fflush(stdout);
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

StudentUid::~StudentUid() { close(fd_); }

}  // namespace grade
