#include "grading/core/turns.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

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

void Turns::hold_gpu(Kind kind) {
  if (lock_path_.empty()) return;
  const std::lock_guard<std::mutex> hold(gpu_mutex_);
  // The runs under way here are all of one kind (enter): the first takes the file for them all.
  if (gpu_runs_ == 0) {
    const int gate = locked(lock_path_ + ".gate", LOCK_EX);
    try {
      gpu_fd_ = locked(lock_path_, side_by_side_ && kind != Kind::alone ? LOCK_SH : LOCK_EX);
    } catch (...) {
      close(gate);
      throw;
    }
    close(gate);
  }
  ++gpu_runs_;
}

void Turns::release_gpu() {
  if (lock_path_.empty()) return;
  const std::lock_guard<std::mutex> hold(gpu_mutex_);
  if (--gpu_runs_ == 0) {
    close(gpu_fd_);
    gpu_fd_ = -1;
  }
}

Turn::Turn(Turns& turns, Turns::Kind kind) : turns_(turns) {
  turns_.enter(turns_.ask(), kind);
  try {
    turns_.hold_gpu(kind);
  } catch (...) {
    turns_.leave();
    throw;
  }
}

Turn::~Turn() {
  turns_.release_gpu();
  turns_.leave();
}

}  // namespace grade
