// The safety check: the safety shape under compute-sanitizer on a GPU; on the CPU backend, in
// three thread orders and in the AddressSanitizer and ThreadSanitizer builds.
#include <random>
#include <string>
#include <vector>

#include "grading/core/case_runs.h"
#include "grading/core/checks.h"
#include "grading/core/quoting.h"
#include "grading/core/race_report.h"
#include "tools/text.h"

namespace grade {

using tools::contains;

namespace {

// Fails check C for WHAT, with LINES under it.
void fail(CheckResult* c, const std::string& what, const std::vector<std::string>& lines) {
  c->status = Status::kFail;
  c->details.push_back(what);
  c->details.insert(c->details.end(), lines.begin(), lines.end());
}

// On a GPU: the safety shape under each of compute-sanitizer's tools, until one fails; then the
// race shape, where the rubric has one, under racecheck.
void run_compute_sanitizer(const Context& ctx, const LabRubric& lab, const LabPrograms& programs, CheckResult* c) {
  if (!ctx.have_compute_sanitizer) {
    c->status = Status::kWaived;
    c->details.push_back("waived: compute-sanitizer is not installed");
  }
  std::vector<std::pair<const char*, lab::Case>> runs = {{"memcheck", lab.safety_shape}, {"racecheck", lab.safety_shape},
                                                         {"synccheck", lab.safety_shape}};
  if (!lab.race_shape.empty()) runs.push_back({"racecheck", lab.race_shape});
  for (const auto& [tool, shape] : runs) {
    if (c->status != Status::kPass) break;
    const Cases cases = write_cases(ctx, tool, {shape});
    const tools::RunResult r = run_limited(ctx, programs.main, cases, {},
                                           {"compute-sanitizer", "--tool", tool, "--error-exitcode", "99", "--print-limit", "5"},
                                           &programs.solution);
    if (r.spawn_failed) {
      fail(c, "the program could not run: " + first_line(r.output), {});
    } else if (r.exited(99)) {
      fail(c, std::string("compute-sanitizer --tool ") + tool + " on " + shape.describe() + " found:",
           report_lines(r.output, lab.file(), {"=========     at", "========= Error", "========= Invalid", "========= Barrier", "Race reported"}));
    } else if (!r.exited(0)) {
      fail(c, std::string("under compute-sanitizer --tool ") + tool + " the program " + r.describe() + ":", quote_output(r.output, 10));
    }
  }
}

// On the CPU backend, every thread schedule must give a correct result: a race shows as one that
// does not. False when a run hung: the sanitizers' builds would hang too.
bool run_schedules(const Context& ctx, const LabRubric& lab, const LabPrograms& programs, CheckResult* c) {
  int passing = 0;
  std::string failing;
  // The random order's seed is its own, not the inputs' (which no student process may learn);
  // a failure names it, so CPUSIM_SCHEDULE=random:N repeats that order.
  const std::vector<std::string> schedules = {"forward", "reverse", "random:" + std::to_string(std::random_device{}() % 1000)};
  for (const std::string& schedule : schedules) {
    const Cases cases = write_cases(ctx, "schedule", {lab.safety_shape});
    const tools::RunResult r = run_limited(ctx, programs.main, cases, {"CPUSIM_SCHEDULE=" + schedule}, {}, &programs.solution);
    if (r.timed_out) {
      fail(c, "with CPUSIM_SCHEDULE=" + schedule + " on " + lab.safety_shape.describe() + " the program " + r.describe() + ":",
           quote_output(r.output, 4));
      return false;
    }
    const CaseVerdict v = evaluate(ctx, cases, 0);
    if (v.pass && r.exited(0)) {
      ++passing;
    } else if (failing.empty()) {
      failing = schedule + ": " + v.describe(lab.safety_shape);
    }
  }
  if (passing > 0 && passing < 3) {
    fail(c, "the result depends on the order threads run in (CPUSIM_SCHEDULE), so there is a race: a missing "
            "__syncthreads, or threads writing the same element without atomics",
         {"  " + failing});
  } else if (passing == 0) {
    fail(c, "wrong under every thread schedule: " + failing, {});
  }
  return true;
}

// The safety shape in a sanitizer's build: a finding, a failed run or a wrong result each fail
// the check. False when the run hung.
bool run_sanitized(const Context& ctx, const LabRubric& lab, const std::string& tool, const Program& program,
                   const std::vector<std::string>& env, const std::vector<std::string>& markers, CheckResult* c) {
  const Cases cases = write_cases(ctx, tool, {lab.safety_shape});
  tools::RunResult r = run_limited(ctx, program, cases, env);
  if (contains(r.output, "ThreadSanitizer: unexpected memory mapping")) {
    // High-entropy address randomization breaks ThreadSanitizer's layout: run without it.
    r = run_limited(ctx, program, cases, env, {"setarch", "-R"});
  }
  if (r.spawn_failed) {
    fail(c, "the " + tool + " build could not run: " + first_line(r.output), {});
  } else if (contains(r.output, over_memory_line(ctx.sandbox.memory_limit_mib))) {
    fail(c, "the " + tool + " build on " + lab.safety_shape.describe() + " took more memory than a run may: " +
                over_memory_line(ctx.sandbox.memory_limit_mib),
         {});
  } else if (r.timed_out) {
    fail(c, "the " + tool + " build on " + lab.safety_shape.describe() + " " + r.describe() + ":", quote_output(r.output, 4));
    return false;
  } else if (contains(r.output, tool) || !r.exited(0)) {
    // A race in plain words, at the student's lines; any other finding as the tool said it.
    std::vector<std::string> races = races_in_plain_words(r.output, lab.file());
    for (std::string& line : races) line = "  " + line;
    fail(c, tool + " on " + lab.safety_shape.describe() + " found:", races.empty() ? report_lines(r.output, lab.file(), markers) : races);
  } else if (const CaseVerdict v = evaluate(ctx, cases, 0); !v.pass) {
    fail(c, "the " + tool + " build did not compute a correct result: " + v.describe(lab.safety_shape), {});
  }
  return true;
}

// The sanitizers' builds, AddressSanitizer's first. A run that hung stops the check: the next
// build would hang too.
void run_sanitizer_builds(const Context& ctx, const LabRubric& lab, const LabPrograms& programs, CheckResult* c) {
  const bool hung = !run_sanitized(ctx, lab, "AddressSanitizer", programs.asan,
                                   {"ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:" + ctx.sandbox.sanitizer_memory_option()},
                                   {"ERROR: AddressSanitizer", "READ of size", "WRITE of size", "cpusim:"}, c);
  if (hung) return;
  // On one OS thread: each has a set of fibers, 770 KB of ThreadSanitizer's state each (a block
  // of 1024 threads: 800 MB a set), and the runs are faster without two threads contending for
  // ThreadSanitizer's tables (lab 02: 3.2 s against 9.1 s). Its fibers still leave the blocks
  // unordered (cpusim/src/scheduler.cpp), so races between blocks are found all the same.
  run_sanitized(ctx, lab, "ThreadSanitizer", programs.tsan, {"TSAN_OPTIONS=" + ctx.sandbox.sanitizer_memory_option(), "CPUSIM_THREADS=1"},
                {"WARNING: ThreadSanitizer", "cpusim:"}, c);
}

}  // namespace

CheckResult check_safety(const Context& ctx, const LabRubric& lab, const LabPrograms& programs) {
  const auto start = Clock::now();
  CheckResult c("safety", Status::kPass, lab.points_safety);
  if (ctx.backend == "gpu") {
    run_compute_sanitizer(ctx, lab, programs, &c);
  } else if (run_schedules(ctx, lab, programs, &c)) {
    run_sanitizer_builds(ctx, lab, programs, &c);
  }
  return all_or_nothing(c, start);
}

}  // namespace grade
