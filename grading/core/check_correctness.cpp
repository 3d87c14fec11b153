// The correctness check: every shape of the rubric, run twice on the same inputs (two thread
// orders on the CPU backend, in two processes; on a GPU in one), against fp64 references this
// process computes.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

#include "grading/core/case_runs.h"
#include "grading/core/checks.h"
#include "grading/core/kept_times.h"
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

// TEXT with the path of the student's private copy (the build folder's) made the path handed
// in: "/.../submission/1a2b.../05_dot_reduction/dot_reduction.cu:119" -> "SRC/05_dot_reduction/...".
std::string student_paths(std::string text, const Context& ctx, const LabRubric& lab) {
  const std::string tail = "/" + lab.folder + "/" + lab.file();
  for (size_t at = text.find(tail); at != std::string::npos; at = text.find(tail, at + 1)) {
    const size_t start = text.find_last_of(" (", at) + 1;
    const std::string replacement = ctx.src + tail;
    text.replace(start, at + tail.size() - start, replacement);
    at = start + replacement.size() - 1;
  }
  return text;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// The passes over the shapes. Every shape runs twice, and on the CPU backend in two thread
// orders (a missing barrier shows as results that differ): the first pass's order alternates
// block by block (forward in even-numbered blocks, reverse in odd ones), the second's is reverse.
// A once shape (the rubric's once_shapes: a tall shape of 67 million threads, most of the lab's
// time there) runs in the second pass on the CPU backend only when it failed the first (which
// had both orders): then the two runs tell a race apart. There the watched shapes (the rubric's
// watched_shapes, else the main shapes) then run a third time in the watched build with the
// blocks on one OS thread, which loses the updates a GPU would lose
// (cpusim/src/lost_updates.cpp): a GPU's own passes lose them for real.
struct PassSettings {
  const char* name;
  std::vector<std::string> env;
};
const PassSettings kFirstPass{"alternate", {"CPUSIM_SCHEDULE=alternate"}};
const PassSettings kSecondPass{"reverse", {"CPUSIM_SCHEDULE=reverse"}};
const PassSettings kWatchedPass{"watched, one OS thread", {"CPUSIM_SCHEDULE=forward", "CPUSIM_THREADS=1"}};

// The shapes that count, and the time limits of the passes. The solution runs first, on the same
// inputs: its times set the limits, and a shape it cannot run here (too large for this device)
// is left out rather than held against anyone.
struct Counted {
  std::vector<size_t> shapes;      // indices into the cases
  std::vector<std::string> notes;  // the shapes left out, and why
  Limits limits;                   // of the two passes
  Limits watched;                  // of the watched pass (its shapes: the main ones)
};

// Whether each of SECONDS is a time the rubric's run could take, or -1 (a shape the pass does
// not run).
bool plausible_seconds(const Context& ctx, const std::vector<double>& seconds) {
  return std::all_of(seconds.begin(), seconds.end(), [&](double s) { return s == -1 || (s >= 0 && s <= ctx.rubric->timeout_run); });
}

// The solution's seconds per shape in one pass of PROGRAM over the shapes WHICH (-1 elsewhere),
// kept or measured; *FAILED gets the verdicts of the shapes it failed, *KEPT_USED whether they
// came from a kept run.
std::vector<double> solution_seconds(const Context& ctx, const LabRubric& lab, const Program& solution, const Cases& cases,
                                     const std::vector<size_t>& which, const PassSettings& pass,
                                     std::vector<std::pair<size_t, CaseVerdict>>* failed, bool* kept_used) {
  const size_t n = cases.cases.size();
  const std::string kept = kept_times_path(ctx, lab, solution, std::string("correctness, ") + pass.name);
  if (const auto seconds = read_kept_times(kept, n);
      seconds && plausible_seconds(ctx, *seconds) && std::all_of(which.begin(), which.end(), [&](size_t i) { return (*seconds)[i] >= 0; })) {
    *kept_used = true;  // (a record without a shape this pass runs is of another rubric's pass)
    return *seconds;
  }
  const Cases solved = copy_cases(ctx, cases, "correctness-solution");
  const Pass ref = serve_pass(ctx, solution, solved, which, pass.env, fixed_limits(ctx, n));
  std::vector<double> seconds = ref.seconds;
  bool all = true;
  for (size_t i : which) {
    const CaseVerdict s = evaluate(ctx, solved, i, &ref);
    if (!s.failure.empty()) {
      failed->push_back({i, s});
      seconds[i] = -1;
      all = false;
    }
  }
  if (!kept.empty() && all) {
    std::string title = lab.step.id + ", the solution's seconds per shape, correctness pass " + pass.name + ":";
    for (const lab::Case& shape : lab.shapes) title += " " + shape.describe();
    keep_times(kept, title, seconds);
  }
  return seconds;
}

// The shapes the watched pass runs: the rubric's watched_shapes, else the main ones.
std::vector<size_t> watched_shapes(const LabRubric& lab, const std::vector<size_t>& counted) {
  const std::vector<size_t>& watched = lab.watched_shapes.empty() ? lab.main_shapes : lab.watched_shapes;
  std::vector<size_t> shapes;
  for (size_t i : counted)
    if (std::find(watched.begin(), watched.end(), i) != watched.end()) shapes.push_back(i);
  return shapes;
}

// The shapes of the second pass: those the first finished, less, on the CPU backend, the once
// shapes that passed it.
std::vector<size_t> second_pass_shapes(const Context& ctx, const LabRubric& lab, const Cases& cases, const Pass& first,
                                       const std::vector<size_t>& finished) {
  std::vector<size_t> shapes;
  for (size_t i : finished) {
    const bool once = ctx.backend == "cpu" && std::find(lab.once_shapes.begin(), lab.once_shapes.end(), i) != lab.once_shapes.end();
    if (!once || !evaluate(ctx, cases, i, &first).pass) shapes.push_back(i);
  }
  return shapes;
}

Counted count_against_solution(const Context& ctx, const LabRubric& lab, const LabPrograms& programs, const Cases& cases) {
  const size_t n = cases.cases.size();
  Counted counted{std::vector<size_t>(n), {}, fixed_limits(ctx, n), fixed_limits(ctx, n)};
  for (size_t i = 0; i < n; ++i) counted.shapes[i] = i;
  if (programs.solution.path.empty()) return counted;
  std::vector<std::pair<size_t, CaseVerdict>> failed;
  bool kept = false;
  const std::vector<double> first = solution_seconds(ctx, lab, programs.solution, cases, counted.shapes, kFirstPass, &failed, &kept);
  counted.shapes.clear();
  for (size_t i = 0; i < n; ++i) {
    const auto it = std::find_if(failed.begin(), failed.end(), [&](const auto& f) { return f.first == i; });
    if (it == failed.end()) {
      counted.shapes.push_back(i);
    } else {
      counted.notes.push_back("(left out: " + it->second.describe(lab.shapes[i]) + ", in the solution's own run)");
    }
  }
  counted.limits = limits_from(ctx, first);
  if (kept) counted.limits.basis += " (its times kept from an earlier run on this machine)";
  if (!programs.solution_watched.path.empty()) {
    std::vector<std::pair<size_t, CaseVerdict>> watched_failed;
    const std::vector<double> watched = solution_seconds(ctx, lab, programs.solution_watched, cases,
                                                         watched_shapes(lab, counted.shapes), kWatchedPass, &watched_failed, &kept);
    counted.watched = limits_from(ctx, watched);
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

// The passes on the same inputs: a shape must pass each pass it runs in, and a result that
// changes between the first two is the mark of a race. The later passes run only the shapes the
// first one finished.
struct Passes {
  Cases again, watched_cases;        // the second pass's cases (a copy; on a GPU in the first's
                                     // folder: repeat_cases) and the watched pass's copy
  Pass first, second, watched;
  std::vector<size_t> second_shapes, watched_shapes;  // the shapes the second and the watched pass ran
  // Of each pass's time for all shapes, over the CPU backend's two groups (a GPU has one).
  double spent_first = 0, spent_second = 0, spent_watched = 0;
};

// The cases of PART's run put into WHOLE, a pass over more shapes.
void merge(Pass* whole, const Pass& part, const std::vector<size_t>& which) {
  for (size_t i : which) {
    whole->seconds[i] = part.seconds[i];
    whole->stopped[i] = part.stopped[i];
  }
  if (whole->failed_output.empty()) whole->failed_output = part.failed_output;
}

// Whether the watched pass runs: on the CPU backend, whose threads lose no update on their own. A
// GPU's runs lose theirs for real; its counting build (--counts model) counts the technique only.
bool runs_watched_pass(const Context& ctx, const LabPrograms& programs) { return ctx.backend == "cpu" && !programs.watched.path.empty(); }

// Whether the first two passes run in one process (serve_twice): on a GPU, where the second is the
// first again. The CPU backend's differ in thread order, which its programs read at their start.
// In one process a launcher that kept its outputs (by shape, by call) can hand the second run the
// first's: a race then fails the first run as often as before, but has no second chance to show,
// and the hint that the runs differ is gone. What a GPU's grading has besides: racecheck's runs
// (safety) of shared memory, each a process of its own on the safety and race shapes.
bool passes_together(const Context& ctx) { return ctx.backend == "gpu"; }

Passes start_passes(const Context& ctx, const LabRubric& lab, const LabPrograms& programs, const Cases& cases) {
  Passes p;
  const size_t n = lab.shapes.size();
  for (Pass* pass : {&p.first, &p.second, &p.watched}) {
    pass->seconds.assign(n, -1);
    pass->stopped.assign(n, "");
  }
  p.again = passes_together(ctx) ? repeat_cases(cases) : copy_cases(ctx, cases, "correctness-again");
  if (runs_watched_pass(ctx, programs)) p.watched_cases = copy_cases(ctx, cases, "correctness-watched");
  return p;
}

// A pass's run over some of its shapes: LIMITS with what the pass's earlier runs *SPENT of its
// time for all shapes taken off, and *SPENT what this run takes too. A pass run in two parts
// (the once shapes last) has the time of one.
Pass serve_part(const Context& ctx, const Program& program, const Cases& cases, const std::vector<size_t>& which,
                const std::vector<std::string>& env, Limits limits, double* spent) {
  limits.total = std::max(0.0, limits.total - *spent);
  const Pass part = serve_pass(ctx, program, cases, which, env, limits);
  for (size_t i : which) *spent += std::max(0.0, part.seconds[i]);
  return part;
}

// The three passes over the shapes GROUP, into P; on a GPU the first two in one process.
void run_passes(const Context& ctx, const LabRubric& lab, const LabPrograms& programs, const Cases& cases,
                const Counted& counted, const std::vector<size_t>& group, Passes* p) {
  if (group.empty()) return;
  auto finished_in = [&](const Pass& first) {
    std::vector<size_t> finished;
    for (size_t i : group) {
      if (first.seconds[i] >= 0) finished.push_back(i);
    }
    return finished;
  };
  std::vector<size_t> finished, again;
  if (passes_together(ctx)) {
    const auto [first, second] = serve_twice(ctx, programs.main, cases, p->again, group, {}, counted.limits);
    merge(&p->first, first, group);
    finished = again = finished_in(first);
    merge(&p->second, second, again);
  } else {
    const Pass first = serve_part(ctx, programs.main, cases, group, kFirstPass.env, counted.limits, &p->spent_first);
    merge(&p->first, first, group);
    finished = finished_in(first);
    again = second_pass_shapes(ctx, lab, cases, first, finished);
    merge(&p->second, serve_part(ctx, programs.main, p->again, again, kSecondPass.env, counted.limits, &p->spent_second), again);
  }
  p->second_shapes.insert(p->second_shapes.end(), again.begin(), again.end());
  if (!runs_watched_pass(ctx, programs)) return;
  const std::vector<size_t> watched = watched_shapes(lab, finished);
  merge(&p->watched,
        serve_part(ctx, programs.watched, p->watched_cases, watched, kWatchedPass.env, counted.watched, &p->spent_watched), watched);
  p->watched_shapes.insert(p->watched_shapes.end(), watched.begin(), watched.end());
}

// The verdict on each counted shape from the passes, the failing run's where one fails. Its
// hint: the lost update the watched pass found, where it did; else a race, when the first two
// runs disagree. *DIAGNOSE gets the other failing shapes whose output came back clean.
std::vector<CaseVerdict> judge_passes(const Context& ctx, const LabRubric& lab, const Cases& cases, const Passes& p,
                                      const std::vector<size_t>& counted, std::vector<size_t>* diagnose) {
  std::vector<CaseVerdict> verdicts(cases.cases.size());
  for (size_t i : counted) {
    CaseVerdict& v = verdicts[i];
    v = evaluate(ctx, cases, i, &p.first);
    if (p.first.seconds[i] < 0) continue;
    const bool again = std::find(p.second_shapes.begin(), p.second_shapes.end(), i) != p.second_shapes.end();
    const CaseVerdict w = again ? evaluate(ctx, p.again, i, &p.second) : v;
    // A race only when both runs wrote every element and disagree by more than rounding: then
    // the pattern of one run's mismatches means little, and the race is what to fix.
    const bool race = (!v.pass || !w.pass) && v.complete && w.complete && beyond_rounding(v, w);
    if (v.pass && !w.pass) v = w;  // show the failing run
    if (std::find(p.watched_shapes.begin(), p.watched_shapes.end(), i) != p.watched_shapes.end()) {
      const CaseVerdict x = evaluate(ctx, p.watched_cases, i, &p.watched);
      if (!x.pass && x.result.lost_updates > 0) {
        // The CPU backend saw what a GPU would lose, and says where: that is the hint.
        v = x;
        v.report.hint = student_paths(x.result.lost_update, ctx, lab);
        continue;
      }
      if (v.pass && !x.pass) v = x;
    }
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
                                       const std::vector<CaseVerdict>& verdicts, const Passes& t) {
  std::vector<std::string> text;
  int shown = 0;
  for (size_t i : counted) {
    const CaseVerdict& v = verdicts[i];
    if (v.pass || shown++ >= 3) continue;
    text.push_back(v.describe(lab.shapes[i]));
    for (const std::string& line : v.report_lines()) text.push_back(line);
  }
  if (shown > 3) text.push_back("... and " + std::to_string(shown - 3) + " more shapes fail");
  for (const Pass* p : {&t.first, &t.second, &t.watched}) {
    if (p->failed_output.empty()) continue;
    text.push_back("the program's last output when it stopped:");
    const std::vector<std::string> tail = quote_output(p->failed_output, 12);
    text.insert(text.end(), tail.begin(), tail.end());
    break;
  }
  return text;
}

// Whether every main shape passed and some shape with something to compute did, among SHAPES:
// what the later checks wait for.
bool main_shapes_pass(const LabRubric& lab, const std::vector<size_t>& shapes, const std::vector<CaseVerdict>& verdicts) {
  bool main_ok = true, nonempty = false;
  for (size_t i : shapes) {
    if (std::find(lab.main_shapes.begin(), lab.main_shapes.end(), i) != lab.main_shapes.end()) main_ok &= verdicts[i].pass;
    nonempty |= verdicts[i].pass && !lab.shapes[i].empty();
  }
  return main_ok && nonempty;
}

// The check's score, status and report from the verdicts; *MAIN_CORRECT when every main shape
// passed.
void score_correctness(const Context& ctx, const LabRubric& lab, const Counted& counted, const std::vector<CaseVerdict>& verdicts,
                       const Passes& t, CheckResult* c, bool* main_correct) {
  int passed = 0, passed_nonempty = 0;
  for (size_t i : counted.shapes) {
    const bool pass = verdicts[i].pass;
    passed += pass;
    passed_nonempty += pass && !lab.shapes[i].empty();
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
  *main_correct = main_shapes_pass(lab, counted.shapes, verdicts);
  if (c->status == Status::kPass && counted.notes.empty()) c->details.clear();
}

}  // namespace

CheckResult check_correctness(const Context& ctx, const LabRubric& lab, const LabPrograms& programs, bool* main_correct,
                              const std::function<void()>& when_main_correct) {
  const auto start = Clock::now();
  CheckResult c("correctness", Status::kFail, lab.points_correctness);
  const Cases cases = write_cases(ctx, "correctness", lab.shapes);
  const Counted counted = count_against_solution(ctx, lab, programs, cases);
  // On the CPU backend the once shapes (most of a lab's time there) run last, after every pass
  // over the others: the main shapes' verdicts are known before them, and whatever waits for
  // those can run beside them.
  std::vector<size_t> others, once;
  for (size_t i : counted.shapes) {
    const bool is_once = ctx.backend == "cpu" && std::find(lab.once_shapes.begin(), lab.once_shapes.end(), i) != lab.once_shapes.end();
    (is_once ? once : others).push_back(i);
  }
  Passes passes = start_passes(ctx, lab, programs, cases);
  run_passes(ctx, lab, programs, cases, counted, others, &passes);
  std::vector<size_t> diagnose;
  // Only where no main shape is a once shape: the verdicts so far then decide.
  const bool main_first = std::none_of(lab.main_shapes.begin(), lab.main_shapes.end(),
                                       [&](size_t i) { return std::find(once.begin(), once.end(), i) != once.end(); });
  if (when_main_correct && !once.empty() && main_first) {
    const std::vector<CaseVerdict> so_far = judge_passes(ctx, lab, cases, passes, others, &diagnose);
    if (main_shapes_pass(lab, others, so_far)) when_main_correct();
    diagnose.clear();
  }
  run_passes(ctx, lab, programs, cases, counted, once, &passes);
  std::vector<CaseVerdict> verdicts = judge_passes(ctx, lab, cases, passes, counted.shapes, &diagnose);
  if (!diagnose.empty()) diagnose_reads_output(ctx, programs.main, cases, diagnose, counted.limits, &verdicts);
  score_correctness(ctx, lab, counted, verdicts, passes, &c, main_correct);
  c.seconds = seconds_since(start);
  return c;
}

}  // namespace grade
