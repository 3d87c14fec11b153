// What the tests of make grade-class and of the tools built on its libraries share
// (test_grade_class, test_gradescope, test_prairielearn, test_similarity). mk/ defines GRADE_CLASS_MISSING for
// them where those libraries are missing: their tests are then reported skipped.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#ifndef GRADE_CLASS_MISSING
#include <nlohmann/json.hpp>
#endif

#include "common/subprocess.h"

namespace lab_test {

#ifdef GRADE_CLASS_MISSING
constexpr bool kNoGradeClass = true;
#else
constexpr bool kNoGradeClass = false;
#endif

// Writes TEXT to PATH, making its folders first.
inline void put(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// Runs a course tool (make, a platform's autograder) with ENV added, in CWD ("" for here), for
// as long as a grading of a lab may take.
inline lab::RunResult run_tool(const std::vector<std::string>& argv, const std::vector<std::string>& env = {},
                               const std::string& cwd = "") {
  lab::RunOptions options;
  options.timeout_s = 600;
  options.env = env;
  options.cwd = cwd;
  return lab::run_command(argv, options);
}

#ifndef GRADE_CLASS_MISSING
// The test named NAME in a platform's results (its KEY: "name" for Gradescope and PrairieLearn,
// "test-name" for Classroom 50); fails the test case when there is none.
inline const nlohmann::json& test_named(const nlohmann::json& results, const std::string& name, const char* key = "name") {
  for (const nlohmann::json& t : results["tests"]) {
    if (t[key] == name) return t;
  }
  FAIL("no test '" << name << "' in " << results.dump(2));
  static const nlohmann::json none;
  return none;
}
#endif

}  // namespace lab_test
