// make grade's work between its arguments and its reports: builds each lab of the rubric, then
// grades it check by check (build, correctness, safety, technique, performance), labs side by
// side when asked, each lab's lines printed in the rubric's order whatever order they finish in.
#pragma once

#include <string>
#include <vector>

#include "grading/core/report.h"
#include "grading/core/types.h"

namespace grade {

// Builds and grades each lab, JOBS at a time; the results, in the rubric's order.
// BUILD_STAMP: what the builds depend on that make does not see (the grader, the makefiles).
// Throws CannotGrade when the build folder cannot be made ready.
std::vector<LabResult> grade_labs(const Context& ctx, const std::vector<const LabRubric*>& labs, const std::string& build_stamp,
                                  int jobs);

}  // namespace grade
