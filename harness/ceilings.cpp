// The comparison at the end of `make run` on a GPU: the student's kernel, the solution and
// what the GPU can do, measured in the same run on the same device and sizes. The ceiling
// of a matrix product is cuBLAS SGEMM in true fp32 (CUBLAS_COMPUTE_32F, no TF32); the
// ceiling of the memory-bound labs is a device-to-device copy moving the same bytes, with
// cuBLAS's own transpose (Sgeam) and dot (Sdot) for reference (harness/vendor.h measures them).
// This program links cuBLAS; the lab programs do not.
#include <cstdio>
#include <sstream>

#include "common/cli.h"
#include "common/device_info.h"
#include "common/exit_codes.h"
#include "common/protocol.h"
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

}  // namespace

int main(int argc, char** argv) {
  std::string yours, solution;
  int64_t reps = lab::kTimedRuns;
  lab::Cli cli(argv[0], "Prints make run's comparison: the result files of the student's and the solution's\n"
                        "runs, next to cuBLAS and a device-to-device copy of the same sizes.");
  cli.add_string("yours", &yours, "result file of the student's run (sizes are read from it)");
  cli.add_string("solution", &solution, "result file of the solution's run");
  cli.add_int("reps", &reps, 1, 1000, "timed repetitions");
  cli.parse(argc, argv);
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
  lab::open_device();

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
  return lab::kExitPass;
}
