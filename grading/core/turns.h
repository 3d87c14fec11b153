// Turns at running lab programs, for labs graded at once (--jobs). Student programs run side by
// side, and so do the solution's, but never a solution's beside a student's: both run as the
// grading's student user (grading/core/student_uid.h), and a student process alive beside a
// solution's could kill it (its shapes would then be left out of the score) or read its folders.
// A timed pass runs alone: nothing may share the GPU with its timed calls.
//
// Runs take their turns in the order they asked for them, a run joining those under way when it
// is next and of their kind. So a timed pass never waits behind runs that asked after it (behind
// glibc's read-write lock, which lets readers in while a writer waits, a solution's run waited up
// to 16 s for a moment when no other run was going, on the H100), and the solution's first runs
// of every lab go at once.
//
// Graders that share a GPU (make grade-class with JOBS above the GPUs, two make grade runs) take
// it one at a time: the first of a grader's runs to go in takes the GPU's lock file alone, the
// last to leave lets go (flock(2), which the kernel releases when a grader dies). Runs of one
// grader are one student's; side by side with another's, a program that took all of the GPU's
// memory would fail the other student's shapes, and the timed passes would wait for the other
// grader's runs. Their builds, and what they do on the CPU, still go side by side.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>

namespace grade {

class Turns {
 public:
  enum class Kind { student, solution, alone };

  // A place in the queue, in the order of asking.
  uint64_t ask();
  // Waits for the turn of the run that asked for TICKET, of KIND.
  void enter(uint64_t ticket, Kind kind);
  // Ends a turn that enter() gave.
  void leave();

  // Shares the GPU with other graders through the lock file LOCK_PATH, made if missing; "" shares
  // it with no one.
  void share_with_graders(const std::string& lock_path);
  // For a run whose turn here has come: waits until this grader has the GPU (the lock file,
  // taken by its first run under way), and counts the run. Throws std::runtime_error when the
  // file cannot be opened or locked: running beside another grader's runs is no option.
  void hold_gpu();
  // Counts the run out; the last one lets go of the lock file.
  void release_gpu();

 private:
  std::string lock_path_;
  std::mutex gpu_mutex_;  // held while the lock file is taken or let go
  int gpu_fd_ = -1;       // the lock file, while this grader holds it
  int gpu_runs_ = 0;      // the runs that hold it
  std::mutex mutex_;
  std::condition_variable changed_;
  uint64_t next_ticket_ = 0;  // the ticket of the next run to ask
  uint64_t next_in_ = 0;      // the ticket of the next run to go in
  int running_ = 0;
  Kind kind_ = Kind::alone;  // of the runs under way
};

// A turn of TURNS, held while it lives: from a run's start to the end of the cleanup after it.
class Turn {
 public:
  Turn(Turns& turns, Turns::Kind kind);
  ~Turn();
  Turn(const Turn&) = delete;
  Turn& operator=(const Turn&) = delete;

 private:
  Turns& turns_;
};

}  // namespace grade
