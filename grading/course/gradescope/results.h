// Gradescope's results.json, made from the grader's own (grading/core/report.h writes it in
// Gradescope's format already: a score, and a test per check with its name, score, max_score,
// status and output). The checks, scores and outputs are the grader's, unchanged; this adds what
// Gradescope reads besides (the autograder specification,
// gradescope-autograders.readthedocs.io/en/latest/specs/): the formats of the outputs, who
// sees the tests and the console and when, the run's time, and the leaderboard's columns.
#pragma once

#include <string>
#include <vector>

#include "common/labs.h"

namespace grade {

// Who sees what, and when (Gradescope's four values: visible, hidden, after_due_date,
// after_published).
struct GradescopeVisibility {
  std::string tests = "visible";   // every test, and the submission's output
  std::string stdout_ = "hidden";  // the console: the grader's own lines, for the instructor
};

bool legal_visibility(const std::string& value);

struct GradescopeRun {
  std::vector<std::string> notes;  // about what was handed in: where each lab file was found, what is missing
  double seconds = 0;              // the whole run, for execution_time
  GradescopeVisibility visibility;
};

// Gradescope's results.json from the grader's results.json at GRADER_JSON, a grading of LABS;
// "" with the reason in *why when that file is not one (missing, not JSON, no score or tests).
// A grader's "could not grade" file (no tests, a score of 0) makes a results.json that says so.
// The leaderboard has the total and each lab's points, and each lab's launcher time where the
// performance check timed it (a GPU; never on Gradescope's machines).
std::string gradescope_results(const std::string& grader_json, const std::vector<lab::LabEntry>& labs, const GradescopeRun& run,
                               std::string* why);

}  // namespace grade
