#include "grading/core/turns.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace grade {

namespace {

// Opens PATH (made if missing) and takes flock OPERATION on it; the descriptor.
int locked(const std::string& path, int operation) {
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error("cannot open the GPU's lock file " + path + ": " + std::strerror(errno));
  int r;
  while ((r = flock(fd, operation)) != 0 && errno == EINTR) {
  }
  if (r != 0) {
    const int error = errno;
    close(fd);
    throw std::runtime_error("cannot lock " + path + ": " + std::strerror(error));
  }
  return fd;
}

}  // namespace

uint64_t Turns::ask() {
  const std::lock_guard<std::mutex> hold(mutex_);
  return next_ticket_++;
}

void Turns::enter(uint64_t ticket, Kind kind) {
  std::unique_lock<std::mutex> hold(mutex_);
  changed_.wait(hold, [&] { return ticket == next_in_ && (running_ == 0 || (kind == kind_ && kind != Kind::alone)); });
  ++next_in_;
  ++running_;
  kind_ = kind;
  // The run after this one may be of the same kind, and go in too.
  changed_.notify_all();
}

void Turns::leave() {
  const std::lock_guard<std::mutex> hold(mutex_);
  --running_;
  changed_.notify_all();
}

void Turns::share_with_graders(const std::string& lock_path, bool side_by_side) {
  lock_path_ = lock_path;
  side_by_side_ = side_by_side;
}

bool Turns::exclusive_wanted() const {
  const int fd = open((lock_path_ + ".wanted").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  const bool wanted = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  close(fd);
  return wanted;
}

void Turns::hold_gpu(Kind kind) {
  if (lock_path_.empty()) return;
  std::unique_lock<std::mutex> hold(gpu_mutex_);
  // Held alone, the run goes in at once: the others' runs ended before this grader had it.
  if (gpu_fd_ >= 0 && exclusive_) {
    ++gpu_runs_;
    return;
  }
  // The runs under way here are all of one kind (enter): the first takes the file for them all,
  // and the others join it; side by side, not while another grader waits to take it exclusively
  // (they wait for this grader to let go, and queue behind that one: a grader whose runs overlap
  // would hold it shared for ever).
  if (gpu_runs_ > 0 && side_by_side_ && exclusive_wanted()) gpu_free_.wait(hold, [&] { return gpu_runs_ == 0; });
  if (gpu_fd_ < 0) {
    const bool exclusive = !side_by_side_ || kind == Kind::alone;
    // A grader takes the timer before it waits to have the GPU alone (unless its round holds
    // it), and keeps it while it has it.
    if (exclusive && timer_fd_ < 0) {
      timer_fd_ = locked(lock_path_ + ".timer", LOCK_EX);
      timer_for_run_ = true;
    }
    // A grader waiting to take it exclusively says so (the wanted file, shared among such
    // graders) until it has it, and holds the gate meanwhile.
    std::vector<int> held;
    try {
      if (exclusive) held.push_back(locked(lock_path_ + ".wanted", LOCK_SH));
      held.push_back(locked(lock_path_ + ".gate", LOCK_EX));
      gpu_fd_ = locked(lock_path_, exclusive ? LOCK_EX : LOCK_SH);
    } catch (...) {
      for (int fd : held) close(fd);
      if (timer_for_run_) {
        close(timer_fd_);
        timer_fd_ = -1;
        timer_for_run_ = false;
      }
      throw;
    }
    for (int fd : held) close(fd);
    exclusive_ = exclusive;
  }
  ++gpu_runs_;
}

void Turns::let_go() {
  if (gpu_runs_ > 0 || gpu_fd_ < 0 || (keeping_ && exclusive_)) return;
  close(gpu_fd_);
  gpu_fd_ = -1;
  exclusive_ = false;
  if (timer_for_run_) {
    close(timer_fd_);
    timer_fd_ = -1;
    timer_for_run_ = false;
  }
  gpu_free_.notify_all();
}

void Turns::take_alone() {
  if (lock_path_.empty() || exclusive_) return;
  // The runs under way here hold it shared: let go and take it exclusively, the gate held, so
  // that no grader takes it in between (and none but this one, with the timer, may want it alone).
  std::vector<int> held;
  try {
    held.push_back(locked(lock_path_ + ".wanted", LOCK_SH));
    held.push_back(locked(lock_path_ + ".gate", LOCK_EX));
    if (gpu_fd_ >= 0) close(gpu_fd_);
    gpu_fd_ = -1;
    gpu_fd_ = locked(lock_path_, LOCK_EX);
  } catch (...) {
    for (int fd : held) close(fd);
    throw;
  }
  for (int fd : held) close(fd);
  exclusive_ = true;
}

void Turns::release_gpu() {
  if (lock_path_.empty()) return;
  const std::lock_guard<std::mutex> hold(gpu_mutex_);
  --gpu_runs_;
  let_go();
}

void Turns::keep_alone() {
  const int timer = lock_path_.empty() ? -1 : locked(lock_path_ + ".timer", LOCK_EX);
  const std::lock_guard<std::mutex> hold(gpu_mutex_);
  timer_fd_ = timer;
  timer_for_run_ = false;
  keeping_ = true;
}

void Turns::end_keeping() {
  const std::lock_guard<std::mutex> hold(gpu_mutex_);
  keeping_ = false;
  let_go();
  if (timer_fd_ >= 0 && !timer_for_run_) {
    close(timer_fd_);
    timer_fd_ = -1;
  }
}

void Turns::begin_setup() {
  std::unique_lock<std::mutex> hold(mutex_);
  changed_.wait(hold, [&] { return !timing_; });
  ++setting_up_;
}

void Turns::ready_to_time() {
  {
    std::unique_lock<std::mutex> hold(mutex_);
    --setting_up_;
    changed_.notify_all();
    changed_.wait(hold, [&] { return setting_up_ == 0 && !timing_; });
    timing_ = true;
  }
  try {
    const std::lock_guard<std::mutex> hold(gpu_mutex_);
    take_alone();
  } catch (...) {
    end_timed_stage(true);
    throw;
  }
}

void Turns::end_timed_stage(bool over) {
  const std::lock_guard<std::mutex> hold(mutex_);
  if (over) {
    timing_ = false;
  } else {
    --setting_up_;
  }
  changed_.notify_all();
}

ProfilerTurn::ProfilerTurn(const std::string& path) {
  if (!path.empty()) fd_ = locked(path, LOCK_EX);
}

ProfilerTurn::~ProfilerTurn() {
  if (fd_ >= 0) close(fd_);
}

Turn::Turn(Turns& turns, Turns::Kind kind, bool timed) : turns_(turns), stage_(timed ? Stage::setting_up : Stage::untimed) {
  turns_.enter(turns_.ask(), kind);
  if (timed) turns_.begin_setup();
  try {
    turns_.hold_gpu(kind);
  } catch (...) {
    if (timed) turns_.end_timed_stage(false);
    turns_.leave();
    throw;
  }
}

bool Turn::ready() {
  if (stage_ == Stage::untimed) return false;
  if (stage_ != Stage::setting_up) return true;
  stage_ = Stage::over;  // if it throws, ready_to_time() ended the stage
  turns_.ready_to_time();
  stage_ = Stage::timing;
  return true;
}

void Turn::timed() {
  if (stage_ != Stage::timing) return;
  stage_ = Stage::over;
  turns_.end_timed_stage(true);
}

Turn::~Turn() {
  // A program that ended setting up or timing (a crash, a limit) lets the others go on.
  if (stage_ == Stage::setting_up) turns_.end_timed_stage(false);
  if (stage_ == Stage::timing) turns_.end_timed_stage(true);
  turns_.release_gpu();
  turns_.leave();
}

}  // namespace grade
