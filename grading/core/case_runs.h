// Running a lab program over cases, and reading what came back. A pass runs the cases in
// order in one process; when the program dies, hangs or leaves a sticky CUDA error at one
// case, a fresh process goes on from the next, so one bad shape costs only itself. Each case
// has a time limit of its own, set from the solution's time for it in the same run, and the
// pass a budget; both are watched from here, through the results the program writes as it
// goes (common/protocol.h).
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "common/compare.h"
#include "common/protocol.h"
#include "grading/core/turns.h"
#include "grading/core/types.h"
#include "tools/subprocess.h"

namespace grade {

class RunTrace;
using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start);
bool exists(const std::string& path);
std::string fmt(const char* format, double a, double b = 0, double c = 0);

// The turns at the GPU of this grading (grading/core/turns.h): on a GPU, taken one grader at a time
// with the other graders of this machine and GPU, through a lock file of the GPU in the machine's
// lock folder (grading/core/student_uid.h).
Turns& gpu_turns(const Context& ctx);

// Where a run stands at the GPU, among the runs of labs graded at once and of other graders
// (grading/core/turns.h).
enum class GpuUse {
  shared,  // beside runs of its kind (a student's or the solution's), and side by side beside
           // other graders' runs
  alone,   // no other program runs from its start to its end (a run again alone)
  timed,   // a timed pass's run: shared while its program sets its case up, alone for its timed
           // calls (Turns' rounds: grading/core/turns.h), its TimedWindow's ready() to over()
};

// The alone part of a timed pass's run (GpuUse::timed), which its watch marks as its program
// says (harness/serve.cpp): handed to RunControl::window, set up by run_program while it runs.
class TimedWindow {
 public:
  // The program is ready to time: returns once its timed calls may go.
  void ready();
  // Its timed calls are over.
  void over();
  // run_program's: the run's turn and trace while it runs (nullptr, nullptr after).
  void attach(Turn* turn, RunTrace* trace) {
    turn_ = turn;
    trace_ = trace;
  }

 private:
  Turn* turn_ = nullptr;
  RunTrace* trace_ = nullptr;
};

// How a run is watched, and its place at the GPU.
struct RunControl {
  // Asked every 50 ms while it runs: true stops it as a timeout would.
  std::function<bool()> stop_early;
  // Called when the wait for its turn is over and the program runs, with its process id.
  std::function<void(int pid)> started;
  GpuUse gpu = GpuUse::shared;
  // A timed pass's: its window, which run_program sets up.
  TimedWindow* window = nullptr;
};

// Runs a built program, after checking that it is still the file that was built; then kills
// whatever it left behind. `wrapper` runs it under a tool (compute-sanitizer, ncu). A timeout
// of 0 is the rubric's timeout.run, counted from when the program runs (its wait for a turn
// counts against no limit). CONTROL says how it is watched and its place at the GPU.
tools::RunResult run_program(const Context& ctx, const Program& program, const std::vector<std::string>& args,
                           const std::vector<std::string>& env = {}, const std::vector<std::string>& wrapper = {},
                           double timeout_s = 0, RunControl control = {});

// The line a run that run_program stopped for its memory ends its output with (a sanitizer's
// build past the rubric's memory.run: its resident memory, its children's included).
std::string over_memory_line(long limit_mib);

// The cases written into a folder for `--serve`, and the inputs the grader keeps.
struct Cases {
  std::string dir;
  std::vector<lab::ServeCase> cases;
  std::vector<std::vector<std::vector<float>>> inputs;  // per case, per input
  std::string result_path(size_t i) const { return dir + "/" + std::to_string(cases[i].id) + ".result"; }
};

// Inputs come from the run's seed and the case's position, so that SEED= reproduces them.
Cases write_cases(const Context& ctx, const std::string& name, const std::vector<lab::Case>& shapes, bool timed = false);
// The same cases and inputs in a fresh folder; `zero_fill` starts every output at 0.0f.
Cases copy_cases(const Context& ctx, const Cases& from, const std::string& name, bool zero_fill = false);

// The same cases and inputs again in FROM's folder, as cases of their own (case i's id plus the
// number of cases), for two passes in one process (serve_twice).
Cases repeat_cases(const Cases& from);

// Time limits, in seconds.
struct Limits {
  std::vector<double> per_case;
  double total = 0;   // one pass, all cases together
  std::string basis;  // how they were set, for the report
};
// The rubric's timeout.run, for every case and the pass.
Limits fixed_limits(const Context& ctx, size_t cases);
// kLimitFactor times the solution's times (a case it did not finish keeps the rubric's), with
// floors, so that a hang costs seconds, not the rubric's minutes.
Limits limits_from(const Context& ctx, const std::vector<double>& solution_seconds);

// One run of a program over a folder of cases outside a pass, where no per-case limit watches it
// (under compute-sanitizer or Nsight Compute, a sanitizer's build, a thread schedule): at most
// kRunFloor seconds, or kLimitFactor times SOLUTION's time for the same run (same tool, same
// environment, a copy of the cases) when that is longer. The solution runs only after the
// student's program met the floor, so a correct submission pays nothing for it. A run that was
// stopped says so, and why, at the end of its output. Side by side with other graders, a run
// stopped for time, killed by the kernel or out of GPU memory is run again alone, and that counts.
tools::RunResult run_limited(const Context& ctx, const Program& program, const Cases& cases,
                           const std::vector<std::string>& env = {}, const std::vector<std::string>& wrapper = {},
                           const Program* solution = nullptr);

// What one pass left behind, per case.
struct Pass {
  std::vector<double> seconds;       // each case's time (PassClock); -1: no result
  std::vector<std::string> stopped;  // why there is no result ("" when there is one)
  std::string failed_output;         // what the first process that died printed, if anything
  bool may_be_others = false;        // a process of it ran out of time or GPU memory (run_program)
};
// TIMED: a timed pass, whose calls take the GPU alone (GpuUse::timed). Side by side with other
// graders, a pass that ran out of time or GPU memory is run again alone, and that counts: another
// student's program may have taken the memory or the time it lacked; so is a timed pass anywhere
// (its round's other programs hold theirs while it sets up).
Pass serve_pass(const Context& ctx, const Program& program, const Cases& cases, const std::vector<size_t>& which,
                const std::vector<std::string>& env, const Limits& limits, bool timed = false);

// Two passes over the cases WHICH in one process, each with LIMITS (the second's time for all
// shapes, from the first's end, gets what the first left too): CASES's, then AGAIN's (CASES
// repeated: repeat_cases), the second without the cases whose program died, hung or ran out of
// time in the first (a crash or a hang of one shape costs one run of the program, not two; a
// shape that ended in a CUDA error finished, and runs again, as in two processes). What
// serve_pass would leave of each pass (a case the second does not run: no result, no reason).
// On a GPU the second pass is the same program run again on the same inputs, for a race to show;
// in one process it saves a CUDA context's start, a third of a second of the machine's CPU.
std::pair<Pass, Pass> serve_twice(const Context& ctx, const Program& program, const Cases& cases, const Cases& again,
                                  const std::vector<size_t>& which, const std::vector<std::string>& env, const Limits& limits);

// The verdict on one case: what the program wrote back, compared with the reference
// (grading/core/case_verdicts.cpp).
struct CaseVerdict {
  bool pass = false;
  bool complete = false;      // the output came back clean and holds no poison: every element written
  std::string failure;        // why there is no comparison (a crash, a CUDA error, guards...)
  lab::CheckReport report;    // the comparison, when there was one
  std::vector<float> output;
  lab::CaseResult result;
  std::string describe(const lab::Case& shape) const;  // "M=17 N=31 K=13: FAIL: ..."
  std::vector<std::string> report_lines() const;       // the comparison's lines after the first
};
CaseVerdict evaluate(const Context& ctx, const Cases& cases, size_t i, const Pass* pass = nullptr);

// The timed calls of a case (common/rep_check.h), each checked from its samples; the median
// time of a timed case whose calls all check out, or 0 with `why`.
double checked_median(const Cases& cases, const CaseVerdict& v, const lab::DotReference* base_dot, std::string* why);

}  // namespace grade
