#include "grading/core/turns.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <utility>

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
  // In a round, every run: a timed pass's, a ceiling's measure.
  const bool exclusive = !side_by_side_ || kind == Kind::alone || keeping_;
  // The runs under way here are all of one kind (enter): the first takes the file for them all,
  // and the others join it; side by side, not while another grader waits to take it exclusively
  // (they wait for this grader to let go, and queue behind that one: a grader whose runs overlap
  // would hold it shared for ever), and a run alone never joins them: it waits for them to end.
  if (gpu_runs_ > 0 && side_by_side_ && (exclusive || exclusive_wanted())) gpu_free_.wait(hold, [&] { return gpu_runs_ == 0; });
  if (gpu_fd_ < 0) {
    // A grader takes the timer before it waits to have the GPU alone (unless its round holds
    // it), and keeps it while it has it.
    if (exclusive && timer_fd_ < 0) {
      std::tie(timer_fd_, wanted_fd_) = take_timer();
      timer_for_run_ = true;
    }
    try {
      if (exclusive) {
        take_exclusive();
      } else {
        take_shared();
      }
    } catch (...) {
      if (timer_for_run_) close_timer();
      throw;
    }
    exclusive_ = exclusive;
  }
  ++gpu_runs_;
}

std::pair<int, int> Turns::take_timer() const {
  // Queued (the queue file held shared) until it says it wants the GPU alone (the wanted file,
  // held shared until it has it): a grader that lets go of the GPU alone waits for that, so that
  // the GPU goes to this one, not to another's shared runs, which would have to end first.
  const int queued = locked(lock_path_ + ".queue", LOCK_SH);
  int timer = -1;
  try {
    timer = locked(lock_path_ + ".timer", LOCK_EX);
    const int wanted = locked(lock_path_ + ".wanted", LOCK_SH);
    close(queued);
    return {timer, wanted};
  } catch (...) {
    close(queued);
    if (timer >= 0) close(timer);
    throw;
  }
}

void Turns::close_timer() {
  for (int* fd : {&wanted_fd_, &timer_fd_}) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
  timer_for_run_ = false;
}

int Turns::through_gate(int operation) const {
  const int gate = locked(lock_path_ + ".gate", LOCK_EX);
  int fd = -1;
  try {
    fd = locked(lock_path_, operation);
  } catch (...) {
    close(gate);
    throw;
  }
  close(gate);
  return fd;
}

void Turns::take_exclusive() {
  gpu_fd_ = through_gate(LOCK_EX);
  if (wanted_fd_ >= 0) close(wanted_fd_);
  wanted_fd_ = -1;
}

void Turns::take_shared() {
  gpu_fd_ = through_gate(LOCK_SH);
  // A grader that wants it alone goes first: one that a grader letting go of it alone waited for
  // (the next round, no other's run between them), or one waiting for the runs under way. Once:
  // a grader alone whose runs follow one another (make grade) would otherwise go first each time.
  if (!exclusive_wanted()) return;
  close(gpu_fd_);
  gpu_fd_ = -1;
  close(locked(lock_path_ + ".wanted", LOCK_EX));  // until none wants it
  gpu_fd_ = through_gate(LOCK_SH);
}

void Turns::let_go() {
  if (gpu_runs_ > 0 || gpu_fd_ < 0 || (keeping_ && exclusive_)) return;
  if (exclusive_) hand_over();
  close(gpu_fd_);
  gpu_fd_ = -1;
  exclusive_ = false;
  gpu_free_.notify_all();
}

void Turns::hand_over() {
  if (timer_for_run_) close_timer();
  // A grader queued for the timer has it now, or soon: the GPU waits a moment for it to say it
  // wants the GPU alone, before the others' shared runs may take it.
  const int queue = open((lock_path_ + ".queue").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (queue < 0) return;
  const bool queued = flock(queue, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  close(queue);
  // Each look takes the wanted file for an instant, when no one holds it: another grader looking
  // then would take it for wanted. Seldom, then: every 5 ms.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (queued && !exclusive_wanted() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

void Turns::release_gpu() {
  if (lock_path_.empty()) return;
  const std::lock_guard<std::mutex> hold(gpu_mutex_);
  --gpu_runs_;
  let_go();
}

void Turns::keep_alone() {
  // Not under gpu_mutex_: this grader's runs under way must be able to end while it waits.
  const std::pair<int, int> timer = lock_path_.empty() ? std::pair<int, int>{-1, -1} : take_timer();
  const std::lock_guard<std::mutex> hold(gpu_mutex_);
  std::tie(timer_fd_, wanted_fd_) = timer;
  timer_for_run_ = false;
  keeping_ = true;
}

void Turns::end_keeping() {
  const std::lock_guard<std::mutex> hold(gpu_mutex_);
  keeping_ = false;
  // The timer first: a grader queued for it then says it wants the GPU before this one lets go.
  if (!timer_for_run_) close_timer();
  let_go();
}

void Turns::begin_setup() {
  std::unique_lock<std::mutex> hold(mutex_);
  changed_.wait(hold, [&] { return !timing_; });
  ++setting_up_;
}

void Turns::ready_to_time() {
  std::unique_lock<std::mutex> hold(mutex_);
  --setting_up_;
  changed_.notify_all();
  changed_.wait(hold, [&] { return setting_up_ == 0 && !timing_; });
  timing_ = true;
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
    // A timed pass's program has the GPU alone from its start: its round keeps it so.
    turns_.hold_gpu(timed ? Turns::Kind::alone : kind);
  } catch (...) {
    if (timed) turns_.end_timed_stage(false);
    turns_.leave();
    throw;
  }
}

bool Turn::ready() {
  if (stage_ == Stage::untimed) return false;
  if (stage_ != Stage::setting_up) return true;
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
