// The performance target where this checkout has no solution to time (a students' copy: make
// release): the ceiling of the lab's problem (cuBLAS SGEMM, a copy), measured in this grading run
// by harness/ceilings.cpp's program, over the share of it the solution reached on this GPU model,
// recorded in grading/targets.txt (common/targets.h). And the recording itself: with
// --record-targets (make bench), the grader measures the ceiling beside each solution it times
// and writes the share.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/targets.h"
#include "grading/core/types.h"

namespace grade {

// Reads the targets file at PATH into *TARGETS: a file that is not there holds none. False, with
// "PATH:LINE: what" in *error, when it cannot be read or a line is malformed.
bool load_targets(const std::string& path, std::vector<lab::Target>* targets, std::string* error);

// Builds the ceilings' program (harness/ceilings.cpp, GPU) into the build folder; before any
// student code runs, like the solutions'. A failure is this machine's: CannotGrade.
Program build_ceilings(const Context& ctx);

// One measurement of a ceiling in this run, on this GPU.
struct Ceiling {
  std::string why;        // why there is none ("" when measured)
  std::string name;       // "cuBLAS SGEMM (fp32)", "device-to-device copy"
  double ms = 0;          // its median
  double peak_tflops = 0, copy_tbps = 0;  // what bounds any time on this GPU
};
// Runs the ceilings' program on SHAPE alone, as a solution's timed pass runs.
Ceiling measure_ceiling(const Context& ctx, const Program& ceilings, const lab::Case& shape);

// The target of LAB's part at its performance shape on this run's GPU, and the rule that chose it:
// the one recorded for this GPU model; else, on a GPU model the file has no row for, the row of
// the part and shape with the least share: a GPU the workbook was not measured on is held to what
// the solution reached on every GPU it was (*FALLBACK set). Nothing, with the reason in *why, when
// no GPU model has a row for the part and shape.
std::optional<lab::Target> target_for(const Context& ctx, const LabRubric& lab, bool* fallback, std::string* why);

// Writes the solution's share of the ceiling (CEILING's median over SOLUTION_MS) for LAB's part
// on this run's GPU into the targets file, in place of an older one of the same part, shape and
// GPU; the line to report, or why it could not.
std::string record_target(const Context& ctx, const LabRubric& lab, const Ceiling& ceiling, double solution_ms);

// Today's date, 2026-11-29 (UTC), and the commit of the solutions measured, "-dirty" when
// solutions/ differs from it: what a recorded line says of itself.
std::string today();
std::string solutions_commit();

}  // namespace grade
