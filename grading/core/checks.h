// The five checks of a lab, in the order `make grade` runs them, one file each
// (check_build.cpp ... check_performance.cpp). Each runs student code only in separate processes
// (the lab program, built from the student's file) and decides from what came back, with
// references this process computes itself.
#pragma once

#include <chrono>
#include <functional>
#include <vector>

#include "grading/core/types.h"

namespace grade {

// Builds what the labs' builds share, for all of LABS at once (the programs' parts in every
// flavor they need, the solutions' programs), so that the labs' own builds can then run side by
// side, each writing only its own files. False when something failed to build: each lab's build
// makes the same again, one lab at a time, and reports what fails. The solutions' programs it
// made are in PROGRAMS, one per lab of LABS, for each lab's build to take.
bool build_shared(const Context& ctx, const std::vector<const LabRubric*>& labs, std::vector<LabPrograms>* programs);
// Builds the lab program(s) of one lab, once for all its steps; the check that says how it went.
CheckResult check_build(const Context& ctx, const LabRubric& lab, LabPrograms* programs);
// Sets *main_correct when every one of the rubric's main shapes passed: the later checks wait for
// it. WHEN_MAIN_CORRECT, if given, is called as soon as that is known, where the check has more
// to run after (on the CPU backend, the once shapes), so that those checks can run beside it.
CheckResult check_correctness(const Context& ctx, const LabRubric& lab, const LabPrograms& programs, bool* main_correct,
                              const std::function<void()>& when_main_correct = {});
CheckResult check_safety(const Context& ctx, const LabRubric& lab, const LabPrograms& programs);
CheckResult check_technique(const Context& ctx, const LabRubric& lab, const LabPrograms& programs);
// Where this run's technique counts come from, for the reports' header on a GPU (Context::counts).
std::string counts_source(const Context& ctx);
// The technique counts a grading on BACKEND takes when asked for COUNTS (make's COUNTS, "" for
// DEFAULT_ON_GPU): "ncu" or "model" (always "model" on the CPU backend). *ERROR says why no grading
// can take COUNTS (a wrong name, ncu on the CPU backend); *NOTE why model gives way to ncu here, the
// CPU backend's toolchain missing (looked for only when LOOK_HERE).
std::string resolve_counts(const std::string& counts, const std::string& backend, const std::string& default_on_gpu, bool look_here,
                           std::string* error, std::string* note);
// make check's line of the technique check's estimate (the CPU backend; "" on a GPU, or when the
// technique shape's result is wrong): a run at that shape, counted, with no verdict and no points.
std::string technique_estimate(const Context& ctx, const LabRubric& lab, const LabPrograms& programs);
// TIMED_OVER, when given, is called once the student's timed pass has ended (the judging of the
// times comes after), or before it returns when it timed nothing: grade_labs keeps the GPU alone
// until then. make bench's ceiling, timed after it (--record-targets), takes the GPU alone anew.
CheckResult check_performance(const Context& ctx, const LabRubric& lab, const LabPrograms& programs,
                              const std::function<void()>& timed_over = {});

// A check worth its points only when it passes; a waived one is worth nothing either way.
inline CheckResult all_or_nothing(CheckResult c, std::chrono::steady_clock::time_point start) {
  c.points = c.status == Status::kPass ? c.max_points : 0;
  if (c.status == Status::kWaived) c.max_points = 0;
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return c;
}

}  // namespace grade
