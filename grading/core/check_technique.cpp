// The technique check: does the lab's kernel do what the lab teaches, measured from what the
// kernels did (grading/core/technique.h gives the rules).
#include "grading/core/case_runs.h"
#include "grading/core/checks.h"
#include "grading/core/kernel_counts.h"
#include "grading/core/quoting.h"
#include "grading/core/technique.h"

namespace grade {

namespace {

// The command that shows a student the counts per launch, on this backend.
std::string how_to_count(const Context& ctx, const LabRubric& lab) {
  std::string args = lab.step.count > 1 ? " --step " + std::to_string(lab.step.number) : "";
  for (const std::string& a : lab.technique_shape.size_args()) args += " " + a;
  const std::string program = "$(make -s program LAB=" + lab.number + " SRC=" + ctx.src;
  if (ctx.backend == "cpu") {
    return "the counts per launch (cpusim/README.md): CPUSIM_LAUNCH_LOG=/dev/stdout " + program +
           " FLAVOR=cpu-count) --no-time --no-edges --quiet" + args;
  }
  return "the counts per launch: ncu --metrics " + std::string(kNcuMetrics) + " " + program + ") --no-time --no-edges --quiet" + args;
}

}  // namespace

CheckResult check_technique(const Context& ctx, const LabRubric& lab, const LabPrograms& programs) {
  const auto start = Clock::now();
  CheckResult c("technique", Status::kPass, lab.points_technique);
  const Cases cases = write_cases(ctx, "technique", {lab.technique_shape});
  Traffic traffic;
  lab::RunResult run;
  if (ctx.backend == "cpu") {
    // Technique none asks only for a launch, which the plain build's log shows too.
    const std::string log = cases.dir + "/launches.txt";
    run = run_limited(ctx, programs.count.path.empty() ? programs.main : programs.count, cases, {"CPUSIM_LAUNCH_LOG=" + log});
    traffic = traffic_from_launch_log(log);
  } else if (ctx.have_ncu) {
    const std::string csv = cases.dir + "/ncu.csv";
    run = run_limited(ctx, programs.main, cases, {},
                      {"ncu", "--csv", "--print-units", "base", "--log-file", csv, "--metrics", kNcuMetrics}, &programs.solution);
    traffic = traffic_from_ncu(csv);
    if (traffic.launches == 0 && run.output.find("==ERROR==") != std::string::npos) {
      c.status = Status::kWaived;
      c.details.push_back("waived: Nsight Compute could not count the kernels here:");
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
  if (c.status == Status::kPass) {
    const CaseVerdict v = evaluate(ctx, cases, 0);
    traffic.host_copies = double(v.result.host_copies);
    const std::vector<std::string> why =
        v.pass ? technique_shortfalls(lab, lab.technique_shape, traffic)
               : std::vector<std::string>{"the result on " + lab.technique_shape.describe() + " is wrong, so the technique cannot count"};
    if (!why.empty()) {
      c.status = Status::kFail;
      c.details.insert(c.details.end(), why.begin(), why.end());
      if (v.pass) c.details.push_back(how_to_count(ctx, lab));
    }
  }
  return all_or_nothing(c, start);
}

}  // namespace grade
