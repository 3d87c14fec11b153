// The comparison at the end of `make run` on a GPU: the student's kernel, the solution and
// what the GPU can do, measured in the same run on the same device and sizes. The ceiling
// of a matrix product is cuBLAS SGEMM in true fp32 (CUBLAS_COMPUTE_32F, no TF32); the
// ceiling of the memory-bound labs is a device-to-device copy moving the same bytes, with
// cuBLAS's own transpose (Sgeam) and dot (Sdot) for reference (harness/vendor.h measures them).
// Where there is no solution (a students' copy), the solution's row is its target instead: the
// ceiling's time over the share of it the solution reached on this GPU model (grading/targets.txt,
// common/targets.h). With --ceiling-of it measures the ceiling alone, for the grader's
// performance check. This program links cuBLAS; the lab programs do not.
#include <cstdio>
#include <fstream>
#include <sstream>

#include "common/cli.h"
#include "common/device_info.h"
#include "common/exit_codes.h"
#include "common/labs.h"
#include "common/protocol.h"
#include "common/targets.h"
#include "harness/vendor.h"

namespace {

// A row of the comparison; ms <= 0 for one that was not timed, ceiling_ms <= 0 when the
// ceiling was not (a wrong cuBLAS result), which leaves the share out.
void print_row(const std::string& name, double ms, const lab::Case& c, double ceiling_ms) {
  if (ms <= 0) {
    std::printf("    %-28s %10s %10s\n", name.c_str(), "-", "-");
  } else if (ceiling_ms <= 0) {
    std::printf("    %-28s %10.3f %10.2f %s\n", name.c_str(), ms, c.rate(ms), c.rate_unit());
  } else {
    std::printf("    %-28s %10.3f %10.2f %s %7.1f%%\n", name.c_str(), ms, c.rate(ms), c.rate_unit(),
                100.0 * ceiling_ms / ms);
  }
}

void print_row(const lab::Measured& m, const lab::Case& c, double ceiling_ms) {
  print_row(m.timed() ? m.name : m.name + " (" + m.failure + ")", m.timing.median, c, ceiling_ms);
}

// The graded part (rubric section) a lab program's result file is of: its lab's folder, and the
// step whose launcher it ran ("03_matmul_register.1d"); "" when labs.txt has no such lab.
std::string part_of(const lab::ResultFields& result) {
  const lab::LabEntry* entry = result.count("lab") ? lab::find_lab(lab::labs(), result.at("lab")) : nullptr;
  if (entry == nullptr || result.count("name") == 0) return "";
  for (const lab::LabStep& step : entry->step_list()) {
    if (step.launcher == result.at("name")) return step.id;
  }
  return "";
}

// Where there is no solution to run: the solution's target on this GPU from grading/targets.txt,
// or why there is none.
void print_target(const std::string& targets_path, const std::string& gpu, const std::string& part, const lab::Case& c,
                  double ceiling_ms) {
  std::ifstream in(targets_path);
  std::vector<lab::Target> targets;
  std::string error = in ? "" : "cannot read it";
  if (in) {
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!lab::parse_targets(text, targets_path, &targets, &error)) targets.clear();
  }
  const lab::Target* t = lab::find_target(targets, gpu, part, c.text());
  if (t == nullptr || ceiling_ms <= 0) {
    std::printf("  (no solution here to run; %s has no target for %s at %s on %s%s)\n", targets_path.c_str(), part.c_str(),
                c.text().c_str(), gpu.c_str(), error.empty() ? "" : (": " + error).c_str());
    return;
  }
  print_row("solution (its target)", ceiling_ms / t->share, c, ceiling_ms);
  std::printf("  (no solution here to run: its target is the ceiling's time over the share of it the solution\n"
              "   reached on this GPU model, %.1f%%: %s, %s, commit %s)\n",
              100 * t->share, targets_path.c_str(), t->date.c_str(), t->commit.c_str());
}

// --ceiling-of "matmul 4096 4096 4096" (a case as Case::dims writes it): the ceiling alone, as
// "key value" lines (gpu, ceiling, ceiling_ms, and what bounds any time on this GPU:
// peak_tflops, copy_tbps); exit 1, with the failure, when it could not be timed (a wrong cuBLAS
// result).
int measure_ceiling(const std::string& text, int reps) {
  std::istringstream in(text);
  std::string op;
  int64_t dims[3] = {0, 0, 0};
  lab::Case c;
  if (!(in >> op >> dims[0] >> dims[1] >> dims[2]) || !lab::Case::from_dims(op, dims, &c)) {
    std::fprintf(stderr, "ceilings: --ceiling-of '%s' is not \"OP D0 D1 D2\" (matmul M N K, transpose ROWS COLS 0, dot N 0 0)\n",
                 text.c_str());
    return lab::kExitCannotRun;
  }
  const lab::DeviceInfo device = lab::open_device();
  const lab::Measured m = lab::time_ceiling(c, reps);
  std::printf("gpu %s\nceiling %s\n", device.name.c_str(), m.name.c_str());
  if (!m.timed()) {
    std::printf("failure %s\n", m.failure.c_str());
    return lab::kExitWrong;
  }
  std::printf("ceiling_ms %.6f\npeak_tflops %.3f\ncopy_tbps %.4f\n", m.timing.median, lab::fp32_peak_tflops(), lab::copy_tbps());
  return lab::kExitPass;
}

}  // namespace

int main(int argc, char** argv) {
  std::string yours, solution, ceiling_of, targets = "grading/targets.txt";
  int64_t reps = lab::kTimedRuns;
  lab::Cli cli(argv[0], "Prints make run's comparison: the result files of the student's and the solution's\n"
                        "runs, next to cuBLAS and a device-to-device copy of the same sizes.");
  cli.add_string("yours", &yours, "result file of the student's run (sizes are read from it)");
  cli.add_string("solution", &solution, "result file of the solution's run (none: the target of --targets)");
  cli.add_string("targets", &targets, "the solutions' recorded shares of their ceilings, per GPU model");
  cli.add_string("ceiling-of", &ceiling_of, "only measure the ceiling of a case, \"matmul 4096 4096 4096\" or \"dot 67108864 0 0\",\n"
                                            "and print it as "
                                            "\"key value\" lines (make grade's performance check, without solutions)");
  cli.add_int("reps", &reps, 1, 1000, "timed repetitions");
  cli.parse(argc, argv);
  if (!ceiling_of.empty()) return measure_ceiling(ceiling_of, int(reps));
  const lab::ResultFields mine = lab::read_result_file(yours);
  int64_t dims[3] = {0, 0, 0};
  lab::Case c;
  if (mine.count("op") == 0 || mine.count("dims") == 0 ||
      !(std::istringstream(mine.at("dims")) >> dims[0] >> dims[1] >> dims[2]) ||
      !lab::Case::from_dims(mine.at("op"), dims, &c)) {
    std::fprintf(stderr, "ceilings: no result in '%s'\n", yours.c_str());
    return lab::kExitCannotRun;
  }
  const lab::ResultFields theirs = lab::read_result_file(solution);
  const lab::DeviceInfo device = lab::open_device();

  const lab::Measured cublas = lab::time_cublas(c, lab::make_inputs(c, 1), int(reps));
  const lab::Measured copy = lab::time_copy(c, int(reps));
  const double ceiling_ms = (c.compute_bound() ? cublas : copy).timing.median;
  auto ms_of = [](const lab::ResultFields& f) {
    return f.count("check") && f.at("check") == "pass" ? std::stod(f.at("median_ms")) : 0.0;
  };

  std::printf("\n  compared in this run (same GPU, same sizes; last column: share of the %s)\n",
              c.compute_bound() ? "cuBLAS time" : "copy's speed");
  std::printf("    %-28s %10s %10s\n", "", "median ms", c.rate_unit());
  print_row("your " + mine.at("name"), ms_of(mine), c, ceiling_ms);
  if (theirs.count("check")) print_row("solution", ms_of(theirs), c, ceiling_ms);
  print_row(cublas, c, ceiling_ms);
  if (!c.compute_bound()) print_row(copy, c, ceiling_ms);
  if (!theirs.count("check")) print_target(targets, device.name, part_of(mine), c, (c.compute_bound() && !cublas.timed()) ? 0 : ceiling_ms);
  return lab::kExitPass;
}
