#include "grading/course/classroom50/results.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "grading/course/autograde.h"

namespace grade {

using nlohmann::json;

std::string classroom50_result(const std::string& grader_json, const RunnerVariables& runner, std::time_t now, std::string* why) {
  json grader;
  if (!read_grader_results(grader_json, &grader, why)) return "";
  if (grader["tests"].empty()) return *why = grader["output"].get<std::string>(), "";
  auto var = [&](const char* name) {
    const auto it = runner.find(name);
    return it == runner.end() ? std::string() : it->second;
  };
  char when[32];
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  json result = {{"schema", "classroom50/result/v1"},
                 {"classroom", var("CLASSROOM")},
                 {"assignment", var("ASSIGNMENT")},
                 {"submission", var("SUBMISSION_TAG")},
                 {"commit", var("COMMIT_URL")},
                 {"release", var("RELEASE_URL")},
                 {"review", var("REVIEW_URL").empty() ? var("COMMIT_URL") : var("REVIEW_URL")},
                 {"datetime", when}};
  long score = 0, max_score = 0;
  json tests = json::array();
  for (const json& t : grader["tests"]) {
    const long points = std::lround(t.value("score", 0.0)), max_points = std::lround(t.value("max_score", 0.0));
    score += points;
    max_score += max_points;
    tests.push_back({{"test-name", t.value("name", "")},
                     {"passed", t.value("status", "") == "passed"},
                     {"score", points},
                     {"max-score", max_points}});
  }
  result["score"] = score;
  result["max-score"] = max_score;
  result["tests"] = tests;
  return result.dump(2) + "\n";
}

}  // namespace grade
