#include "grading/course/gradescope/results.h"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/text.h"
#include "grading/course/class/gradebook.h"

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

// What the student reads first: what was graded, and what the CPU backend leaves out.
std::string preamble(const GradescopeRun& run) {
  std::string text =
      "Graded on the CPU backend (Gradescope's machines have no GPU): build, correctness, safety and technique count; "
      "performance is waived here (0 points of 0). `make grade` on a GPU machine times your kernels.\n";
  for (const std::string& note : run.notes) text += "- " + note + "\n";
  return text + "\n";
}

}  // namespace

bool legal_visibility(const std::string& value) {
  return value == "visible" || value == "hidden" || value == "after_due_date" || value == "after_published";
}

std::string gradescope_results(const std::string& grader_json, const std::vector<lab::LabEntry>& labs, const GradescopeRun& run,
                               std::string* why) {
  std::ifstream in(grader_json, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  json results = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!in || results.is_discarded()) return *why = "no results.json from the grader (" + grader_json + ")", "";
  if (!results.is_object() || !results.contains("score") || !results["score"].is_number() || !results.contains("tests") ||
      !results["tests"].is_array() || !results.contains("output") || !results["output"].is_string()) {
    return *why = "the grader's results.json lacks its score, tests or output", "";
  }
  results["output"] = preamble(run) + results["output"].get<std::string>();
  results["output_format"] = "text";
  results["test_output_format"] = "text";
  results["test_name_format"] = "text";
  // What the student must see before the due date whatever the setting, as Gradescope's own
  // example has it: a submission that was not graded (a wrong upload), and whether each lab built.
  results["visibility"] = results["tests"].empty() ? "visible" : run.visibility.tests;
  results["stdout_visibility"] = run.visibility.stdout_;
  results["execution_time"] = int(run.seconds + 0.5);
  for (json& test : results["tests"]) {
    const bool build = test.contains("name") && test["name"].is_string() && text::contains(test["name"].get<std::string>(), ": build");
    test["visibility"] = build ? "visible" : run.visibility.tests;
    test["output_format"] = "text";
  }
  results["leaderboard"] = leaderboard(grader_json, labs);
  return results.dump(2) + "\n";
}

}  // namespace grade
