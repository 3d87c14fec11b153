// PrairieLearn's results.json for an externally graded question, made from the grader's own
// (grading/core/report.h): PrairieLearn reads a score from 0 to 1, a message and an output,
// and a test per check with its points and max_points (PrairieLearn's docs/externalGrading.md,
// "Grading results"). The checks, points and outputs are the grader's, unchanged.
#pragma once

#include <string>
#include <vector>

namespace grade {

// PrairieLearn's results.json from the grader's results.json at GRADER_JSON; NOTES say where
// each lab file was found. A grader's "could not grade" file (no tests) makes a results.json
// that is not gradable, so that a wrong upload, or an autograder that failed, costs the student
// no attempt, with the reason in its format_errors. "" with the reason in *why when GRADER_JSON
// is not a grader's results.json.
std::string prairielearn_results(const std::string& grader_json, const std::vector<std::string>& notes, std::string* why);

}  // namespace grade
