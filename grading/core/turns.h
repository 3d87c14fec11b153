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
// turns at it through its lock file, flock(2), which the kernel releases when a grader dies: the
// first of a grader's runs to go in takes it, the last to leave lets go (unless the grader keeps
// it alone between its timed passes: below). A grader of its own
// (make grade) takes it exclusively for all its runs. The graders of a class's run (side by side)
// take it shared for every run but a timed pass's and a run again alone, and exclusively for
// those: no other grader's program is alive meanwhile, since one that is, even asleep, may hold
// the GPU's memory or run a kernel (a timed pass that set up beside such a program failed for lack
// of memory on the H200). Side by side, another student's program
// may take the memory or much of the time a run needs, so a run that failed that way is run again
// alone before it counts (grading/core/case_runs.h). Two more files keep the order fair. A grader
// waiting to take the GPU exclusively holds the gate, so that no grader takes it shared past a
// waiting one (flock alone lets shared holders in one after another, and a timed pass could wait
// for ever); and it holds the wanted file, so that a class's grader that has it shared starts no
// run beside its runs under way until they end (its runs overlapping, it would never let go).
// Their builds, and what they do on the CPU, still go side by side.
//
// Each time a grader takes the GPU alone, the others' programs under way must end first, and a
// sanitizer's or a profiler's run takes seconds: with a class's graders taking it alone for each
// of a student's seven timed passes, the GPU sat idle 84% of a class's run on the H200. So a
// grading times its labs last, in a round (KeptAlone): the others wait for it once a student, not
// once a pass. A round's timed programs all start at once, each setting its case up and saying it
// is ready (harness/serve.cpp); once none is still setting up, their timed calls go one after
// another (a program whose calls are over writes its output meanwhile). The round has the GPU
// alone from its first program's start: setting up beside the others' runs (as a version of
// 2026-11-30 did), its timed calls still waited for the runs under way to end, 3 to 12 s a round
// on the H200, and the rounds, one at a time, went back to back for most of a class's run
// (docs/results/grade-class-gpu-round-h200.log). A grader takes the timer file (the lock file with
// ".timer" added) before it waits to have the GPU alone, a round long or as long as it has it
// alone, and says it wants it (the wanted file) from then until it has it; one queued for the
// timer holds the queue file shared. A grader letting go of the GPU alone gives the timer up
// first, and, while one is queued, waits a moment for it to say it wants the GPU; a grader taking
// the GPU shared lets it go again while one wants it alone. So one round follows another with no
// other grader's run between them, none of which would have to end first. Not quite: a shared run
// that let the first of two queued rounds go does not let the second go too, which then waits for
// it (once in a class's 20 rounds on the H200, 5 s). A version that let it go as long as rounds
// were asked for (2026-11-30) chained the rounds, and its classes took longer: 323 and 326 s
// against 306 and 308 s (docs/results/grade-class-gpu-work-h200.log).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>

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

  // Shares the GPU with other graders through the lock file LOCK_PATH, its gate, wanted, timer
  // and queue files (LOCK_PATH with ".gate", ".wanted", ".timer", ".queue" added), made if
  // missing; "" shares it with no one.
  // SIDE_BY_SIDE: a class's grader, whose runs but its timed passes go beside other such
  // graders' runs.
  void share_with_graders(const std::string& lock_path, bool side_by_side = false);
  // Whether this grader's runs may go beside other graders' (share_with_graders).
  bool side_by_side() const { return side_by_side_ && !lock_path_.empty(); }
  // The lock file of Nsight Compute's turns at this GPU (ProfilerTurn); "" when shared with no one.
  std::string profiler_lock_path() const { return lock_path_.empty() ? "" : lock_path_ + ".ncu"; }
  // For a run of KIND whose turn here has come: waits until this grader has the GPU (the lock
  // file, taken by its first run under way: shared side by side but for a run alone, else
  // exclusively), and counts the run. Throws std::runtime_error when a file cannot be opened or
  // locked: running beside another grader's runs is no option.
  void hold_gpu(Kind kind);
  // Counts the run out; the last one lets go of the lock file, unless this grader keeps it.
  void release_gpu();
  // A round of timed passes begins: this grader takes the timer, and from now on its runs take
  // the GPU alone (its lock file exclusively), and it keeps it when they end, its next runs going
  // in at once, until end_keeping(). Called with none of this grader's runs under way (time_labs
  // calls it after every other check): one starting meanwhile would wait for it for ever.
  void keep_alone();
  // The round is over: the GPU is let go once this grader's runs under way end; so is the timer.
  void end_keeping();
  // A timed run (Turn's TIMED) sets its case up: not while another's timed calls go.
  void begin_setup();
  // Its program is ready to time: waits until no timed run here is setting up and no other's
  // timed calls go.
  void ready_to_time();
  // A timed run's calls are over (OVER), or its program ended setting up (!OVER).
  void end_timed_stage(bool over);

 private:
  // Whether another grader waits to take the GPU exclusively (holds the wanted file).
  bool exclusive_wanted() const;
  // Closes the lock file when no run holds it and it is not kept; gpu_mutex_ held.
  void let_go();
  // Before the GPU alone is let go: the timer, and a moment for a grader queued for it.
  void hand_over();
  // The timer file and the wanted file, the queue file held meanwhile.
  std::pair<int, int> take_timer() const;
  void close_timer();
  // The lock file taken with OPERATION, the gate held meanwhile.
  int through_gate(int operation) const;
  // The lock file, exclusively or shared; gpu_mutex_ held.
  void take_exclusive();
  void take_shared();

  std::string lock_path_;
  bool side_by_side_ = false;
  std::mutex gpu_mutex_;  // held while the lock file is taken or let go
  std::condition_variable gpu_free_;  // gpu_runs_ came down to 0
  int gpu_fd_ = -1;       // the lock file, while this grader holds it
  bool exclusive_ = false;  // held exclusively: no other grader's run is under way
  bool keeping_ = false;    // keep_alone() until end_keeping()
  int gpu_runs_ = 0;      // the runs that hold it
  int timer_fd_ = -1;     // the timer file, while this grader holds it
  int wanted_fd_ = -1;    // the wanted file, from the timer until the GPU is taken alone
  bool timer_for_run_ = false;  // taken for a run alone (let go with the lock file), not a round
  std::mutex mutex_;
  std::condition_variable changed_;
  uint64_t next_ticket_ = 0;  // the ticket of the next run to ask
  uint64_t next_in_ = 0;      // the ticket of the next run to go in
  int running_ = 0;
  Kind kind_ = Kind::alone;  // of the runs under way
  int setting_up_ = 0;       // timed runs whose programs set their cases up
  bool timing_ = false;      // a timed run's calls go
};

// A turn of TURNS, held while it lives: from a run's start to the end of the cleanup after it.
// TIMED: a timed pass's run of KIND (student or solution), in a round (Turns::keep_alone), which
// has the GPU alone: its calls go from ready() to timed(), no other program of the round setting
// up or timing meanwhile.
class Turn {
 public:
  Turn(Turns& turns, Turns::Kind kind, bool timed = false);
  ~Turn();
  Turn(const Turn&) = delete;
  Turn& operator=(const Turn&) = delete;
  // Its program is ready to time: returns once its timed calls may go (at once for a turn not
  // TIMED); whether it is TIMED.
  bool ready();
  // Its timed calls are over.
  void timed();

 private:
  enum class Stage { untimed, setting_up, timing, over };
  Turns& turns_;
  Stage stage_;
};

// Keeps TURNS's GPU alone between its runs while it lives (Turns::keep_alone), or until end().
class KeptAlone {
 public:
  explicit KeptAlone(Turns& turns) : turns_(turns) { turns_.keep_alone(); }
  ~KeptAlone() { end(); }
  KeptAlone(const KeptAlone&) = delete;
  KeptAlone& operator=(const KeptAlone&) = delete;
  void end() { turns_.end_keeping(); }

 private:
  Turns& turns_;
};

// Nsight Compute profiles one process at a time on a GPU: a class's graders side by side,
// profiling their students' programs at once, failed 40 technique checks of a class of 20 on a
// wrong result, none of them with these turns (the H200: docs/results/grade-class-gpu-batched-
// h200.log); beside plain or sanitizer runs a run under it counts right. Its own lock file (ncu's,
// in /tmp, does not reach across the fences of each run) makes the profiled runs of every grader
// of the GPU, and of the labs of one grading, take turns: held exclusively while it lives, by one profiled run (its tries and the
// solution's runs that set its time limit). PATH: Turns::profiler_lock_path(), named after the GPU
// as the GPU's lock file is (graders that name one GPU two ways do not take turns: case_runs.cpp);
// "" holds nothing.
// Throws std::runtime_error when the file cannot be opened or locked.
class ProfilerTurn {
 public:
  explicit ProfilerTurn(const std::string& path);
  ~ProfilerTurn();
  ProfilerTurn(const ProfilerTurn&) = delete;
  ProfilerTurn& operator=(const ProfilerTurn&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace grade
