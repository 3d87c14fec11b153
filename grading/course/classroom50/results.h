// Classroom 50's result.json (its wiki's Autograders page, "The result.json contract": schema
// classroom50/result/v1), made from the grader's own (grading/core/report.h): whole points, a
// test per check with its test-name, passed, score and max-score, and the submission's identity
// from the variables the runner sets (CLASSROOM, ASSIGNMENT, SUBMISSION_TAG, COMMIT_URL,
// RELEASE_URL, REVIEW_URL). The runner stamps the owner and the assignment's type itself.
#pragma once

#include <ctime>
#include <map>
#include <string>

namespace grade {

// The runner's variables, by name (those missing read as "").
using RunnerVariables = std::map<std::string, std::string>;

// Classroom 50's result.json from the grader's results.json at GRADER_JSON, graded at NOW; ""
// with the reason in *why when that file is not one, or when the grader could not grade (a
// results.json without tests): that is an error of the autograder's, not a score of 0.
// Classroom 50 counts whole points: each check's points are rounded to the nearest whole one
// (a check at full marks keeps them all), and the score is their sum.
std::string classroom50_result(const std::string& grader_json, const RunnerVariables& runner, std::time_t now, std::string* why);

}  // namespace grade
