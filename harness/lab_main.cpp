#include "harness/lab_main.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <new>
#include <unistd.h>

#include "common/cli.h"
#include "common/device_info.h"
#include "common/exit_codes.h"
#include "common/timing.h"
#include "tools/descendants.h"
#include "harness/device_case.h"
#include "harness/thread_order.h"
#include "harness/serve.h"

namespace lab {

namespace {

constexpr int64_t kMaxDim = (int64_t(1) << 31) - 1;  // the launchers take int sizes

struct Options {
  int64_t M = -1, N = -1, K = -1, rows = -1, cols = -1, n = -1;  // -1: the backend's default
  int64_t seed = 1, reps = -1, warmup = -1, offset = 0;
  bool full_check = false, no_time = false, no_edges = false, quiet = false;
  std::string result_file, serve_dir, step;
};

// Sizes that run in about a second: the GPU's show its speed, the CPU backend's emulate
// every thread and must stay small.
Case default_case(Op op, const Options& o, bool cpu) {
  auto pick = [](int64_t chosen, int64_t fallback) { return chosen >= 0 ? chosen : fallback; };
  switch (op) {
    case Op::kMatmul: {
      const int64_t d = cpu ? 256 : 4096;
      return Case::matmul(pick(o.M, d), pick(o.N, d), pick(o.K, d));
    }
    case Op::kTranspose: {
      const int64_t d = cpu ? 1024 : 8192;
      return Case::transpose(pick(o.rows, d), pick(o.cols, d));
    }
    case Op::kDot:
      return Case::dot(pick(o.n, cpu ? (1 << 20) : (1 << 28)));
  }
  return {};
}

// The sizes checked before the ones asked for. The default sizes are multiples of every tile
// and block size of the labs, so a kernel with an edge bug (a missing guard, a partial tile
// skipped) passes at them; no tile divides these. Each is a little past a multiple of the
// largest tile along its dimension, so that there are whole tiles and a partial one: M = 259
// (lab 03's 256 rows; lab 02's 32, lab 01's 8), N = 131 (lab 03's 128 columns; 32), K = 37
// (lab 02's 32, lab 03's 8), a transpose of 131 × 67 (lab 04's 64), a dot of 100003 (98 blocks
// of 4 · 256, the last partial, and 3 elements past the last float4). M and N differ, so that
// a guard with the two swapped fails. Lab 03 takes its float4 path only when N and K are
// multiples of 4, hence a second matrix product, N = 132 and K = 36, for that path's edges.
// Small: they add a few milliseconds on a GPU and a tenth of a second on the CPU backend.
std::vector<Case> edge_cases(Op op) {
  switch (op) {
    case Op::kMatmul: return {Case::matmul(259, 131, 37), Case::matmul(259, 132, 36)};
    case Op::kTranspose: return {Case::transpose(131, 67)};
    case Op::kDot: return {Case::dot(100003)};
  }
  return {};
}

// "M=259 N=131 K=37 and M=259 N=132 K=36"
std::string describe_cases(const std::vector<Case>& cases) {
  std::string text;
  for (const Case& c : cases) text += (text.empty() ? "" : " and ") + c.describe();
  return text;
}

// "1 (1d), 2 (2d), 3": the steps of a lab, as --step names them.
std::string describe_steps(const std::vector<Step>& steps) {
  std::string text;
  for (size_t i = 0; i < steps.size(); ++i) {
    text += (i == 0 ? "" : ", ") + std::to_string(i + 1) + (steps[i].suffix.empty() ? "" : " (" + steps[i].suffix + ")");
  }
  return text;
}

Options parse_options(const LabInfo& info, const std::vector<Step>& steps, int argc, char** argv) {
  Options o;
  Cli cli(argv[0], std::string("Lab ") + info.id + " (" + info.name +
                       "): checks the launcher against an fp64 reference, then times it.\n"
                       "First at sizes that no tile divides, the edges (" + describe_cases(edge_cases(info.op)) +
                       "), whatever the sizes asked for;\nthen at the sizes asked for, by default a large problem "
                       "on a GPU and a small one on the CPU backend.");
  switch (info.op) {
    case Op::kMatmul:
      cli.add_int("m", &o.M, 0, kMaxDim, "rows of A and C (default 4096; CPU backend 256)");
      cli.add_int("n", &o.N, 0, kMaxDim, "columns of B and C (same default)");
      cli.add_int("k", &o.K, 0, kMaxDim, "columns of A, rows of B (same default)");
      break;
    case Op::kTranspose:
      cli.add_int("rows", &o.rows, 0, kMaxDim, "rows of the input (default 8192; CPU backend 1024)");
      cli.add_int("cols", &o.cols, 0, kMaxDim, "columns of the input (same default)");
      break;
    case Op::kDot:
      cli.add_int("n", &o.n, 0, kMaxDim, "length of the vectors (default 2^28; CPU backend 2^20)");
      break;
  }
  if (steps.size() > 1) {
    cli.add_string("step", &o.step, "the step to run, by its number or its name: " + describe_steps(steps) +
                                        " (default: the last)");
  }
  cli.add_int("seed", &o.seed, 0, INT64_MAX, "seed of the random inputs");
  cli.add_int("offset", &o.offset, 0, 1024, "start the arrays this many floats past an aligned address");
  cli.add_int("reps", &o.reps, 1, 100000, "timed repetitions (default 20; CPU backend 1)");
  cli.add_int("warmup", &o.warmup, 0, 100000, "untimed repetitions first (default 3; CPU backend 0)");
  cli.add_flag("full-check", &o.full_check, "check every row of a large matrix product, not a sample");
  cli.add_flag("no-time", &o.no_time, "check only");
  cli.add_flag("no-edges", &o.no_edges, "skip the edges: check and time only the sizes asked for");
  cli.add_flag("quiet", &o.quiet, "print only failures");
  cli.add_string("result", &o.result_file, "also write the result as 'key value' lines to this file");
  cli.add_string("serve", &o.serve_dir, "for the grader: run the cases in this folder (common/protocol.h)");
  cli.parse(argc, argv);
  return o;
}

// What the program found, for the result file (common/protocol.h: read_result_file).
struct Result {
  std::string check = "error";  // pass, fail or error
  Timing timing;                // empty unless timed
  double rate = 0;
};

// And, on a GPU, the GPU: what make profile's estimate is for (grading/core/reference_gpu.h).
void write_result(const std::string& path, const LabInfo& info, const Case& c, const Result& r, const DeviceInfo& device) {
  if (path.empty()) return;
  int64_t dims[3];
  c.dims(dims);
  std::ofstream out(path);
  out << "lab " << info.id << "\nname " << info.name << "\nop " << op_name(c.op) << "\ndims " << dims[0] << " "
      << dims[1] << " " << dims[2] << "\ncheck " << r.check << "\nmedian_ms " << r.timing.median
      << "\nmin_ms " << r.timing.min << "\nmax_ms " << r.timing.max << "\nruns " << r.timing.ms.size()
      << "\nrate " << r.rate << "\nunit " << c.rate_unit() << "\ndevice " << device.name << "\n";
  if (!device.cpu_backend) {
    out << "sm_count " << device.sm_count << "\nl2_bytes " << device.l2_bytes << "\npeak_tflops " << fp32_peak_tflops()
        << "\ncopy_tbps " << copy_tbps() << "\n";
  }
}

size_t host_memory_bytes() { return size_t(sysconf(_SC_PHYS_PAGES)) * size_t(sysconf(_SC_PAGESIZE)); }

// --quiet keeps failures and drops the rest.
void say(const Options& o, const std::string& text) {
  if (!o.quiet) std::fputs(text.c_str(), stdout);
}

// For the grader. What the student's code starts ends with this program: a tool that waits for
// the whole tree (compute-sanitizer, Nsight Compute) is not held up by a process it left behind.
int serve_cases(const Launcher& launcher, const std::string& dir) {
  tools::adopt_orphans();
  const int code = serve(launcher, dir);
  tools::kill_descendants();
  return code;
}

// Refuses sizes that cannot fit before anything is allocated: an allocation failure deep in
// the run would say much less. The output's two guards and the timing's L2 flush add to it.
bool fits(const Case& c, const DeviceInfo& device) {
  const double device_need =
      c.device_bytes() + 2.0 * sizeof(float) * double(c.guard_floats()) + 2.0 * double(device.l2_bytes) + (1 << 20);
  if (device_need > double(device.free_bytes)) {
    std::fprintf(stderr, "%s needs %s of device memory, and the device has %s free: use smaller sizes.\n",
                 c.describe().c_str(), format_bytes(device_need).c_str(),
                 format_bytes(double(device.free_bytes)).c_str());
    return false;
  }
  if (2.0 * c.device_bytes() > double(host_memory_bytes())) {
    std::fprintf(stderr, "%s needs %s of host memory for the inputs and the check, and this machine has %s: use smaller sizes.\n",
                 c.describe().c_str(), format_bytes(2.0 * c.device_bytes()).c_str(),
                 format_bytes(double(host_memory_bytes())).c_str());
    return false;
  }
  return true;
}

// Which check a verdict belongs to: the sizes asked for ("  check    PASS: ...") or an edge
// case ("  edges    FAIL at M=259 N=131 K=37: ..."), whose passes one line sums up instead.
struct Stage {
  std::string name;  // "check" or "edges"
  std::string at;    // "", or " at " and the edge case
  bool edge() const { return !at.empty(); }
  // The line for a verdict that starts with PASS or FAIL (as format_report's does).
  std::string line(const std::string& verdict) const {
    return "  " + name + "    " + verdict.substr(0, 4) + at + verdict.substr(4);
  }
};

// Checks what the launcher left behind: the output against the reference, the memory around
// it, and the inputs. Prints the verdict; true when all of it is right.
// Whether a failing result, every element of it written, changes when the launcher runs again
// on the same inputs (in the other thread order, where the backend lets us choose): a race.
bool changes_when_run_again(DeviceCase& run, const Launcher& launcher, const Case& c, const std::vector<std::vector<float>>& inputs,
                            const Options& o, const std::vector<float>& output, const CheckReport& report) {
  if (report.pass() || report.unwritten > 0 || c.empty()) return false;
  reverse_thread_order();
  if (!run.run(launcher).ok()) return false;
  const std::vector<float> again = run.output();
  if (again.size() != output.size() || std::memcmp(again.data(), output.data(), output.size() * sizeof(float)) == 0) return false;
  // Sums added in another order differ in their last bits only (common/compare.h).
  const CheckReport other = check_output(c, inputs, again.data(), uint64_t(o.seed), o.full_check);
  return other.unwritten > 0 || !(std::fabs(other.max_error_ratio - report.max_error_ratio) < 2.0);
}

bool check_result(DeviceCase& run, const Launcher& launcher, const Case& c, const std::vector<std::vector<float>>& inputs,
                  const Options& o, const Stage& stage) {
  const std::vector<float> output = run.output();
  CheckReport report = check_output(c, inputs, output.data(), uint64_t(o.seed), o.full_check);
  if (changes_when_run_again(run, launcher, c, inputs, o, output, report)) {
    report.hint = "the result changes when the kernel runs again on the same inputs (in another thread order on the CPU "
                  "backend): a race, such as a missing __syncthreads between writing shared memory and reading it, or "
                  "threads writing the same element.";
  }
  const auto [before, after] = run.damaged_guards();
  const std::vector<std::string> modified = run.modified_inputs(inputs);
  // Writes outside the output first: they explain the wrong elements inside it too.
  if (before + after > 0) {
    char line[512];
    snprintf(line, sizeof line, "FAIL: the kernel wrote outside the output: %zu elements before its start "
             "and %zu after its end were overwritten. A missing bounds guard?\n", before, after);
    std::fputs(stage.line(line).c_str(), stdout);
  }
  const std::string verdict = stage.line(format_report(report, "           "));
  if (!report.pass()) {
    std::fputs(verdict.c_str(), stdout);
  } else if (!stage.edge()) {
    say(o, verdict);
  }
  if (!stage.edge() && c.op == Op::kMatmul && !c.empty() && report.checked < int64_t(c.output_count())) {
    char line[512];
    snprintf(line, sizeof line,
             "           (%lld sampled rows of %lld checked against the fp64 reference, every "
             "element checked for being written; --full-check checks all)\n",
             (long long)(report.checked / c.N), (long long)c.M);
    say(o, line);
  }
  for (const std::string& name : modified) {
    std::fputs(stage.line("FAIL: the kernel changed its input " + name + ", which it must only read.\n").c_str(), stdout);
  }
  return report.pass() && before == 0 && after == 0 && modified.empty();
}

// The timed runs, once the result is right.
void time_case(DeviceCase& run, const Launcher& launcher, const Case& c, const Options& o, const DeviceInfo& device,
               Result* result) {
  const int reps = int(o.reps >= 0 ? o.reps : device.cpu_backend ? 1 : kTimedRuns);
  const int warmup = int(o.warmup >= 0 ? o.warmup : device.cpu_backend ? 0 : kWarmupRuns);
  const Timing t = time_on_device([&] { run.enqueue(launcher); }, reps, warmup);
  result->timing = t;
  result->rate = c.rate(t.median);
  char line[512];
  snprintf(line, sizeof line, "  time     %s, %.2f %s%s\n", t.describe().c_str(), result->rate, c.rate_unit(),
           device.cpu_backend ? " (CPU backend: emulation speed, says nothing about a GPU)" : "");
  say(o, line);
}

// Runs the case once, checks it, and times it if it is right and not an edge case; the exit code.
int run_case(const Launcher& launcher, const Options& o, const DeviceInfo& device, const Case& c, const Stage& stage,
             Result* result) {
  if (!fits(c, device)) return kExitCannotRun;

  std::vector<std::vector<float>> inputs;
  try {
    inputs = make_inputs(c, uint64_t(o.seed));
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "out of host memory for the inputs of %s\n", c.describe().c_str());
    return kExitCannotRun;
  }
  DeviceCase run(c, inputs);
  const DeviceCase::Outcome outcome = run.run(launcher);
  if (!outcome.ok()) {
    const bool at_launch = outcome.launch != cudaSuccess;
    std::fputs(stage.line(std::string("FAIL: the ") + (at_launch ? "launch failed" : "kernel failed while running") +
                          ": " + explain_error(at_launch ? outcome.launch : outcome.run) + "\n").c_str(),
               stdout);
    result->check = "fail";
    return kExitWrong;
  }

  const bool pass = check_result(run, launcher, c, inputs, o, stage);
  result->check = pass ? "pass" : "fail";
  if (!pass) return kExitWrong;
  if (!stage.edge() && !o.no_time && !c.empty()) time_case(run, launcher, c, o, device, result);
  return kExitPass;
}

// The edge cases, before the sizes asked for (as llm.c's dev/cuda validates, then times): one
// line when all pass; when one does not, its report, and the sizes asked for are not run (then
// *FAILED is the edge case that failed, which the result file names).
int check_edges(const Launcher& launcher, Op op, const Options& o, const DeviceInfo& device, Result* result, Case* failed) {
  std::vector<Case> cases = edge_cases(op);
  for (Case& c : cases) {
    c.offset = o.offset;
    const int code = run_case(launcher, o, device, c, Stage{"edges", " at " + c.describe()}, result);
    if (code != kExitPass) {
      *failed = c;
      if (code == kExitWrong) std::puts("  check    not run, nor timed: the edges must pass first (--no-edges skips them)");
      return code;
    }
  }
  say(o, "  edges    PASS at " + describe_cases(cases) + "\n");
  return kExitPass;
}

// The index of the step --step names (the last when it names none); exits 2 when it names no
// step of the lab.
size_t pick_step(const LabInfo& info, const std::vector<Step>& steps, const std::string& name) {
  size_t i = steps.size() - 1;
  if (!name.empty()) {
    i = 0;
    while (i < steps.size() && name != std::to_string(i + 1) && (steps[i].suffix.empty() || name != steps[i].suffix)) ++i;
    if (i == steps.size()) {
      std::fprintf(stderr, "lab %s has no step '%s': its steps are %s\n", info.id, name.c_str(), describe_steps(steps).c_str());
      std::exit(kExitCannotRun);
    }
  }
  return i;
}

}  // namespace

int lab_main(const LabInfo& lab, const std::vector<Step>& steps, int argc, char** argv) {
  const Options o = parse_options(lab, steps, argc, argv);
  const size_t step = pick_step(lab, steps, o.step);
  const Launcher& launcher = steps[step].launcher;
  // The step's launcher names it: "matmul_register_1d", printed with "(step 1 of 3)".
  const std::string name = std::string(lab.name) + (steps[step].suffix.empty() ? "" : "_" + steps[step].suffix);
  const std::string of = steps.size() > 1 ? " (step " + std::to_string(step + 1) + " of " + std::to_string(steps.size()) + ")" : "";
  const LabInfo info{lab.id, name.c_str(), lab.op};
  if (!launcher.defined()) {
    // A step not begun: a lab file in steps may leave out the launchers of the steps to come.
    std::fprintf(stderr, "lab %s %s%s: the lab file does not define %s() (harness/launchers.h declares it): this step is "
                 "not done yet\n", info.id, info.name, of.c_str(), info.name);
    return kExitWrong;
  }
  const DeviceInfo device = open_device();
  if (!o.serve_dir.empty()) return serve_cases(launcher, o.serve_dir);
  Case c = default_case(info.op, o, device.cpu_backend);
  c.offset = o.offset;
  char line[512];
  snprintf(line, sizeof line, "lab %s %s%s\n  device   %s\n  problem  %s, seed %lld\n", info.id, info.name, of.c_str(),
           device.describe().c_str(), c.describe().c_str(), (long long)o.seed);
  say(o, line);
  Result result;
  Case checked = c;
  int code = o.no_edges ? kExitPass : check_edges(launcher, info.op, o, device, &result, &checked);
  if (code == kExitPass) code = run_case(launcher, o, device, c, Stage{"check", ""}, &result);
  write_result(o.result_file, info, checked, result, device);
  return code;
}

}  // namespace lab
