// The verdict on a case from what its program wrote back (grading/core/case_runs.h's evaluate):
// its result file, its output against the fp64 reference, and a timed case's checked calls.
#include <algorithm>
#include <sstream>

#include "common/rep_check.h"
#include "common/timing.h"
#include "grading/core/case_runs.h"
#include "tools/text.h"

namespace grade {

std::string CaseVerdict::describe(const lab::Case& shape) const {
  if (!failure.empty()) return shape.describe() + ": " + failure;
  return shape.describe() + ": " + lab::verdict_line(report);
}

std::vector<std::string> CaseVerdict::report_lines() const {
  std::vector<std::string> lines;
  if (!failure.empty()) return lines;
  std::istringstream in(lab::format_report(report, "  "));
  std::string line;
  std::getline(in, line);  // the verdict line, which describe() shows
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

CaseVerdict evaluate(const Context& ctx, const Cases& cases, size_t i, const Pass* pass) {
  const lab::ServeCase& c = cases.cases[i];
  const std::string base = cases.dir + "/" + std::to_string(c.id);
  CaseVerdict v;
  if (!exists(base + ".result")) {
    v.failure = pass != nullptr && !pass->stopped[i].empty() ? pass->stopped[i]
                                                            : "did not finish (the program stopped before this case, see below)";
    return v;
  }
  v.result = lab::parse_result(tools::read_text(base + ".result"));
  const lab::CaseResult& r = v.result;
  if (!r.launch_error.empty() || !r.run_error.empty()) {
    const std::string& e = r.launch_error.empty() ? r.run_error : r.launch_error;
    v.failure = std::string("the ") + (r.launch_error.empty() ? "kernel failed while running" : "launch failed") + ": " + e +
                ": " + lab::error_hint(e);
    return v;
  }
  if (!r.finished || !lab::read_floats(base + ".out", &v.output, c.shape.output_count())) {
    v.output.clear();
    v.failure = "the program's result is missing or cut short";
    return v;
  }
  if (r.guard_before + r.guard_after > 0) {
    v.failure = "the kernel wrote outside the output (" + std::to_string(r.guard_before) + " elements before it, " +
                std::to_string(r.guard_after) + " after it): a missing bounds guard?";
    return v;
  }
  if (!r.modified_inputs.empty()) {
    v.failure = "the kernel changed its input " + r.modified_inputs + "which it must only read";
    return v;
  }
  v.complete = std::none_of(v.output.begin(), v.output.end(), lab::is_poison);
  const bool full = double(c.shape.output_count()) * double(c.shape.op == lab::Op::kMatmul ? c.shape.K : 1) <= double(1 << 28);
  v.report = lab::check_output(c.shape, cases.inputs[i], v.output.data(), ctx.seed + i, full);
  v.pass = v.report.pass();
  return v;
}

double checked_median(const Cases& cases, const CaseVerdict& v, const lab::DotReference* base_dot, std::string* why) {
  const lab::ServeCase& c = cases.cases[0];
  std::vector<std::vector<float>> inputs = cases.inputs[0];
  if (v.result.calls.size() != size_t(c.reps)) {
    *why = "the program reported " + std::to_string(v.result.calls.size()) + " timed calls, not " + std::to_string(c.reps);
    return 0;
  }
  std::vector<double> ms;
  for (size_t k = 0; k < v.result.calls.size(); ++k) {
    const lab::TimedCall& call = v.result.calls[k];
    const std::vector<lab::Edit> edits = lab::rep_edits(c.shape, call.edit_seed);
    std::string wrong = call.nonfinite > 0 ? std::to_string(call.nonfinite) + " elements are not finite numbers (never written?)"
                                           : lab::check_samples(c.shape, inputs, edits,
                                                                lab::sample_positions(c.shape, call.sample_seed, edits),
                                                                call.samples, base_dot);
    if (!wrong.empty()) {
      *why = "timed call " + std::to_string(k + 1) + " of " + std::to_string(c.reps) + " (on inputs changed just before it) " +
             "left a wrong result: " + wrong;
      return 0;
    }
    ms.push_back(call.ms);
  }
  return lab::summarize(std::move(ms)).median;
}

}  // namespace grade
