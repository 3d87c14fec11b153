// The technique check: does the lab's kernel do what the lab teaches, measured from what the
// kernels did (grading/core/technique.h gives the rules).
#include "grading/core/case_runs.h"
#include "grading/core/checks.h"
#include "grading/core/estimate.h"
#include "grading/core/kernel_counts.h"
#include "grading/core/quoting.h"
#include "grading/core/targets.h"
#include "grading/core/technique.h"
#include "grading/core/turns.h"

namespace grade {

namespace {

// Where a student sees the counts this check read, per kernel and per source line: make
// profile at the technique shape, on this backend (a program the check ran is the same build).
std::string how_to_see(const Context& ctx, const LabRubric& lab) {
  std::string args;
  for (const std::string& a : lab.technique_shape.size_args()) args += (args.empty() ? "" : " ") + a;
  const std::string step = lab.step.count > 1 ? " STEP=" + std::to_string(lab.step.number) : "";
  const std::string src = ctx.src == "labs" ? "" : " SRC=" + ctx.src;
  return "make profile LAB=" + lab.number + step + src + " BACKEND=" + ctx.backend + " ARGS=\"" + args +
         "\" shows these counts per kernel and per source line";
}

// MS as "1.07 µs" or "2.31 ms", three figures.
std::string short_time(double ms) { return ms < 1 ? fmt("%.3g µs", 1e3 * ms) : fmt("%.3g ms", ms); }

// On the CPU backend: the kernels' estimated time on the reference GPUs from the counts this
// check read (grading/core/estimate.h), beside the solution's (grading/estimates.txt); feedback,
// never points. With --record-estimates (the solutions), written into that file instead.
std::string estimate_line(const Context& ctx, const LabRubric& lab, const std::string& launch_log) {
  const RunCounts counts = read_launch_log(launch_log);
  const std::string shape = lab.technique_shape.text();
  std::string yours, theirs;
  bool known = true, recorded = true;
  for (const ReferenceGpu& gpu : {kH100, kH200}) {
    const std::string name = gpu.name.substr(0, gpu.name.find(' '));  // "H100", "H200"
    const std::string on = " on an " + name;
    const double ms = 1e3 * estimated_seconds(counts, lab.technique_shape.flops(), gpu);
    yours += (yours.empty() ? "" : " and ") + short_time(ms) + on;
    if (ctx.record_estimates) {
      recorded = record_estimate(ctx.estimates_path, {lab.step.id, shape, name, ms, today(), solutions_commit()}) && recorded;
    } else if (const std::optional<double> solution = estimate_ms(ctx.estimates, lab.step.id, shape, name)) {
      theirs += (theirs.empty() ? "" : " and ") + short_time(*solution) + on;
    } else {
      known = false;
    }
  }
  std::string line = "estimated on a GPU from the memory model's counts at " + lab.technique_shape.describe() + ": " + yours;
  if (ctx.record_estimates) return line + (recorded ? "; recorded in " : "; not recorded: cannot write ") + ctx.estimates_path;
  if (known) line += theirs == yours ? ", as the solution's" : "; the solution's " + theirs;
  return line + " (a floor, feedback only: docs/estimate.md says how far off it is)";
}

// The technique shape's run of PROGRAM under Nsight Compute, on CASES, in its turn at the
// profiler (turns.h); the counts it gave, and the run. The GPU's clocks are left as they are:
// the counts do not depend on them, and a grader changes no setting of a GPU.
Traffic ncu_counts(const Context& ctx, const Program& program, const Cases& cases, const Program* solution, tools::RunResult* run) {
  const std::string csv = cases.dir + "/ncu.csv";
  const ProfilerTurn turn(gpu_turns(ctx).profiler_lock_path());
  *run = run_limited(ctx, program, cases, {},
                     {"ncu", "--clock-control", "none", "--csv", "--print-units", "base", "--log-file", csv, "--metrics", kNcuMetrics},
                     solution);
  return traffic_from_ncu(csv);
}

// Whether Nsight Compute counts the solution's kernels here (none without a solution).
bool ncu_counts_solution(const Context& ctx, const LabPrograms& programs, const Cases& cases) {
  if (programs.solution.path.empty()) return false;
  tools::RunResult run;
  return ncu_counts(ctx, programs.solution, copy_cases(ctx, cases, "technique-solution"), nullptr, &run).launches > 0;
}

// Runs the technique shape on this backend, counting what the kernels do: the counting build
// on the CPU backend, the GPU build under Nsight Compute on a GPU. C's status says when the
// counts cannot be had (waived) or the run was stopped (failed).
Traffic measure(const Context& ctx, const LabRubric& lab, const LabPrograms& programs, const Cases& cases, CheckResult* out) {
  CheckResult& c = *out;
  Traffic traffic;
  tools::RunResult run;
  if (ctx.backend == "cpu") {
    const std::string log = cases.dir + "/launches.txt";
    run = run_limited(ctx, programs.watched, cases, {"CPUSIM_LAUNCH_LOG=" + log});
    traffic = traffic_from_launch_log(log);
  } else if (ctx.have_ncu) {
    traffic = ncu_counts(ctx, programs.main, cases, &programs.solution, &run);
    // Nsight Compute's errors and the program's output come in one stream, where a program can
    // print an error line of its own: where there is a solution, its run says whether Nsight
    // Compute counts kernels here, and only if it does not is the check waived.
    if (traffic.launches == 0 && run.output.find("==ERROR==") != std::string::npos) {
      const bool counts_here = ncu_counts_solution(ctx, programs, cases);
      c.status = counts_here ? Status::kFail : Status::kWaived;
      c.details.push_back(counts_here ? "Nsight Compute counted no kernel of this program, though it counts the solution's here:"
                                      : "waived: Nsight Compute could not count the kernels here:");
      const std::vector<std::string> shown = quote_output(run.output, 4);
      c.details.insert(c.details.end(), shown.begin(), shown.end());
    }
  } else {
    c.status = Status::kWaived;
    c.details.push_back("waived: Nsight Compute (ncu), which counts what the kernels do, is not installed");
  }
  if (run.timed_out) {
    // What a stopped run left (a tool's log, counts) is no measure of anything.
    c.status = Status::kFail;
    c.details.push_back("on " + lab.technique_shape.describe() + " the program " + run.describe() + ":");
    const std::vector<std::string> shown = quote_output(run.output, 4);
    c.details.insert(c.details.end(), shown.begin(), shown.end());
  }
  return traffic;
}

}  // namespace

CheckResult check_technique(const Context& ctx, const LabRubric& lab, const LabPrograms& programs) {
  const auto start = Clock::now();
  CheckResult c("technique", Status::kPass, lab.points_technique);
  const Cases cases = write_cases(ctx, "technique", {lab.technique_shape});
  Traffic traffic = measure(ctx, lab, programs, cases, &c);
  if (c.status != Status::kPass) return all_or_nothing(c, start);
  const CaseVerdict v = evaluate(ctx, cases, 0);
  if (!v.pass) {
    c.status = Status::kFail;
    c.details.push_back("the result on " + lab.technique_shape.describe() + " is wrong, so the technique cannot count");
    return all_or_nothing(c, start);
  }
  traffic.host_copies = double(v.result.host_copies);
  const std::string estimate = ctx.backend == "cpu" ? estimate_line(ctx, lab, cases.dir + "/launches.txt") : "";
  // Each rule is worth its share of the points, so that a kernel that skips one lesson loses
  // that one; technique none still asks for a kernel launch.
  const std::vector<TechniqueRule> rules = lab.technique.empty() ? std::vector<TechniqueRule>{{"launch"}} : lab.technique;
  size_t held = 0;
  for (const TechniqueRule& rule : rules) {
    const std::vector<std::string> why = rule_shortfalls(rule, lab.technique_shape, traffic);
    if (why.empty()) {
      ++held;
    } else {
      c.details.insert(c.details.end(), why.begin(), why.end());
    }
  }
  c.seconds = seconds_since(start);
  c.points = c.max_points * double(held) / double(rules.size());
  if (!estimate.empty()) c.details.push_back(estimate);
  if (held == rules.size()) return c;
  c.status = Status::kFail;
  if (rules.size() > 1) c.details.insert(c.details.begin(), fmt("%.0f of %.0f rules hold", double(held), double(rules.size())));
  c.details.push_back(how_to_see(ctx, lab));
  return c;
}

std::string technique_estimate(const Context& ctx, const LabRubric& lab, const LabPrograms& programs) {
  if (ctx.backend != "cpu") return "";
  const Cases cases = write_cases(ctx, "estimate", {lab.technique_shape});
  const std::string log = cases.dir + "/launches.txt";
  const tools::RunResult run = run_limited(ctx, programs.watched, cases, {"CPUSIM_LAUNCH_LOG=" + log});
  if (run.timed_out || !evaluate(ctx, cases, 0).pass) return "";
  return estimate_line(ctx, lab, log);
}

}  // namespace grade
