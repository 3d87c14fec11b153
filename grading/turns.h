// Turns at running lab programs, for labs graded at once (--jobs). Student programs run side by
// side, and so do the solution's, but never a solution's beside a student's: both run as the
// grading's student user (grading/student_uid.h), and a student process alive beside a
// solution's could kill it (its shapes would then be left out of the score) or read its folders.
// A timed pass runs alone: nothing may share the GPU with its timed calls.
//
// Runs take their turns in the order they asked for them, a run joining those under way when it
// is next and of their kind. So a timed pass never waits behind runs that asked after it (behind
// glibc's read-write lock, which lets readers in while a writer waits, a solution's run waited up
// to 16 s for a moment when no other run was going, on the H100), and the solution's first runs
// of every lab go at once.
//
// Graders that share a GPU (make grade-class runs several on each) keep the last rule among
// them too: once its turn here has come, a run also holds a lock file of that GPU, shared, and a
// timed pass holds it alone (flock(2), which the kernel releases when a grader dies). A timed
// pass waiting for it holds a second file, the gate, that every run takes on its way in, so
// that runs of other graders that ask after it wait for it (flock alone lets a shared holder
// in while an exclusive one waits). Student and solution runs of different graders may run
// side by side: each grader's students run as a user of their own (grading/student_uid.h).
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

  // Shares the GPU with other graders through the lock file LOCK_PATH (and LOCK_PATH.gate), made
  // if missing; "" shares it with no one.
  void share_with_graders(const std::string& lock_path);
  // Takes the lock file for a run of KIND whose turn here has come: the descriptor that holds it
  // (closing it lets go), or -1 when the GPU is shared with no one. Throws std::runtime_error
  // when the file cannot be opened or locked: timing beside another grader's runs is no option.
  int hold_across_graders(Kind kind) const;
  // Nsight Compute profiles one process at a time on a GPU: the descriptor of LOCK_PATH.profiler,
  // held alone by this grader among those sharing the GPU (-1 when none does).
  int hold_profiler() const;

 private:
  std::string lock_path_;
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
  int across_ = -1;  // the lock file shared with other graders, when held
};

}  // namespace grade
