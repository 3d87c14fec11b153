#include "grading/core/targets.h"

#include <ctime>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "common/protocol.h"
#include "tools/subprocess.h"
#include "grading/core/case_runs.h"
#include "grading/core/isolation.h"
#include "grading/core/make_program.h"
#include "grading/core/quoting.h"
#include "tools/text.h"
#include "grading/core/report.h"

namespace grade {

namespace {

// What a targets file starts with, once make bench has written it.
const char* const kHeader =
    "# The performance targets of a copy without solutions (make release): per GPU model and graded\n"
    "# part, the share of its ceiling's speed the solution reached at the rubric's performance shape,\n"
    "# the ceiling's median time over the solution's, both measured in one make grade run on that GPU.\n"
    "# Without solutions, a student's target time is the ceiling's median in the same run over this\n"
    "# share (grading/core/targets.h). make bench writes a line per part on the GPU it runs on; lines of\n"
    "# other GPUs stay. Fields, separated by tabs: gpu (as nvidia-smi names it), part (rubric\n"
    "# section), shape (the rubric's performance_shape), ceiling, share, date, commit, source.\n";

}  // namespace

std::string today() {
  char date[16];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  return date;
}

// The commit of the solutions measured; "-dirty" when solutions/ differs from it.
std::string solutions_commit() {
  const tools::RunResult head = tools::run_command({"git", "rev-parse", "--short", "HEAD"});
  if (!head.exited(0)) return "unknown";
  std::string commit = head.output.substr(0, head.output.find('\n'));
  const tools::RunResult changed = tools::run_command({"git", "status", "--porcelain", "--", "solutions"});
  return changed.exited(0) && changed.output.empty() ? commit : commit + "-dirty";
}

bool load_targets(const std::string& path, std::vector<lab::Target>* targets, std::string* error) {
  if (!exists(path)) return true;
  std::ifstream in(path);
  if (!in) {
    *error = "cannot read " + path;
    return false;
  }
  return lab::parse_targets(tools::read_text(path), path, targets, error);
}

Program build_ceilings(const Context& ctx) {
  const std::string target = ctx.build_dir + "/gpu/bin/ceilings";
  const tools::RunResult r = run_make(ctx, {target});
  Program p;
  p.path = std::filesystem::absolute(target).string();
  p.fingerprint = r.exited(0) ? fingerprint(p.path) : "";
  if (p.fingerprint.empty()) {
    throw CannotGrade("the ceilings' program (cuBLAS and a copy: the performance targets without solutions) does not build "
                      "here; make said:\n" + tools::joined(quote_output(r.output, 15)));
  }
  // Code of this checkout, like a solution: it runs alone, and nothing is hidden from it.
  p.solution = true;
  return p;
}

Ceiling measure_ceiling(const Context& ctx, const Program& ceilings, const lab::Case& shape) {
  Ceiling c;
  int64_t dims[3];
  shape.dims(dims);
  const std::string what = std::string(lab::op_name(shape.op)) + " " + std::to_string(dims[0]) + " " +
                           std::to_string(dims[1]) + " " + std::to_string(dims[2]);
  // Alone, as a timed pass: solutions' runs share their turns, so one could run beside it. Without
  // this, cuBLAS took 3.18 ms at lab 02's 4096³ on the H100 where it took 2.66 to 2.69 ms for the
  // other parts of the same run, and lab 02's recorded share with it.
  RunControl alone;
  alone.gpu = GpuUse::alone;
  const tools::RunResult r = run_program(ctx, ceilings, {"--ceiling-of", what}, {}, {}, 0, alone);
  const lab::ResultFields f = lab::parse_fields(r.output);
  c.name = f.count("ceiling") ? f.at("ceiling") : "the ceiling";
  if (!r.exited(0) || f.count("ceiling_ms") == 0) {
    c.why = c.name + " " + (f.count("failure") ? f.at("failure") : r.describe() + ": " + r.output.substr(0, 300));
    return c;
  }
  c.ms = std::stod(f.at("ceiling_ms"));
  c.peak_tflops = f.count("peak_tflops") ? std::stod(f.at("peak_tflops")) : 0;
  c.copy_tbps = f.count("copy_tbps") ? std::stod(f.at("copy_tbps")) : 0;
  if (c.ms <= 0) c.why = c.name + " took no time";
  return c;
}

std::optional<lab::Target> target_for(const Context& ctx, const LabRubric& lab, bool* fallback, std::string* why) {
  const std::string shape = lab.performance_shape.text();
  *fallback = false;
  if (const lab::Target* t = lab::find_target(ctx.targets, ctx.device, lab.step.id, shape)) return *t;
  const lab::Target* least = nullptr;
  std::string others;
  for (const lab::Target& t : ctx.targets) {
    if (t.part != lab.step.id) continue;
    if (t.shape == shape && (least == nullptr || t.share < least->share)) least = &t;
    if (!tools::contains(others, t.gpu + " at " + t.shape)) others += (others.empty() ? "" : ", ") + t.gpu + " at " + t.shape;
  }
  if (least != nullptr) {
    *fallback = true;
    return *least;
  }
  *why = ctx.targets_path + " has no target for " + lab.step.id + " at " + shape + " on any GPU" +
         (others.empty() ? "" : " (it has: " + others + ")") + "; make bench on a GPU, in a checkout with the solutions, records one";
  return std::nullopt;
}

std::string record_target(const Context& ctx, const LabRubric& lab, const Ceiling& ceiling, double solution_ms) {
  // Labs graded at once record one after another: each reads what the others wrote.
  static std::mutex file;
  const std::lock_guard<std::mutex> hold(file);
  std::vector<lab::Target> targets;
  std::string error;
  if (!load_targets(ctx.targets_path, &targets, &error)) return "not recorded: " + error;
  const lab::Target t{ctx.device, lab.step.id, lab.performance_shape.text(), ceiling.name, ceiling.ms / solution_ms,
                      today(), solutions_commit(), "make bench"};
  lab::put_target(&targets, t);
  if (!write_atomically(ctx.targets_path, lab::format_targets(kHeader, targets))) {
    return "not recorded: cannot write " + ctx.targets_path;
  }
  return "recorded in " + ctx.targets_path + ": on " + t.gpu + " the solution reached " + fmt("%.1f%%", 100 * t.share) +
         " of the speed of " + t.ceiling + fmt(" (%.3f ms against %.3f ms in this run)", solution_ms, ceiling.ms);
}

}  // namespace grade
