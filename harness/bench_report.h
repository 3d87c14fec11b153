// What `make bench` measured, and the three ways it is shown: the table it prints, a Markdown
// page (performance.md; docs/performance.md with BENCH_OUT=docs) and the SVG chart that page
// shows (performance.svg). Host code without CUDA, so that the tests check all three, and the
// run of a solution's lab program, on a machine without a GPU (tests/harness/test_bench.cpp);
// harness/bench.cpp fills it in on a GPU.
#pragma once

#include <string>
#include <vector>

#include "common/problems.h"

namespace lab {

// One implementation of a problem: a lab's solution, a library, or the copy.
struct BenchRow {
  // kWrong: it ran, and its result failed the check; kFailed: it did not run to the end.
  // Neither is timed: a time of a wrong result compares nothing.
  enum class Status { kTimed, kWrong, kFailed };

  std::string name;       // "01 matmul_naive", "cuBLAS SGEMM (fp32)"
  bool solution = false;  // a lab's solution, rather than a library or the copy
  Status status = Status::kFailed;
  std::string detail;     // why it was not timed
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int runs = 0;
};

// A solution's row: runs its lab program `program` (of lab `lab_name`, "01_matmul_naive") on
// c's sizes with `reps` timed runs, --quiet and --no-edges (the bench times the sizes it names;
// the solutions' edges are the tests' business), and reads the median and the spread from the
// result file it has it write to `result_file`. Its verdict is the program's: exit 1 is a wrong
// result, anything else but 0 a run that did not finish.
BenchRow run_solution(const std::string& program, const std::string& lab_name, const Case& c, int reps,
                      const std::string& result_file);

// One problem and everything timed on it; rows[ceiling] is what the others are compared with.
struct BenchGroup {
  Case problem;
  std::string note;  // said beside the title: "fits in the 50.0 MiB L2"
  std::vector<BenchRow> rows;
  size_t ceiling = 0;

  std::string title() const;  // "matmul M=4096 N=4096 K=4096"
  // The row's speed as a share of the ceiling's: the ceiling's median time over the row's
  // (1.0 is as fast). Negative when either was not timed.
  double share(const BenchRow& row) const;
};

struct BenchReport {
  std::string gpu;      // DeviceInfo::describe()
  std::string driver;   // "580.159.04 (CUDA 13.0 driver API)"
  std::string runtime;  // "13.0"
  std::string date;     // "2026-11-22 14:03 UTC"
  std::string command;  // what reproduces it: "make bench"
  // The GPU's clocks as nvidia-smi gave them before the first run and after the last:
  // "SM 1980 MHz of 1980 MHz max, memory 2619 MHz, 34 C" (a clock that fell shows in the second).
  std::string clocks_before, clocks_after;
  double seconds = 0;  // from the first run to the last
  int reps = 0, warmup = 0;
  std::vector<BenchGroup> groups;
};

// The table printed on stdout: one block per group, one line per row.
std::string format_table(const BenchReport& report);
// performance.md: the conditions, the chart (the SVG file `chart_file`, beside it), the table,
// and what the ceilings are.
std::string format_markdown(const BenchReport& report, const std::string& chart_file);
// performance.svg: per group, one horizontal bar per row, its length the row's share of the
// ceiling; rows that were not timed say so instead.
std::string format_svg(const BenchReport& report);

// The kernel driver's version from the text of /proc/driver/nvidia/version, "" if none.
std::string driver_version(const std::string& proc_text);
// A version as cudaRuntimeGetVersion and cudaDriverGetVersion give it (13000) as "13.0".
std::string cuda_version(int version);

}  // namespace lab
