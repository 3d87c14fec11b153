// --trace-runs FILE: a line for each lab program run, saying how long it waited for its turn at
// the GPU and how long it ran, for the question of where a grading's time goes (docs/instructor/
// grade-class.md measures a class's run with it). Lines from several graders may share one file:
// each is appended whole, and its start is on the machine's clock.
//
// A line, its fields split by tabs: the start of the wait (seconds since 1970), the wait, the
// run (seconds), its place at the GPU ("alone", "shared"), the program (its file's name, the step
// of a lab in steps, "solution" for the solution's), the tool it ran under ("-" for none), its
// case folder.
#pragma once

#include <string>
#include <vector>

#include "grading/core/types.h"

namespace grade {

// Appends a line for a run of PROGRAM with ARGS under WRAPPER to ctx.trace_runs, if given.
void trace_run(const Context& ctx, const Program& program, const std::vector<std::string>& args,
               const std::vector<std::string>& wrapper, bool alone, double start, double waited, double ran);

// Seconds since 1970 now, the first field of a line.
double trace_clock();

}  // namespace grade
