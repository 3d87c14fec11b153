// The solution's measured times, kept in the build folder for the gradings after this one (a
// rerun, a class's other students), so that each does not measure them again.
//
// On the CPU backend the solution's run of the correctness shapes costs seconds a lab (lab 02's
// shapes, 2,100,000 rows among them, about 16 s: docs/results/grade-rerun-kept-cpu.log) and
// tells the same for any seed: how long each shape takes it on this machine. On a GPU the
// solution's runs also take the GPU from every other grading sharing it (grading/core/turns.h):
// the correctness runs that set the time limits, and the timed run of the performance shape, the
// target. A GPU's time holds for one class's run only (its clocks and neighbours change from day
// to day), so there a record is kept only under the token that make grade-class gives its
// gradings (--class-run).
//
// A record is named after the solution's program, its step, what was measured, the lab's
// shapes, the machine, the cores it may use and, on a GPU, the GPU and the token. Only where
// namespaces keep the build folder read-only to student code and student code runs as a user of
// its own (a root grader): elsewhere a student's program could write the times the next grading
// reads. A measurement that failed is not kept.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "grading/core/types.h"

namespace grade {

// Where the record of WHAT ("correctness, alternate", "performance") for LAB's SOLUTION is kept
// in this run's build folder; "" where none may be kept.
std::string kept_times_path(const Context& ctx, const LabRubric& lab, const Program& solution, const std::string& what);

// The N numbers kept at PATH after its title line, each finite; nothing when PATH holds no
// such record (none yet, or cut short).
std::optional<std::vector<double>> read_kept_times(const std::string& path, size_t n);

// Keeps NUMBERS at PATH under TITLE (what they are, for a reader of the folder). A grading that
// cannot write it measures again next time.
void keep_times(const std::string& path, const std::string& title, const std::vector<double>& numbers);

}  // namespace grade
