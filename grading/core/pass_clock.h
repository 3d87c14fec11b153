// What a pass's limits count (grading/core/case_runs.h's serve_pass): the seconds of the runs of
// one lab program over a list of shapes, one run after another when a shape ends its process.
//
// On a GPU, the wall clock while the pass's processes run (not their waits for a turn). On the
// CPU backend, the CPU time of those processes: its programs are all computation, and a machine
// busy with other gradings stretches their wall-clock time (a correct tile-32 transpose, twice the
// solution's threads, ran past 4x the solution's time on 2 cores shared by four gradings) but not
// their CPU time. A process that sleeps uses no CPU time: the wall-clock limit stays, kCpuWallSlack
// times the CPU one.
//
// On a GPU, a run's seconds count from when its device is open (the program's started file,
// common/protocol.h), not from its start: a CUDA context's creation costs every program the same
// and grows with the programs starting beside it (on the H200, 0.2 s alone, 2.2 s each of 16
// starting at once: docs/results/program-start-h200.log), so that side by side a correct first
// shape ran past the 2 s floor and was run again alone, each such run a wait for every other
// grader. The start has a limit of its own. A run that never says its device is open (its student
// code stopped the file) is counted from its start (from_start); a run's first shape, once done, is
// held to its limit from the program's start too, and the start's limit where the file came
// (first_shape_late): a file stopped or written late gains no more than the start's limit.
#pragma once

#include <chrono>
#include <string>

namespace grade {

class PassClock {
 public:
  // CPU: the CPU backend's clock. STARTED_FILE: the file a run writes once its device is open.
  // START_LIMIT: the seconds a GPU's run may take to open it.
  PassClock(bool cpu, std::string started_file, double start_limit);
  // Before each run: its device is not open yet.
  void starting();
  // The run, process PID, started; and ended.
  void started(int pid);
  void ended();
  // Whether the run's seconds count: from its device's opening, or from its start once a shape of
  // it is done first (shape_done).
  bool counting();
  void shape_done();
  // Whether the run is counted from its start, its started file not seen before a shape was done.
  bool from_start() const { return from_start_; }
  // Whether a run whose seconds do not count yet has taken longer than the start limit.
  bool slow_start() const;
  // Seconds counted so far, this process's included.
  double now();
  // A wait that counts against no limit (a timed case's for its window at the GPU): from pause()
  // to resume(). On the CPU backend a waiting process uses no CPU time.
  void pause() { paused_at_ = Clock::now(); }
  void resume() {
    wall_start_ += Clock::now() - paused_at_;
    paused_ += Clock::now() - paused_at_;
  }
  // Wall-clock seconds since the run's program started, but its waits.
  double since_start() const;
  // On a GPU, whether the run's first shape, just done with LIMIT seconds of its own, is late
  // counted from the program's start: past LIMIT, and the start's limit where its device said it
  // was open. A started file stopped or written late (by student code) gains no more than that.
  bool first_shape_late(double limit) const { return !cpu_ && since_start() > limit + (from_start_ ? 0 : start_limit_); }
  // The wall-clock limit of a process with SECONDS of this clock left.
  double wall_limit(double seconds) const { return cpu_ ? kCpuWallSlack * seconds : seconds; }

 private:
  using Clock = std::chrono::steady_clock;
  static constexpr double kCpuWallSlack = 4;
  bool cpu_;
  std::string started_file_;
  double start_limit_;
  bool open_ = false, from_start_ = false;
  int pid_ = 0;
  double base_ = 0, spent_ = 0, last_ = 0;
  Clock::time_point spawned_, wall_start_, paused_at_;
  Clock::duration paused_{};
};

}  // namespace grade
