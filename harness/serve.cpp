#include "harness/serve.h"

#include <cstdio>
#include <fstream>

#include "common/exit_codes.h"
#include "common/fill.h"
#include "common/timing.h"
#include "harness/device_case.h"
#include "harness/protocol.h"

namespace lab {

namespace {

// Written to a temporary name and renamed, so that a crash never leaves half a result.
bool write_text(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  std::ofstream out(tmp);
  out << text;
  out.close();
  return out && std::rename(tmp.c_str(), path.c_str()) == 0;
}

}  // namespace

int serve(const Launcher& launcher, const std::string& dir) {
  std::ifstream list(dir + "/cases.txt");
  if (!list) {
    std::fprintf(stderr, "serve: cannot read %s/cases.txt\n", dir.c_str());
    return kExitCannotRun;
  }
  for (std::string line; std::getline(list, line);) {
    ServeCase sc;
    if (!parse_case_line(line, &sc)) {
      std::fprintf(stderr, "serve: bad case line '%s'\n", line.c_str());
      return kExitCannotRun;
    }
    const std::string base = dir + "/" + std::to_string(sc.id);
    std::vector<std::vector<float>> inputs;
    const std::vector<size_t> counts = sc.shape.input_counts();
    for (size_t j = 0; j < counts.size(); ++j) {
      inputs.emplace_back();
      if (!read_floats(base + ".in" + std::to_string(j), &inputs.back(), counts[j])) {
        std::fprintf(stderr, "serve: cannot read the inputs of case %d\n", sc.id);
        return kExitCannotRun;
      }
    }

    CaseResult result;
    DeviceCase run(sc.shape, inputs);
    DeviceCase::Outcome outcome = run.run(launcher);
    if (outcome.ok() && sc.timed) {
      const Timing t = time_on_device([&] { run.enqueue(launcher); }, sc.reps, sc.warmup);
      result.median_ms = t.median;
      result.times_ms = t.ms;
      // Run once more on a poisoned output: what the grader checks comes from the same
      // launcher calls that were timed, not from an earlier one.
      outcome = run.run(launcher);
    }
    result.launch_error = outcome.launch == cudaSuccess ? "" : cudaGetErrorName(outcome.launch);
    result.run_error = outcome.run == cudaSuccess ? "" : cudaGetErrorName(outcome.run);
    if (!outcome.ok()) {
      write_text(base + ".result", format_result(result));
      return kExitWrong;  // a sticky error: nothing else can run in this process
    }
    const std::vector<float> output = run.output();
    const auto [before, after] = run.damaged_guards();
    result.guard_before = int64_t(before);
    result.guard_after = int64_t(after);
    for (const std::string& name : run.modified_inputs(inputs)) result.modified_inputs += name + " ";
    if (!write_floats(base + ".out", output.data(), output.size()) ||
        !write_text(base + ".result", format_result(result))) {
      std::fprintf(stderr, "serve: cannot write the results of case %d\n", sc.id);
      return kExitCannotRun;
    }
  }
  return kExitPass;
}

}  // namespace lab
