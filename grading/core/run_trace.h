// --trace-runs FILE: a line for each lab program run, saying how long it waited for its turn at
// the GPU and how long it ran, for the question of where a grading's time goes (docs/instructor/
// grade-class.md measures a class's run with it). Lines from several graders may share one file:
// each is appended whole, and its start is on the machine's clock.
//
// A line, its fields split by tabs: the start of the wait (seconds since 1970), the wait, the
// run (seconds, from its turn to the end of what it left behind), its place at the GPU ("alone":
// a run that must have the GPU alone, a run again alone; "shared" for the others; "timed": the
// timed calls of a timed pass, whose run's own line says "shared", on a line of their own),
// the program (its file's name, the step of a lab in steps, "solution" for the solution's), the
// tool it ran under ("-" for none), its case folder, and its GPU: the machine's name and the GPU
// as the grader's lock files name it, "node7:0" (CUDA_VISIBLE_DEVICES, "all" when unset), or
// "node7:cpu" on the CPU backend (and for a CPU backend's build run in a GPU's grading: --counts
// model's counting runs, which take no turn at the GPU).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "grading/core/types.h"

namespace grade {

// One run's line, to ctx.trace_runs if given: made as the run asks for its turn, started() when
// it has it, ended() once the program is gone.
class RunTrace {
 public:
  RunTrace(const Context& ctx, const Program& program, const std::vector<std::string>& args,
           const std::vector<std::string>& wrapper, bool alone);
  void started();
  // A timed pass's calls, alone (grading/core/case_runs.h's TimedWindow): from now, to now.
  void window_opened();
  void window_closed();
  void ended() const;

 private:
  const Context& ctx_;
  std::string what_;  // the line's fields after the times
  double asked_;      // seconds since 1970
  std::chrono::steady_clock::time_point waiting_, running_;
  double window_from_ = 0, window_to_ = 0;  // seconds since 1970; 0 when none
};

}  // namespace grade
