// The performance check (a GPU only): the student's median time against the solution's in the
// same run, or, without solutions, against the target recorded for this GPU model.
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "common/compare.h"
#include "common/timing.h"
#include "grading/core/case_runs.h"
#include "grading/core/checks.h"
#include "grading/core/kept_times.h"
#include "grading/core/targets.h"

namespace grade {

namespace {

// What the student's median time is held to: TARGET full marks at the rubric's share of its
// speed. The solution's median in this run; or, where there is no solution, the ceiling's in
// this run over the share of it the solution reached on this GPU model (grading/core/targets.h).
struct Reference {
  Cases cases;                 // the performance shape and its inputs: the student's run copies them
  Limits limits;               // of the student's timed pass
  lab::DotReference base_dot;  // the dot product's reference, which checks each timed call
  lab::CaseResult bounds;      // what bounds any time on this GPU: the FP32 peak, a copy's rate
  double ms = 0;               // the target; 0 when there is none here, with why
  std::string why;
  std::string whose;           // "the solution's", "the target's", in the report
  std::vector<std::string> basis;  // how the target was set, said first
};

// A timed pass of PROGRAM: its program sets its case up beside the others of its round, which
// has the GPU alone, and its timed calls go alone (grading/core/turns.h); the grader checks the
// outputs meanwhile.
Pass timed_pass(const Context& ctx, const Program& program, const Cases& cases, const Limits& limits) {
  return serve_pass(ctx, program, cases, {0}, {}, limits, true);
}

// The performance shape's cases, and the dot product's reference of their inputs.
Reference performance_cases(const Context& ctx, const LabRubric& lab, const std::string& name) {
  Reference ref;
  ref.cases = write_cases(ctx, name, {lab.performance_shape}, true);
  if (lab.performance_shape.op == lab::Op::kDot) {
    const std::vector<std::vector<float>>& in = ref.cases.inputs[0];
    ref.base_dot = lab::dot_reference(in[0].data(), in[1].data(), lab.performance_shape.n);
  }
  return ref;
}

// The solution's timed run of the performance shape. It runs before the student's: no student
// code has run against its folder. It also measures what bounds any time on this GPU (the FP32
// peak, a copy's rate). In a class's run, measured by its first grading on this GPU and kept for
// the others (grading/core/kept_times.h): its median, its pass's seconds and the bounds.
Reference time_solution(const Context& ctx, const LabRubric& lab, const Program& solution) {
  Reference ref = performance_cases(ctx, lab, "performance-solution");
  ref.whose = "the solution's";
  const std::string kept = kept_times_path(ctx, lab, solution, "performance");
  if (const auto k = read_kept_times(kept, 4); k && (*k)[0] > 0 && (*k)[1] > 0 && (*k)[2] > 0 && (*k)[3] > 0) {
    ref.ms = (*k)[0];
    ref.limits = limits_from(ctx, {(*k)[1]});
    ref.bounds.peak_tflops = (*k)[2];
    ref.bounds.copy_tbps = (*k)[3];
    ref.basis.push_back("target: the solution's time, measured on this GPU earlier in this class's run");
    return ref;
  }
  const Pass pass = timed_pass(ctx, solution, ref.cases, fixed_limits(ctx, 1));
  const CaseVerdict verdict = evaluate(ctx, ref.cases, 0, &pass);
  ref.limits = limits_from(ctx, pass.seconds);
  ref.bounds = verdict.result;
  ref.basis.push_back("target: the solution's time, measured in this run");
  ref.ms = verdict.pass ? checked_median(ref.cases, verdict, &ref.base_dot, &ref.why) : 0;
  if (!verdict.pass) ref.why = verdict.describe(lab.performance_shape);
  if (ref.ms <= 0) {
    ref.why = "the solution did not run here (" + ref.why + ")";
  } else if (!kept.empty()) {
    keep_times(kept, lab.step.id + ", the solution's timed run of " + lab.performance_shape.describe() +
                         ": median ms, the pass's seconds, FP32 TFLOP/s, copy TB/s",
               {ref.ms, pass.seconds[0], ref.bounds.peak_tflops, ref.bounds.copy_tbps});
  }
  return ref;
}

// Without a solution: the ceiling measured now, over the solution's recorded share of it.
Reference target_from_ceiling(const Context& ctx, const LabRubric& lab, const Program& ceilings) {
  Reference ref;
  bool fallback = false;
  const std::optional<lab::Target> target = target_for(ctx, lab, &fallback, &ref.why);
  if (!target) return ref;
  const Ceiling ceiling = measure_ceiling(ctx, ceilings, lab.performance_shape);
  if (!ceiling.why.empty()) {
    ref.why = "the ceiling did not run here (" + ceiling.why + ")";
    return ref;
  }
  if (ceiling.name != target->ceiling) {
    ref.why = ctx.targets_path + " has the solution's share of " + target->ceiling + ", but the ceiling measured here is " +
              ceiling.name + ": make bench again";
    return ref;
  }
  ref = performance_cases(ctx, lab, "performance-target");
  ref.limits = fixed_limits(ctx, 1);
  ref.bounds.peak_tflops = ceiling.peak_tflops;
  ref.bounds.copy_tbps = ceiling.copy_tbps;
  ref.ms = ceiling.ms / target->share;
  ref.whose = "the target's";
  // A GPU model without a row of its own says so, and which GPU's share holds it.
  const std::string rule =
      fallback ? "; " + ctx.targets_path + " has no row for " + (ctx.device.empty() ? "this GPU" : ctx.device) +
                     ", so the target is the least share of it that the solution reached on a measured GPU, " +
                     fmt("%.1f%%", 100 * target->share) + " on " + target->gpu
               : fmt(", and on this GPU model the solution reached %.1f%% of its speed", 100 * target->share);
  ref.basis.push_back("target: no solution here; " + ceiling.name + fmt(" took %.3f ms in this run", ceiling.ms) + rule + " (" +
                      ctx.targets_path + ", " + target->date + ", commit " + target->commit + fmt("): %.3f ms", ref.ms));
  return ref;
}

// The least time this GPU needs for SHAPE: its FLOPs at the FP32 peak, or its least traffic at a
// little above the measured copy rate (a copy is not quite the DRAM's peak).
double fastest_ms(const lab::Case& shape, const lab::CaseResult& measured) {
  return 1e3 * std::max(shape.flops() / (measured.peak_tflops * 1.05e12), shape.min_bytes() / (measured.copy_tbps * 1.25e12));
}

// The student's median time against the target; C's points by the share of its speed.
// TIMED_OVER is called once the timed pass ended.
void time_against(const Context& ctx, const LabRubric& lab, const Program& program, const Reference& ref,
                  const std::function<void()>& timed_over, CheckResult* c) {
  const Cases cases = copy_cases(ctx, ref.cases, "performance");
  const Pass pass = timed_pass(ctx, program, cases, ref.limits);
  timed_over();
  const CaseVerdict v = evaluate(ctx, cases, 0, &pass);
  c->status = Status::kFail;
  c->details = ref.basis;
  if (!v.pass) {
    c->details.push_back("the timed run's result is wrong: " + v.describe(lab.performance_shape));
    return;
  }
  std::string why;
  const double ms = checked_median(cases, v, &ref.base_dot, &why);
  if (ms <= 0) {
    c->details.push_back(why);
    return;
  }
  // No kernel beats the hardware.
  if (const double fastest = fastest_ms(lab.performance_shape, ref.bounds); ms < fastest) {
    c->details.push_back(fmt("%.3f ms is faster than this GPU can do the work (at least %.3f ms at its FP32 peak of %.1f TFLOP/s",
                             ms, fastest, ref.bounds.peak_tflops) +
                         fmt(" and a copy rate of %.2f TB/s): the timed calls did not do it, so no points", ref.bounds.copy_tbps));
    return;
  }
  const double share = ref.ms / ms;
  c->points = c->max_points * std::min(1.0, share / lab.full_at);
  c->status = share >= lab.full_at ? Status::kPass : Status::kFail;
  c->details.push_back(fmt("your launcher %.3f ms, ", ms) + ref.whose + fmt(" %.3f ms (medians of %.0f calls, each checked): ", ref.ms,
                           lab::kTimedRuns) +
                       fmt("%.0f%% of its speed, full marks from %.0f%%", 100 * share, 100 * lab.full_at));
}

// make bench's record (--record-targets): the ceiling beside the solution just timed.
void record_share(const Context& ctx, const LabRubric& lab, const LabPrograms& programs, const Reference& solution,
                  CheckResult* c) {
  const Ceiling ceiling = measure_ceiling(ctx, programs.ceilings, lab.performance_shape);
  c->details.push_back(ceiling.why.empty() ? record_target(ctx, lab, ceiling, solution.ms)
                                           : "not recorded: the ceiling did not run here (" + ceiling.why + ")");
}

}  // namespace

CheckResult check_performance(const Context& ctx, const LabRubric& lab, const LabPrograms& programs,
                              const std::function<void()>& timed_over) {
  const auto start = Clock::now();
  bool over = false;
  const std::function<void()> timing_over = [&] {
    if (!over && timed_over) timed_over();
    over = true;
  };
  CheckResult c("performance", Status::kWaived, 0);
  if (ctx.backend != "gpu") {
    c.details.push_back("waived on the CPU backend: its times say nothing about a GPU");
  } else {
    // Without a solution, grade_labs (grading/core/grade.cpp) has built the ceilings' program.
    const Reference ref = programs.solution.path.empty() ? target_from_ceiling(ctx, lab, programs.ceilings)
                                                         : time_solution(ctx, lab, programs.solution);
    if (ref.ms <= 0) {
      c.details.push_back("waived: " + ref.why);
    } else {
      c.max_points = lab.points_performance;
      time_against(ctx, lab, programs.main, ref, timing_over, &c);
      if (ctx.record_targets && !programs.solution.path.empty()) record_share(ctx, lab, programs, ref, &c);
    }
  }
  timing_over();
  c.seconds = seconds_since(start);
  return c;
}

}  // namespace grade
