#include "grading/course/prairielearn/results.h"

#include <nlohmann/json.hpp>

#include "grading/core/report.h"
#include "grading/course/autograde.h"
#include "tools/text.h"

namespace grade {

using nlohmann::json;

std::string prairielearn_results(const std::string& grader_json, const std::vector<std::string>& notes, std::string* why) {
  json grader;
  if (!read_grader_results(grader_json, &grader, why)) return "";
  json results;
  const std::string output = grader["output"].get<std::string>();
  results["output"] = upload_preamble("PrairieLearn", notes) + output;
  if (grader["tests"].empty()) {
    results["gradable"] = false;
    results["format_errors"] = json::array({tools::trim(output)});
    results["message"] = "Not graded: " + tools::trim(output);
    return results.dump(2) + "\n";
  }
  double points = 0, max_points = 0;
  results["tests"] = json::array();
  for (const json& t : grader["tests"]) {
    const double score = t.value("score", 0.0), max_score = t.value("max_score", 0.0);
    points += score;
    max_points += max_score;
    results["tests"].push_back({{"name", t.value("name", "")},
                                {"points", score},
                                {"max_points", max_score},
                                {"message", t.value("status", "") == "passed" ? "passed" : "failed"},
                                {"output", t.value("output", "")}});
  }
  results["gradable"] = true;
  results["score"] = max_points > 0 ? points / max_points : 0.0;
  results["message"] = "Score: " + points_text(points) + "/" + points_text(max_points) +
                       " (build, correctness, safety and technique; performance is waived without a GPU)";
  return results.dump(2) + "\n";
}

}  // namespace grade
