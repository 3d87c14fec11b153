// How the grader talks to a lab program that runs student code (`lab_program --serve DIR`).
// The grader writes the cases and their inputs into DIR; the lab program runs the student's
// launcher on each and writes back what came out. It never sees the seed or the reference:
// the verdict is computed by the grader, a process that runs no student code.
//
//   DIR/cases.txt     one case per line:
//                     "<id> check|time <op> <d0> <d1> <d2> <reps> <warmup> <offset> poison|zero"
//                     (zero: the output starts as zeros instead of NaN poison, to diagnose a
//                     kernel that reads its output before writing it)
//   DIR/<id>.in<j>    input j of case id, raw float32
//   DIR/<id>.out      written back: the output, raw float32
//   DIR/<id>.result   written back: "key value" lines (see CaseResult)
//   DIR/started       written first, once the program's device is open: on a GPU the grader
//                     does not count the seconds before it (a CUDA context's creation) against
//                     the shapes' limits
//   DIR/<id>.ready    a timed case: written once its inputs are on the device; the program then
//   DIR/<id>.go       waits for the grader to write this (once it has the GPU alone), and
//   DIR/<id>.timed    writes this when its timed calls and last run are over and its device
//                     let go (the next program's calls may go while it writes its output):
//                     grading/core/turns.h's rounds
//
// Below them, the result file of a plain run (`lab_program --result FILE`), which `make run`
// and `make bench` read.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/problems.h"

namespace lab {

struct ServeCase {
  int id = 0;
  bool timed = false;  // time it (reps after warmup) as well as run it once
  Case shape;
  int reps = 0, warmup = 0;
  bool zero_fill = false;  // the output starts as 0.0f, not as the NaN poison
};

// One timed call (common/rep_check.h): its wall-clock time, the seeds drawn for it, how many
// output elements were not finite, and the sampled values.
constexpr size_t kMaxTimedCalls = 1000;  // a result naming more is cut there
struct TimedCall {
  double ms = 0;
  uint64_t edit_seed = 0, sample_seed = 0;
  int64_t nonfinite = 0;
  std::vector<float> samples;
};

// What the lab program reports for one case. Missing fields keep their defaults, so a
// result cut short by a crash reads as "did not finish".
struct CaseResult {
  bool finished = false;         // the program got to the end of the case
  std::string launch_error;      // cudaGetLastError after the launcher ("" when none)
  std::string run_error;         // cudaDeviceSynchronize after it
  int64_t guard_before = 0;      // canaries overwritten before the output
  int64_t guard_after = 0;       // and after it
  std::string modified_inputs;   // names of inputs the kernel wrote to, space-separated
  int64_t host_copies = 0;       // copies between host and device the launcher made (host_copies.h)
  int64_t lost_updates = 0;      // updates the kernels lost, on the CPU backend (harness/lost_updates.h)
  std::string lost_update;       // the first of them, in a sentence
  // Timed cases: every timed call, and what bounds a time on this device: the FP32 peak
  // (SMs, FP32 lanes per SM and clock) and a device-to-device copy's rate (read + write).
  std::vector<TimedCall> calls;
  double peak_tflops = 0, copy_tbps = 0;
};

std::string format_case_line(const ServeCase& c);
bool parse_case_line(const std::string& line, ServeCase* c);
std::string format_result(const CaseResult& r);
CaseResult parse_result(const std::string& text);

// What a CUDA error, named as cudaGetErrorName names it, usually means in these labs.
std::string error_hint(const std::string& error_name);

// The file a lab program writes with `--result FILE` (harness/lab_main.cpp), as its "key value"
// lines: lab, name, op, dims, check (pass, fail or error), and for a timed run median_ms,
// min_ms, max_ms, runs, rate and unit. `make run`'s comparison (harness/ceilings.cpp) and
// `make bench` read it; a missing file reads as no keys.
using ResultFields = std::map<std::string, std::string>;
ResultFields read_result_file(const std::string& path);
// "key value" lines, split at the first space (a value may be empty): the result file's and the
// serve protocol's format.
ResultFields parse_fields(const std::string& text);

// Raw float32 files.
bool write_floats(const std::string& path, const float* data, size_t count);
bool read_floats(const std::string& path, std::vector<float>* data, size_t count);

}  // namespace lab
