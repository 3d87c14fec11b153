// The five checks of a lab, in the order `make grade` runs them. Each runs student code only
// in separate processes (the lab program, built from the student's file) and decides from
// what came back, with references this process computes itself.
#pragma once

#include <chrono>
#include <stdexcept>
#include <set>
#include <string>
#include <vector>

#include "common/subprocess.h"
#include "common/targets.h"
#include "grading/rubric.h"
#include "grading/sandbox.h"

namespace grade {

// A failure of the grader's own (a file it cannot read or write): the run cannot grade, exits 2
// and says why, rather than blaming the student.
struct CannotGrade : std::runtime_error {
  using std::runtime_error::runtime_error;
};

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
  bool quick = false;      // make check: build, correctness and safety only, nothing timed
  Sandbox sandbox;         // the fences around each student process
  std::vector<std::string> include_roots;  // where a student build may read headers (submission.h)
  std::set<std::string> cxx_exports;       // what the shared C++ library exports (submission.h)
  std::string device;                      // the GPU's name, as nvidia-smi gives it; "" without one
  // The performance targets without solutions (grading/targets.h): the file, what it holds, and
  // whether this run records the solutions' shares into it (make bench).
  std::string targets_path = "grading/targets.txt";
  std::vector<lab::Target> targets;
  bool record_targets = false;
};

// The programs of one lab, built before any student code runs, with their fingerprints.
struct Program {
  std::string path;
  std::string object;       // the student file's object, for its symbols
  std::string fingerprint;  // checked before every run
  bool sanitizer = false;   // built with AddressSanitizer or ThreadSanitizer (no data limit: Sandbox)
  bool solution = false;    // the solution's: nothing is hidden from it (Sandbox::wrap)
  std::string step;         // the step of a lab in steps it runs (--step 2); "" for a lab without
};

struct LabPrograms {
  Program main;                // the lab program for this backend
  Program asan, tsan;          // CPU backend: the sanitizer builds (safety)
  Program count;               // CPU backend: the build that counts memory accesses (technique;
                               // not built for a lab whose technique is none)
  Program solution;            // the solution's program (time limits; performance); may be empty
  Program ceilings;            // GPU, without a solution or when recording: the ceilings' program
                               // (grading/targets.h); may be empty
};

// Builds what the labs' builds share, for all of LABS at once (the programs' parts in every
// flavor they need, the solutions' programs), so that the labs' own builds can then run side by
// side, each writing only its own files. False when something failed to build: each lab's build
// makes the same again, one lab at a time, and reports what fails.
bool build_shared(const Context& ctx, const std::vector<const LabRubric*>& labs);
// Builds the lab program(s) of one lab, once for all its steps; the check that says how it went.
CheckResult check_build(const Context& ctx, const LabRubric& lab, LabPrograms* programs);
// Sets *main_correct when every one of the rubric's main shapes passed: the later checks wait for it.
CheckResult check_correctness(const Context& ctx, const LabRubric& lab, const LabPrograms& programs, bool* main_correct);
CheckResult check_safety(const Context& ctx, const LabRubric& lab, const LabPrograms& programs);
// In grading/technique.cpp.
CheckResult check_technique(const Context& ctx, const LabRubric& lab, const LabPrograms& programs);
CheckResult check_performance(const Context& ctx, const LabRubric& lab, const LabPrograms& programs);

// One make of the checkout's Makefile into the build folder, with this machine's cores; the
// paths it prints are its last lines. A student's build runs inside the fences, OWN its folders
// (Sandbox::wrap_build).
lab::RunResult run_make(const Context& ctx, const std::vector<std::string>& args, const std::vector<std::string>* own = nullptr);

// A check worth its points only when it passes; a waived one is worth nothing either way.
CheckResult all_or_nothing(CheckResult c, std::chrono::steady_clock::time_point start);

// Text from a student program, made safe to print: control characters dropped, long output
// cut, every line indented.
std::vector<std::string> quote_output(const std::string& text, size_t max_lines = 12);

}  // namespace grade
