#include "grading/core/pass_clock.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <utility>

namespace grade {

namespace {

// The CPU time a process has used, its threads and the children it waited for, in seconds
// (/proc/PID/stat); -1 once it is gone.
double cpu_seconds(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t name_end = text.rfind(')');  // the command's name may hold spaces
  if (name_end == std::string::npos) return -1;
  std::istringstream fields(text.substr(name_end + 2));
  std::string field;
  double ticks = 0;
  // After the name: state (3), ... utime (14), stime (15), cutime (16), cstime (17).
  for (int i = 3; i <= 17 && fields >> field; ++i) {
    if (i >= 14) ticks += std::stod(field);
  }
  return ticks / double(sysconf(_SC_CLK_TCK));
}

}  // namespace

PassClock::PassClock(bool cpu, std::string started_file, double start_limit)
    : cpu_(cpu), started_file_(std::move(started_file)), start_limit_(start_limit) {}

void PassClock::starting() { std::remove(started_file_.c_str()); }

void PassClock::started(int pid) {
  pid_ = pid;
  base_ = spent_;
  spawned_ = wall_start_ = Clock::now();
  paused_ = Clock::duration{};
  open_ = cpu_;  // the CPU backend's clock counts CPU time, which its start hardly takes
  from_start_ = false;
}

void PassClock::ended() { spent_ = now(); }

bool PassClock::counting() {
  struct stat st;
  if (!open_ && stat(started_file_.c_str(), &st) == 0) {
    open_ = true;
    wall_start_ = Clock::now();
  }
  return open_;
}

void PassClock::shape_done() {
  if (open_) return;
  open_ = true;
  from_start_ = true;
}

bool PassClock::slow_start() const {
  return !open_ && pid_ != 0 && std::chrono::duration<double>(Clock::now() - wall_start_).count() > start_limit_;
}

double PassClock::since_start() const { return std::chrono::duration<double>(Clock::now() - spawned_ - paused_).count(); }

double PassClock::now() {
  if (pid_ == 0) return spent_;
  if (!cpu_) return base_ + std::chrono::duration<double>(Clock::now() - wall_start_).count();
  const double used = cpu_seconds(pid_);
  if (used >= 0) last_ = used;  // gone: what it had used when last looked at
  return base_ + last_;
}

}  // namespace grade
