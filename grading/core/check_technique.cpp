// The technique check: does the lab's kernel do what the lab teaches, measured from what the
// kernels did (grading/core/technique.h gives the rules).
#include <optional>

#include "grading/core/case_runs.h"
#include "grading/core/checks.h"
#include "grading/core/estimate.h"
#include "grading/core/kernel_counts.h"
#include "grading/core/machine.h"
#include "grading/core/quoting.h"
#include "grading/core/targets.h"
#include "grading/core/technique.h"
#include "grading/core/turns.h"

namespace grade {

namespace {

// Where a student sees the counts this check read, per kernel and per source line: make
// profile at the technique shape, on the backend that counted them (a program the check ran is
// the same build).
std::string how_to_see(const Context& ctx, const LabRubric& lab, const std::string& counted_on) {
  std::string args;
  for (const std::string& a : lab.technique_shape.size_args()) args += (args.empty() ? "" : " ") + a;
  const std::string step = lab.step.count > 1 ? " STEP=" + std::to_string(lab.step.number) : "";
  const std::string src = ctx.src == "labs" ? "" : " SRC=" + ctx.src;
  return "make profile LAB=" + lab.number + step + src + " BACKEND=" + counted_on + " ARGS=\"" + args +
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

// The technique shape's run of PROGRAM, a counting build (cpucc --count-accesses), on CASES: the
// counts its launch log gave, and the run. One OS thread: the technique shapes are a few blocks,
// and more threads only add each one's fiber stacks (lab 03's step 2 took 1.1 s with one, 4.1 s
// with the H200 machine's 16).
Traffic model_counts(const Context& ctx, const Program& program, const Cases& cases, tools::RunResult* run) {
  const std::string log = cases.dir + "/launches.txt";
  *run = run_limited(ctx, program, cases, {"CPUSIM_LAUNCH_LOG=" + log, "CPUSIM_THREADS=1"});
  return traffic_from_launch_log(log);
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

// What one run at the technique shape counted, and where: the cases it ran, on which backend.
struct Measured {
  Traffic traffic;
  Cases cases;
  std::string counted_on;  // "gpu", "cpu": make profile's BACKEND that shows the same counts
};

// On a GPU with --counts model: the counting build's run, when the CPU backend built the student's
// file, ran it to the end and got the right result. Otherwise Nsight Compute counts (the caller),
// and *WHY says why: a file that is correct on the GPU loses nothing for what the CPU backend
// cannot do.
std::optional<Measured> model_on_gpu(const Context& ctx, const LabPrograms& programs, const Cases& cases, std::string* why) {
  if (ctx.counts != "model") return std::nullopt;
  if (programs.watched.path.empty()) {
    *why = "counted by Nsight Compute: the CPU backend, whose model counts the others, cannot build this file";
    return std::nullopt;
  }
  Measured m{{}, copy_cases(ctx, cases, "technique-model"), "cpu"};
  tools::RunResult run;
  m.traffic = model_counts(ctx, programs.watched, m.cases, &run);
  if (run.exited(0) && m.traffic.launches > 0 && evaluate(ctx, m.cases, 0).pass) return m;
  *why = "counted by Nsight Compute: on the CPU backend, whose model counts the others, this file's run " +
         (run.exited(0) ? std::string("did not compute the technique shape right") : "stopped (" + run.describe() + ")");
  return std::nullopt;
}

// Runs the technique shape on this backend, counting what the kernels do: the counting build
// on the CPU backend, on a GPU the GPU build under Nsight Compute (or the counting build: --counts
// model). C's status says when the counts cannot be had (waived) or the run was stopped (failed).
Measured measure(const Context& ctx, const LabRubric& lab, const LabPrograms& programs, const Cases& cases, CheckResult* out) {
  CheckResult& c = *out;
  Measured m{{}, cases, ctx.backend};
  tools::RunResult run;
  std::string why_not_model;
  if (ctx.backend == "cpu") {
    m.traffic = model_counts(ctx, programs.watched, cases, &run);
  } else if (std::optional<Measured> model = model_on_gpu(ctx, programs, cases, &why_not_model)) {
    return *model;
  } else if (ctx.have_ncu) {
    if (!why_not_model.empty()) c.details.push_back(why_not_model);
    m.traffic = ncu_counts(ctx, programs.main, cases, &programs.solution, &run);
    // Nsight Compute's errors and the program's output come in one stream, where a program can
    // print an error line of its own: where there is a solution, its run says whether Nsight
    // Compute counts kernels here, and only if it does not is the check waived.
    if (m.traffic.launches == 0 && run.output.find("==ERROR==") != std::string::npos) {
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
  return m;
}

}  // namespace

CheckResult check_technique(const Context& ctx, const LabRubric& lab, const LabPrograms& programs) {
  const auto start = Clock::now();
  CheckResult c("technique", Status::kPass, lab.points_technique);
  Measured m = measure(ctx, lab, programs, write_cases(ctx, "technique", {lab.technique_shape}), &c);
  if (c.status != Status::kPass) return all_or_nothing(c, start);
  Traffic& traffic = m.traffic;
  const CaseVerdict v = evaluate(ctx, m.cases, 0);
  if (!v.pass) {
    c.status = Status::kFail;
    c.details.push_back("the result on " + lab.technique_shape.describe() + " is wrong, so the technique cannot count");
    return all_or_nothing(c, start);
  }
  traffic.host_copies = double(v.result.host_copies);
  const std::string estimate = ctx.backend == "cpu" ? estimate_line(ctx, lab, m.cases.dir + "/launches.txt") : "";
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
  c.details.push_back(how_to_see(ctx, lab, m.counted_on));
  return c;
}

std::string technique_estimate(const Context& ctx, const LabRubric& lab, const LabPrograms& programs) {
  if (ctx.backend != "cpu") return "";
  const Cases cases = write_cases(ctx, "estimate", {lab.technique_shape});
  tools::RunResult run;
  model_counts(ctx, programs.watched, cases, &run);
  if (run.timed_out || !evaluate(ctx, cases, 0).pass) return "";
  return estimate_line(ctx, lab, cases.dir + "/launches.txt");
}

std::string resolve_counts(const std::string& counts, const std::string& backend, const std::string& default_on_gpu, bool look_here,
                           std::string* error, std::string* note) {
  if (!counts.empty() && counts != "ncu" && counts != "model") {
    *error = "COUNTS must be ncu or model, not '" + counts + "'";
  } else if (backend == "cpu" && counts == "ncu") {
    *error = "COUNTS=ncu counts with Nsight Compute, on a GPU; the CPU backend counts with its model";
  }
  if (!error->empty() || backend == "cpu") return "model";
  const std::string asked = counts.empty() ? default_on_gpu : counts;
  const std::string missing = asked == "model" && look_here ? cpu_backend_missing() : "";
  if (missing.empty()) return asked;
  *note = "COUNTS=model asked for the CPU backend's model, but " + missing;
  return "ncu";
}

std::string counts_source(const Context& ctx) {
  if (ctx.counts == "model") {
    return "the CPU backend's model (COUNTS=model), as on the CPU backend; Nsight Compute for a file the CPU backend "
           "cannot build or run";
  }
  return "Nsight Compute on the GPU" + (ctx.counts_note.empty() ? std::string() : " (" + ctx.counts_note + ")");
}

}  // namespace grade
