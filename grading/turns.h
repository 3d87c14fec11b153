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
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

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

 private:
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
  Turn(Turns& turns, Turns::Kind kind) : turns_(turns) { turns_.enter(turns_.ask(), kind); }
  ~Turn() { turns_.leave(); }
  Turn(const Turn&) = delete;
  Turn& operator=(const Turn&) = delete;

 private:
  Turns& turns_;
};

}  // namespace grade
