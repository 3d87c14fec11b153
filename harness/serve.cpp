#include "harness/serve.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <thread>

#include "common/compare.h"
#include "common/device_buffer.h"
#include "common/device_info.h"
#include "common/exit_codes.h"
#include "common/fill.h"
#include "harness/device_case.h"
#include "harness/lost_updates.h"
#include "harness/output_scan.h"
#include "common/protocol.h"
#include "common/rep_check.h"

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

// The timed calls of a case (common/rep_check.h): warm-up calls, then the timed ones, each
// on inputs changed by a seed drawn just before it and on a poisoned output, with the L2
// flushed, timed from the launcher's call to the end of the work it started (wall clock: the
// whole call counts), and sampled at positions drawn after it returned. Stops at the first
// CUDA error, which it returns.
DeviceCase::Outcome timed_calls(DeviceCase& run, const Launcher& launcher, const ServeCase& sc,
                                const std::vector<std::vector<float>>& inputs, CaseResult* result) {
  using Clock = std::chrono::steady_clock;
  std::random_device os;  // seeds the program cannot know before they are drawn
  auto draw = [&] { return (uint64_t(os()) << 32) ^ os(); };
  int l2 = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  DeviceBuffer<unsigned char> flush(std::max<size_t>(2 * size_t(l2), 1 << 20));
  // The output is read where it lies: the timed calls hold the GPU alone.
  OutputScan scan(run.output_count());
  DeviceCase::Outcome outcome;
  for (int i = 0; i < sc.warmup + sc.reps && outcome.ok(); ++i) {
    TimedCall call;
    call.edit_seed = draw();
    const std::vector<Edit> edits = rep_edits(sc.shape, call.edit_seed);
    run.set_inputs(edits);
    run.fill_output(kPoisonByte);
    CUDA_CHECK(cudaMemset(flush.get(), i & 0xFF, flush.bytes()));
    CUDA_CHECK(cudaDeviceSynchronize());
    const auto start = Clock::now();
    run.enqueue(launcher);
    outcome.launch = cudaGetLastError();
    outcome.run = cudaDeviceSynchronize();
    call.ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    if (!outcome.ok()) break;
    std::vector<Edit> restore = edits;
    for (Edit& e : restore) e.value = inputs[e.input][e.index];
    run.set_inputs(restore);
    if (i < sc.warmup) continue;
    call.nonfinite = scan.nonfinite(run.output_on_device());
    call.sample_seed = draw();
    call.samples = scan.at(run.output_on_device(), sample_positions(sc.shape, call.sample_seed, edits));
    result->calls.push_back(call);
  }
  return outcome;
}

// The case's inputs, from the files the grader wrote beside cases.txt.
bool read_inputs(const ServeCase& sc, const std::string& base, std::vector<std::vector<float>>* inputs) {
  const std::vector<size_t> counts = sc.shape.input_counts();
  for (size_t j = 0; j < counts.size(); ++j) {
    inputs->emplace_back();
    if (!read_floats(base + ".in" + std::to_string(j), &inputs->back(), counts[j])) return false;
  }
  return true;
}

// Runs a case as the grader asked: timed calls and then a last one, or a single one.
DeviceCase::Outcome run_calls(DeviceCase& run, const Launcher& launcher, const ServeCase& sc,
                              const std::vector<std::vector<float>>& inputs, CaseResult* result) {
  if (!sc.timed) return run.run(launcher, sc.zero_fill ? 0 : kPoisonByte);
  result->peak_tflops = fp32_peak_tflops();
  result->copy_tbps = copy_tbps();
  DeviceCase::Outcome outcome = timed_calls(run, launcher, sc, inputs, result);
  // And once more on the unchanged inputs, for the full check of the output.
  if (outcome.ok()) outcome = run.run(launcher);
  return outcome;
}

// A timed case set up: says so, and waits for the grader's go (common/protocol.h).
void wait_for_go(const std::string& base) {
  write_text(base + ".ready", "");
  while (!std::ifstream(base + ".go")) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

// A case's work on the device, from its inputs to OUTPUT and RESULT: its outcome.
DeviceCase::Outcome run_on_device(const Launcher& launcher, const ServeCase& sc, const std::string& base,
                                  const std::vector<std::vector<float>>& inputs, CaseResult* result, std::vector<float>* output) {
  DeviceCase run(sc.shape, inputs, sc.timed);
  if (sc.timed) wait_for_go(base);
  const unsigned long long lost_before = lost_updates();
  const DeviceCase::Outcome outcome = run_calls(run, launcher, sc, inputs, result);
  result->lost_updates = int64_t(lost_updates() - lost_before);
  if (result->lost_updates > 0) result->lost_update = last_lost_update();
  result->launch_error = outcome.launch == cudaSuccess ? "" : cudaGetErrorName(outcome.launch);
  result->run_error = outcome.run == cudaSuccess ? "" : cudaGetErrorName(outcome.run);
  if (!outcome.ok()) return outcome;
  *output = run.output();
  const auto [before, after] = run.damaged_guards();
  result->guard_before = int64_t(before);
  result->guard_after = int64_t(after);
  for (const std::string& name : run.modified_inputs(inputs)) result->modified_inputs += name + " ";
  result->host_copies = int64_t(run.host_copies());
  return outcome;
}

// One case, from its inputs to its output and result files; kExitPass to go on to the next.
int serve_case(const Launcher& launcher, const ServeCase& sc, const std::string& base) {
  std::vector<std::vector<float>> inputs;
  if (!read_inputs(sc, base, &inputs)) {
    std::fprintf(stderr, "serve: cannot read the inputs of case %d\n", sc.id);
    return kExitCannotRun;
  }
  CaseResult result;
  std::vector<float> output;
  const DeviceCase::Outcome outcome = run_on_device(launcher, sc, base, inputs, &result, &output);
  if (sc.timed) {
    // Its GPU work over, the context goes too (its teardown beside the next timed calls slowed
    // them), and the grader may let another program's calls go while this one writes.
    cudaDeviceReset();
    write_text(base + ".timed", "");
  }
  if (!outcome.ok()) {
    write_text(base + ".result", format_result(result));
    return kExitWrong;  // a sticky error: nothing else can run in this process
  }
  if (!write_floats(base + ".out", output.data(), output.size()) ||
      !write_text(base + ".result", format_result(result))) {
    std::fprintf(stderr, "serve: cannot write the results of case %d\n", sc.id);
    return kExitCannotRun;
  }
  return kExitPass;
}

}  // namespace

int serve(const Launcher& launcher, const std::string& dir) {
  // The device is open: the grader's clocks start here (common/protocol.h).
  write_text(dir + "/started", "");
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
    // The grader takes each lab's problem from labs.txt; the program knows it from its launcher.
    if (sc.shape.op != launcher.op()) {
      std::fprintf(stderr, "serve: case %d is a %s, but this lab's launcher computes a %s (labs.txt's problem column?)\n",
                   sc.id, op_name(sc.shape.op), op_name(launcher.op()));
      return kExitCannotRun;
    }
    const int code = serve_case(launcher, sc, dir + "/" + std::to_string(sc.id));
    if (code != kExitPass) return code;
  }
  return kExitPass;
}

}  // namespace lab
