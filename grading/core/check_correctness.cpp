// The correctness check: every shape of the rubric, run twice on the same inputs (two thread
// orders on the CPU backend), against fp64 references this process computes.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <thread>

#include "grading/core/case_runs.h"
#include "grading/core/checks.h"
#include "grading/core/quoting.h"
#include "grading/core/report.h"

namespace grade {

namespace {

// What a failing case's verdict becomes when a run with the output zeroed first passes: the
// kernel read its output before writing it (C += ..., or beta * C, which is NaN for NaN C
// even when beta is 0). A dot product's blocks are meant to add into *result: there the
// mistake is that nobody set it to 0 first.
std::string reads_output_hint(lab::Op op) {
  if (op == lab::Op::kDot) {
    return "correct when *result starts as 0, wrong when it starts as NaN: the blocks add into *result, "
           "which nobody set to 0 first. Set it in the launcher (cudaMemsetAsync) before the kernel runs.";
  }
  return "correct when the output starts as zeros, wrong when it starts as NaN: the kernel reads the output "
         "before writing it (C += ..., or beta * C). Write each element once, from a sum kept in a register.";
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// The shapes that count and their time limits. The solution runs first, on the same inputs: its
// times set the limits, and a shape it cannot run here (too large for this device) is left out
// rather than held against anyone.
struct Counted {
  std::vector<size_t> shapes;      // indices into the cases
  std::vector<std::string> notes;  // the shapes left out, and why
  Limits limits;
};

// On the CPU backend the solution's run of the correctness shapes costs seconds a lab (lab 02's
// shapes, 2,100,000 rows among them, about 16 s: docs/results/grade-rerun-kept-cpu.log) and tells
// the same for any seed: how long each shape takes it on this machine. A run in which it
// computed every shape is kept in the build folder, named
// after its program, the step, the shapes, the machine and the cores it may use, for the
// gradings after it (a rerun, a class's other students); a run that left a shape out is not
// kept, so a passing failure of the machine is measured again next time. Only where namespaces
// keep the build folder read-only to student code: elsewhere a student's program could write the
// times the next grading reads.
std::string solution_times_path(const Context& ctx, const LabRubric& lab, const Program& solution) {
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  cpu_set_t cpus;
  const int usable = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 0;
  const char* threads = std::getenv("CPUSIM_THREADS");
  std::string key = solution.fingerprint + "\n" + solution.step + "\n" + host + "\n" + std::to_string(usable) + " " +
                    std::to_string(std::thread::hardware_concurrency()) + " " + (threads != nullptr ? threads : "-") + "\n";
  for (const lab::Case& shape : lab.shapes) key += shape.describe() + "\n";
  char name[32];
  std::snprintf(name, sizeof name, "%016zx", std::hash<std::string>{}(key));
  return ctx.build_dir + "/solution-times/" + name;
}

// The per-shape seconds kept at PATH, when there are N of them and each is a time the rubric's
// run could take.
std::optional<std::vector<double>> kept_solution_times(const Context& ctx, const std::string& path, size_t n) {
  std::ifstream in(path);
  std::vector<double> seconds;
  for (double s; in >> s;) {
    if (!std::isfinite(s) || s < 0 || s > ctx.rubric->timeout_run) return std::nullopt;
    seconds.push_back(s);
  }
  if (seconds.size() != n) return std::nullopt;
  return seconds;
}

Counted count_against_solution(const Context& ctx, const LabRubric& lab, const Program& solution, const Cases& cases) {
  const size_t n = cases.cases.size();
  Counted counted{std::vector<size_t>(n), {}, fixed_limits(ctx, n)};
  for (size_t i = 0; i < n; ++i) counted.shapes[i] = i;
  if (solution.path.empty()) return counted;
  const std::string kept = ctx.backend == "cpu" && ctx.sandbox.namespaces ? solution_times_path(ctx, lab, solution) : "";
  if (!kept.empty()) {
    if (const auto seconds = kept_solution_times(ctx, kept, n)) {
      counted.limits = limits_from(ctx, *seconds);
      counted.limits.basis += " (its times kept from an earlier run on this machine)";
      return counted;
    }
  }
  const Cases solved = copy_cases(ctx, cases, "correctness-solution");
  const Pass ref = serve_pass(ctx, solution, solved, counted.shapes, {"CPUSIM_SCHEDULE=forward"}, counted.limits);
  counted.shapes.clear();
  for (size_t i = 0; i < n; ++i) {
    const CaseVerdict s = evaluate(ctx, solved, i, &ref);
    if (s.failure.empty()) {
      counted.shapes.push_back(i);
    } else {
      counted.notes.push_back("(left out: " + s.describe(lab.shapes[i]) + ", in the solution's own run)");
    }
  }
  counted.limits = limits_from(ctx, ref.seconds);
  if (!kept.empty() && counted.shapes.size() == n) {
    std::ostringstream times;
    for (double s : ref.seconds) times << s << "\n";
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(kept).parent_path(), ec);
    write_atomically(kept, times.str());  // a grading that cannot keep it measures again next time
  }
  return counted;
}

// Whether two runs' outputs differ by more than the order of their sums explains. Sums added in
// another order (a dot's atomics) differ in their last bits, by well under one error bound
// (common/compare.h), so largest errors two bounds apart or more are not rounding; nor is a NaN
// that another run computed otherwise.
bool beyond_rounding(const CaseVerdict& v, const CaseVerdict& w) {
  if (same_bits(v.output, w.output)) return false;
  auto has_nan = [](const std::vector<float>& out) { return std::any_of(out.begin(), out.end(), [](float x) { return std::isnan(x); }); };
  return has_nan(v.output) || has_nan(w.output) || !(std::abs(v.report.max_error_ratio - w.report.max_error_ratio) < 2.0);
}

// Two passes on the same inputs, in two thread orders on the CPU backend: a shape must pass
// both, and a result that changes between them is the mark of a race. The second pass runs
// only the shapes the first one finished.
struct TwoPasses {
  Cases again;  // the second pass's copy of the cases
  Pass first, second;
};

TwoPasses run_twice(const Context& ctx, const Program& program, const Cases& cases, const Counted& counted) {
  TwoPasses t;
  t.first = serve_pass(ctx, program, cases, counted.shapes, {"CPUSIM_SCHEDULE=forward"}, counted.limits);
  std::vector<size_t> finished;
  for (size_t i : counted.shapes) {
    if (t.first.seconds[i] >= 0) finished.push_back(i);
  }
  t.again = copy_cases(ctx, cases, "correctness-again");
  t.second = serve_pass(ctx, program, t.again, finished, {"CPUSIM_SCHEDULE=reverse"}, counted.limits);
  return t;
}

// The verdict on each counted shape from the two passes, the failing run's where one fails; a
// race, when the runs disagree, is its hint. *DIAGNOSE gets the other failing shapes whose output
// came back clean.
std::vector<CaseVerdict> judge_two_passes(const Context& ctx, const LabRubric& lab, const Cases& cases, const TwoPasses& t,
                                          const std::vector<size_t>& counted, std::vector<size_t>* diagnose) {
  std::vector<CaseVerdict> verdicts(cases.cases.size());
  for (size_t i : counted) {
    CaseVerdict& v = verdicts[i];
    v = evaluate(ctx, cases, i, &t.first);
    if (t.first.seconds[i] < 0) continue;
    const CaseVerdict w = evaluate(ctx, t.again, i, &t.second);
    // A race only when both runs wrote every element and disagree by more than rounding: then
    // the pattern of one run's mismatches means little, and the race is what to fix.
    const bool race = (!v.pass || !w.pass) && v.complete && w.complete && beyond_rounding(v, w);
    if (v.pass && !w.pass) v = w;  // show the failing run
    if (race) {
      v.report.hint = std::string("the result differs between two runs on the same inputs") +
                      (ctx.backend == "cpu" ? " (thread orders forward and reverse)" : "") +
                      ": a race, such as a missing __syncthreads or blocks writing the same element without atomics.";
    } else if (!v.pass && v.failure.empty() && !lab.shapes[i].empty()) {
      diagnose->push_back(i);
    }
  }
  return verdicts;
}

// Runs the shapes of DIAGNOSE once more with their output zeroed first: where that passes, the
// kernel reads its output before writing it, and the hint says so.
void diagnose_reads_output(const Context& ctx, const Program& program, const Cases& cases, const std::vector<size_t>& diagnose,
                           const Limits& limits, std::vector<CaseVerdict>* verdicts) {
  const Cases zeroed = copy_cases(ctx, cases, "correctness-zeroed", /*zero_fill=*/true);
  const Pass z = serve_pass(ctx, program, zeroed, diagnose, {"CPUSIM_SCHEDULE=forward"}, limits);
  for (size_t i : diagnose) {
    if (evaluate(ctx, zeroed, i, &z).pass) (*verdicts)[i].report.hint = reads_output_hint(cases.cases[i].shape.op);
  }
}

// The first three failing shapes, each with its comparison, then how many more fail; and what
// the first program of the two passes that died printed last.
std::vector<std::string> failures_text(const LabRubric& lab, const std::vector<size_t>& counted,
                                       const std::vector<CaseVerdict>& verdicts, const TwoPasses& t) {
  std::vector<std::string> text;
  int shown = 0;
  for (size_t i : counted) {
    const CaseVerdict& v = verdicts[i];
    if (v.pass || shown++ >= 3) continue;
    text.push_back(v.describe(lab.shapes[i]));
    for (const std::string& line : v.report_lines()) text.push_back(line);
  }
  if (shown > 3) text.push_back("... and " + std::to_string(shown - 3) + " more shapes fail");
  for (const Pass* p : {&t.first, &t.second}) {
    if (p->failed_output.empty()) continue;
    text.push_back("the program's last output when it stopped:");
    const std::vector<std::string> tail = quote_output(p->failed_output, 12);
    text.insert(text.end(), tail.begin(), tail.end());
    break;
  }
  return text;
}

// The check's score, status and report from the verdicts; *MAIN_CORRECT when every main shape
// passed.
void score_correctness(const Context& ctx, const LabRubric& lab, const Counted& counted, const std::vector<CaseVerdict>& verdicts,
                       const TwoPasses& t, CheckResult* c, bool* main_correct) {
  int passed = 0, passed_nonempty = 0;
  bool main_ok = true;
  for (size_t i : counted.shapes) {
    const bool pass = verdicts[i].pass;
    passed += pass;
    passed_nonempty += pass && !lab.shapes[i].empty();
    if (std::find(lab.main_shapes.begin(), lab.main_shapes.end(), i) != lab.main_shapes.end()) main_ok &= pass;
  }
  const int total = int(counted.shapes.size());
  c->details = {std::to_string(passed) + " of " + std::to_string(total) + " shapes correct, seed " + std::to_string(ctx.seed)};
  const std::vector<std::string> failures = failures_text(lab, counted.shapes, verdicts, t);
  c->details.insert(c->details.end(), failures.begin(), failures.end());
  c->details.insert(c->details.end(), counted.notes.begin(), counted.notes.end());
  c->status = passed == total && total > 0 ? Status::kPass : Status::kFail;
  c->points = total > 0 ? c->max_points * passed / double(total) : 0;
  // A launcher that does nothing passes the shapes with nothing to compute: they count once
  // something works.
  if (passed_nonempty == 0) {
    c->points = 0;
    c->status = Status::kFail;
    if (passed > 0) c->details.push_back("(the shapes with nothing to compute pass, but count only once another shape does)");
  }
  *main_correct = main_ok && passed_nonempty > 0;
  if (c->status == Status::kPass && counted.notes.empty()) c->details.clear();
}

}  // namespace

CheckResult check_correctness(const Context& ctx, const LabRubric& lab, const LabPrograms& programs, bool* main_correct) {
  const auto start = Clock::now();
  CheckResult c("correctness", Status::kFail, lab.points_correctness);
  const Cases cases = write_cases(ctx, "correctness", lab.shapes);
  const Counted counted = count_against_solution(ctx, lab, programs.solution, cases);
  const TwoPasses passes = run_twice(ctx, programs.main, cases, counted);
  std::vector<size_t> diagnose;
  std::vector<CaseVerdict> verdicts = judge_two_passes(ctx, lab, cases, passes, counted.shapes, &diagnose);
  if (!diagnose.empty()) diagnose_reads_output(ctx, programs.main, cases, diagnose, counted.limits, &verdicts);
  score_correctness(ctx, lab, counted, verdicts, passes, &c, main_correct);
  c.seconds = seconds_since(start);
  return c;
}

}  // namespace grade
