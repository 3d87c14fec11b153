#include "grading/course/gradescope/results.h"

#include <nlohmann/json.hpp>

#include "grading/course/autograde.h"
#include "grading/course/class/gradebook.h"
#include "tools/text.h"

namespace grade {

namespace {

using nlohmann::json;

// The leaderboard's columns: the same names for every submission, so that Gradescope's table
// lines them up; times only where the grader timed a launcher (it never does without a GPU).
json leaderboard(const std::string& grader_json, const std::vector<lab::LabEntry>& labs) {
  GradebookRow row;
  const bool graded = read_results(grader_json, "", labs, &row);
  json board = json::array({{{"name", "total points"}, {"value", graded ? row.total() : 0}}});
  for (size_t i = 0; i < labs.size(); ++i) {
    board.push_back({{"name", "lab " + labs[i].number + " points"}, {"value", graded ? row.lab_points[i] : 0}});
  }
  for (size_t i = 0; graded && i < labs.size(); ++i) {
    if (row.launcher_ms[i] <= 0) continue;
    board.push_back({{"name", "lab " + labs[i].number + " ms"}, {"value", row.launcher_ms[i]}, {"order", "asc"}});
  }
  return board;
}

}  // namespace

bool legal_visibility(const std::string& value) {
  return value == "visible" || value == "hidden" || value == "after_due_date" || value == "after_published";
}

std::string gradescope_results(const std::string& grader_json, const std::vector<lab::LabEntry>& labs, const GradescopeRun& run,
                               std::string* why) {
  json results;
  if (!read_grader_results(grader_json, &results, why)) return "";
  results["output"] = upload_preamble("Gradescope", run.notes) + results["output"].get<std::string>();
  results["output_format"] = "text";
  results["test_output_format"] = "text";
  results["test_name_format"] = "text";
  // What the student must see before the due date whatever the setting, as Gradescope's own
  // example has it: a submission that was not graded (a wrong upload), and whether each lab built.
  results["visibility"] = results["tests"].empty() ? "visible" : run.visibility.tests;
  results["stdout_visibility"] = run.visibility.stdout_;
  results["execution_time"] = int(run.seconds + 0.5);
  for (json& test : results["tests"]) {
    const bool build = test.contains("name") && test["name"].is_string() && tools::contains(test["name"].get<std::string>(), ": build");
    test["visibility"] = build ? "visible" : run.visibility.tests;
    test["output_format"] = "text";
  }
  results["leaderboard"] = leaderboard(grader_json, labs);
  return results.dump(2) + "\n";
}

}  // namespace grade
