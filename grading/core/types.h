// What every part of one grading run shares: the run's context, the programs built for a lab,
// and the result of a check. The checks themselves are declared in grading/core/checks.h.
#pragma once

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "common/targets.h"
#include "grading/core/cannot_grade.h"
#include "grading/core/estimates.h"
#include "grading/core/rubric.h"
#include "grading/core/sandbox.h"

namespace grade {

enum class Status { kPass, kFail, kSkip, kWaived };

struct CheckResult {
  CheckResult(std::string name_, Status status_, double max_points_)
      : name(std::move(name_)), status(status_), max_points(max_points_) {}
  std::string name;  // build, correctness, safety, technique, performance
  Status status = Status::kSkip;
  double points = 0, max_points = 0;  // a waived check is worth 0 of 0
  double seconds = 0;
  std::vector<std::string> details;  // shown indented under the check's line
};

// What every check of one grading run shares.
struct Context {
  std::string backend;     // "gpu" or "cpu"
  std::string src;         // the folder graded (labs/ or a submission with the same layout)
  uint64_t seed = 0;       // of every input; printed, and SEED= reproduces it
  const Rubric* rubric = nullptr;
  std::string work_dir;    // private scratch space of this run
  std::string build_dir;   // where the programs are built (the Makefile's BUILD)
  bool have_solutions = false;
  bool have_compute_sanitizer = false;
  bool have_ncu = false;
  // Where the technique check's counts come from (--counts): "ncu", Nsight Compute on the GPU,
  // or "model", the CPU backend's counting build (cpucc --count-accesses), whose verdicts are
  // Nsight Compute's (tests/grading/test_technique_*). The CPU backend has the model only. On a
  // GPU the model takes the profiled runs off it, one process at a time and 2 s each (a class of
  // 20 spent 271 of its 453 s on them on the H200); a student file the CPU backend cannot build
  // or run is counted by Nsight Compute still (check_technique.cpp).
  std::string counts = "ncu";
  std::string counts_note;  // why --counts model gave way to ncu on this machine, if it did
  bool quick = false;      // make check: build, correctness and safety only, nothing timed
  Sandbox sandbox;         // the fences around each student process
  std::vector<std::string> include_roots;  // where a student build may read headers (submission.h)
  std::set<std::string> cxx_exports;       // what the shared C++ library exports (submission.h)
  std::string device;                      // the GPU's name, as nvidia-smi gives it; "" without one
  // A class's run (--class-run): its gradings on a GPU keep the solution's times for each other
  // (kept_times.h).
  std::string class_run;
  // Beside other gradings on the same GPU (--side-by-side): their programs run beside each
  // other's but for the timed passes (turns.h).
  bool side_by_side = false;
  std::string trace_runs;  // --trace-runs: the file a line per program run goes to (run_trace.h)
  // The performance targets without solutions (grading/core/targets.h): the file, what it holds, and
  // whether this run records the solutions' shares into it (make bench).
  std::string targets_path = "grading/targets.txt";
  std::vector<lab::Target> targets;
  bool record_targets = false;
  // The solutions' estimated times on the reference GPUs (grading/core/estimates.h): the file,
  // what it holds, and whether this run records them (make record-estimates).
  std::string estimates_path = "grading/estimates.txt";
  std::vector<SolutionEstimate> estimates;
  bool record_estimates = false;
};

// The programs of one lab, built before any student code runs, with their fingerprints.
struct Program {
  std::string path;
  std::string object;       // the student file's object, for its symbols
  std::string fingerprint;  // checked before every run
  bool sanitizer = false;   // built with AddressSanitizer or ThreadSanitizer (no data limit: Sandbox)
  bool solution = false;    // the solution's: nothing is hidden from it (Sandbox::wrap)
  std::string step;         // the step of a lab in steps it runs (--step 2); "" for a lab without
  bool on_cores = false;    // a CPU backend's build in a GPU's grading (the counting build, --counts
                            // model): it runs on the cores alone, and takes no turn at the GPU
};

struct LabPrograms {
  Program main;                // the lab program for this backend
  Program asan, tsan;          // CPU backend: the sanitizer builds (safety)
  Program watched;             // CPU backend: the build that watches every memory access (cpucc
                               // --count-accesses): it counts them for the technique check, and
                               // loses the updates a GPU would lose (correctness: check_correctness.cpp);
                               // on a GPU with --counts model, the technique check's counts only
  Program solution;            // the solution's program (time limits; performance); may be empty
  Program solution_watched;    // CPU backend: the solution's watched build (the time limits of its runs)
  Program ceilings;            // GPU, without a solution or when recording: the ceilings' program
                               // (grading/core/targets.h); may be empty
  std::vector<std::string> launchers;  // the lab's launchers the student's file defines: a lab in
                                       // steps may leave the later steps' out (harness/lab_program.cpp)
  bool defines(const std::string& launcher) const {
    return std::find(launchers.begin(), launchers.end(), launcher) != launchers.end();
  }
};

}  // namespace grade
