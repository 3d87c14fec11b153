// make prairielearn and its autograder (grading/course/prairielearn/: run_autograder and
// build/host/prairielearn): the image's folder and the questions make prairielearn writes, then
// run_autograder as PrairieLearn runs it in the image, against a fake /grade in
// build/test/prairielearn, for a correct upload, a broken one and a wrong one; each
// results.json is checked against PrairieLearn's format (docs/externalGrading.md: a score from
// 0 to 1, tests with points and max_points, gradable false with format_errors for a submission
// that cannot be graded). Lab 01 on the fast rubric, on the CPU backend.
//
// The image itself is not built (no Docker here): its Dockerfile runs
// grading/course/setup-image.sh, which the Gradescope test runs for real. Here the question's
// entrypoint runs from this checkout, with the grader tests' build folder as the grader's (one
// build folder serves one source tree); that the image's workbook holds the same files is
// checked apart. Without grade-class's
// libraries (which build/host/prairielearn links) every test here is skipped, and one more says so.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#ifndef GRADE_CLASS_MISSING
#include <nlohmann/json.hpp>

#include "grading/course/prairielearn/results.h"
#endif

#include "tests/grading/grade_class_tests.h"
#include "tests/lab_programs.h"
#include "tools/subprocess.h"

namespace {

namespace fs = std::filesystem;
using lab_test::contains;
using lab_test::read_file;
using lab_test::run_tool;

const std::string kLabFile = "01_matmul_naive/matmul_naive.cu";
const std::string kImage = "example/cuda-workbook-grader:test";

// make prairielearn for lab 01 on the fast rubric, into build/test/prairielearn/out.
const fs::path& made() {
  static const fs::path out = [] {
    const fs::path dir = fs::absolute("build/test/prairielearn");
    fs::remove_all(dir);
    const tools::RunResult r = run_tool({"make", "--no-print-directory", "prairielearn", "LAB=01", "IMAGE=" + kImage,
                                  "RUBRIC=tests/fixtures/rubric-fast.txt", "PRAIRIELEARN_OUT=" + (dir / "out").string()});
    INFO(r.output);
    REQUIRE(r.exited(0));
    return dir / "out";
  }();
  return out;
}

#ifndef GRADE_CLASS_MISSING
using nlohmann::json;

// Hands in FILES (path under student/, bytes) and runs the question's entrypoint as PrairieLearn
// does; its results.json, checked against PrairieLearn's format.
json autograde(const std::vector<std::pair<std::string, std::string>>& files) {
  const json info = json::parse(read_file((made() / "questions" / "cuda_workbook_01_matmul_naive" / "info.json").string()));
  const fs::path root = made().parent_path() / "grade";
  fs::remove_all(root);
  for (const auto& [path, bytes] : files) lab_test::put(root / "student" / path, bytes);
  // The entrypoint's path in the image is /workbook/...: here, this checkout, whose files the
  // image's are (the first test case checks), so that the grader's build folder serves one tree.
  std::vector<std::string> argv = info["externalGradingOptions"]["entrypoint"];
  REQUIRE(argv[0].rfind("/workbook/", 0) == 0);
  argv[0] = fs::absolute(argv[0].substr(std::string("/workbook/").size())).string();
  std::vector<std::string> env = {"PRAIRIELEARN_ROOT=" + root.string(), "GRADE_BUILD=" + fs::absolute("build/grade-tests").string(),
                                  "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"};
  for (const auto& [name, value] : info["externalGradingOptions"]["environment"].items()) env.push_back(name + "=" + value.get<std::string>());
  const tools::RunResult r = run_tool(argv, env);
  INFO(r.output);
  CHECK(r.exited(0));
  const json results = json::parse(read_file((root / "results" / "results.json").string()), nullptr, false);
  REQUIRE_FALSE(results.is_discarded());
  return results;
}

// PrairieLearn's format: a gradable result has a score in [0, 1] equal to its tests' points over
// their max_points; one that is not gradable says why in format_errors.
void check_format(const json& r) {
  CAPTURE(r.dump(2));
  REQUIRE(r.is_object());
  REQUIRE(r["gradable"].is_boolean());
  CHECK(r["output"].is_string());
  CHECK(r["message"].is_string());
  if (!r["gradable"].get<bool>()) {
    REQUIRE(r["format_errors"].is_array());
    CHECK_FALSE(r["format_errors"].empty());
    return;
  }
  REQUIRE(r["score"].is_number());
  REQUIRE(r["tests"].is_array());
  double points = 0, max_points = 0;
  for (const json& t : r["tests"]) {
    CHECK(t["name"].is_string());
    REQUIRE(t["points"].is_number());
    REQUIRE(t["max_points"].is_number());
    CHECK(t["points"].get<double>() >= 0);
    CHECK(t["points"].get<double>() <= t["max_points"].get<double>());
    CHECK(t["output"].is_string());
    points += t["points"].get<double>();
    max_points += t["max_points"].get<double>();
  }
  CHECK(r["score"].get<double>() >= 0);
  CHECK(r["score"].get<double>() <= 1);
  CHECK(std::fabs(r["score"].get<double>() - points / max_points) < 1e-9);
}

#endif

}  // namespace

TEST_SUITE("prairielearn") {

#ifdef GRADE_CLASS_MISSING
TEST_CASE("build/host/prairielearn is not built here: the Debian packages " GRADE_CLASS_MISSING
          " are missing (scripts/install-deps grade-class installs them); its tests are skipped" * doctest::skip()) {}
#else
TEST_CASE("make prairielearn writes the image's folder without solutions, and a question that grades in it" *
          doctest::skip(lab_test::kNoSolutions)) {
  const fs::path q = made() / "questions" / "cuda_workbook_01_matmul_naive";
  CHECK_FALSE(fs::exists(made() / "questions" / "cuda_workbook_02_matmul_tiled"));  // LAB=01: one question
  const json info = json::parse(read_file((q / "info.json").string()), nullptr, false);
  REQUIRE_FALSE(info.is_discarded());
  CAPTURE(info.dump(2));
  CHECK(std::regex_match(info["uuid"].get<std::string>(), std::regex("[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")));
  CHECK(info["type"] == "v3");
  CHECK(info["gradingMethod"] == "External");
  const json& options = info["externalGradingOptions"];
  CHECK(options["enabled"] == true);
  CHECK(options["image"] == kImage);
  CHECK(options["timeout"].get<int>() <= 600);  // PrairieLearn's most
  CHECK(std::stoi(options["environment"]["TIMEOUT"].get<std::string>()) < options["timeout"].get<int>());
  CHECK(options["entrypoint"][0] == "/workbook/grading/course/prairielearn/run_autograder");
  for (const char* same : {"grading/course/prairielearn/run_autograder", "grading/course/setup-image.sh", "labs.txt", "Makefile",
                           "labs/01_matmul_naive/matmul_naive.cu", "grading/core/grade.cpp"}) {
    CAPTURE(same);
    CHECK(read_file((made() / "image" / "workbook" / same).string()) == read_file(same));
  }
  // The upload the question asks for is the lab file the grader looks for.
  CHECK(contains(read_file((q / "question.html").string()), "<pl-file-upload file-names=\"matmul_naive.cu\">"));
  // The same UUID at each make: PrairieLearn keeps a question's history by it.
  const json again = json::parse(read_file((q / "info.json").string()));
  CHECK(again["uuid"] == info["uuid"]);
  // The image: the workbook without solutions, tests or documents, the rubric given, and a
  // Dockerfile whose setup builds the program the entrypoint runs.
  const std::string dockerfile = read_file((made() / "image" / "Dockerfile").string());
  CHECK(contains(dockerfile, "COPY workbook /workbook"));
  CHECK(contains(dockerfile, "RUN grading/course/setup-image.sh build/host/prairielearn"));
  for (const char* absent : {"solutions", "tests", "docs"}) CHECK_FALSE(fs::exists(made() / "image" / "workbook" / absent));
  CHECK(read_file((made() / "image" / "workbook" / "grading/rubric.txt").string()) == read_file("tests/fixtures/rubric-fast.txt"));
}

TEST_CASE("a correct lab file gets a score of 1, in PrairieLearn's format" * doctest::skip(lab_test::kNoCpuSolutions)) {
  const json r = autograde({{"matmul_naive.cu", read_file("solutions/" + kLabFile)}});
  check_format(r);
  CHECK(r["gradable"] == true);
  CHECK(r["score"] == 1.0);
  CHECK(lab_test::test_named(r, "lab 01 matmul_naive: correctness")["points"] == 4);
  CHECK(lab_test::test_named(r, "lab 01 matmul_naive: performance")["max_points"] == 0);  // waived without a GPU
  CHECK(contains(r["message"].get<std::string>(), "Score: 8/8"));
  CHECK(contains(r["output"].get<std::string>(), "matmul_naive.cu graded as 01_matmul_naive/matmul_naive.cu"));
}

TEST_CASE("a broken lab file scores below 1 and says why" * doctest::skip(lab_test::kNoCpuSolutions)) {
  const json r = autograde({{"matmul_naive.cu", read_file("build/corpus/no_guard_01/" + kLabFile)}});
  check_format(r);
  CHECK(r["gradable"] == true);
  CHECK(r["score"].get<double>() < 1);
  const json& correctness = lab_test::test_named(r, "lab 01 matmul_naive: correctness");
  CHECK(correctness["points"].get<double>() < 4);
  CHECK(correctness["message"] == "failed");
  CHECK(contains(correctness["output"].get<std::string>(), "wrote outside the output"));
}

TEST_CASE("a wrong upload is not gradable, so it costs no attempt, and says what to upload") {
  const json r = autograde({{"notes.txt", "my lab is elsewhere"}});
  check_format(r);
  CHECK(r["gradable"] == false);
  CHECK(contains(r["format_errors"][0].get<std::string>(), "Upload the lab files themselves (matmul_naive.cu, ...)"));
}

TEST_CASE("what the grader leaves becomes PrairieLearn's results: partial points, a grader that could not grade") {
  const fs::path dir = fs::absolute("build/test/prairielearn-results");
  fs::remove_all(dir);
  lab_test::put(dir / "partial.json", R"({"score": 3.5, "output": "Score: 3.5/10", "tests": [
      {"name": "lab 02 matmul_tiled: build", "score": 1, "max_score": 1, "status": "passed", "output": ""},
      {"name": "lab 02 matmul_tiled: correctness", "score": 2.5, "max_score": 5, "status": "failed", "output": "lost"},
      {"name": "lab 02 matmul_tiled: technique", "score": 0, "max_score": 4, "status": "failed", "output": "no reuse"}]})");
  lab_test::put(dir / "none.json", R"({"score": 0, "output": "could not grade this submission: no lab file", "tests": []})");
  lab_test::put(dir / "broken.json", "{not json");
  std::string why;
  const json partial = json::parse(grade::prairielearn_results((dir / "partial.json").string(), {"a note"}, &why));
  check_format(partial);
  CHECK(partial["score"] == 0.35);
  CHECK(lab_test::test_named(partial, "lab 02 matmul_tiled: correctness")["points"] == 2.5);
  CHECK(contains(partial["output"].get<std::string>(), "- a note\n"));
  const json none = json::parse(grade::prairielearn_results((dir / "none.json").string(), {}, &why));
  check_format(none);
  CHECK(none["gradable"] == false);
  CHECK(contains(none["format_errors"][0].get<std::string>(), "could not grade this submission"));
  CHECK(grade::prairielearn_results((dir / "broken.json").string(), {}, &why).empty());
  CHECK(contains(why, "no results.json from the grader"));
}
#endif

TEST_CASE("make prairielearn refuses a setting PrairieLearn cannot take, or a lab that is not there") {
  for (const std::vector<std::string>& settings : std::vector<std::vector<std::string>>{
           {"LAB=01"}, {"IMAGE=Not An Image"}, {"IMAGE=a/b", "TIMEOUT=600"}, {"IMAGE=a/b", "LAB=99"}}) {
    CAPTURE(settings.front());
    std::vector<std::string> argv = {"make", "--no-print-directory", "prairielearn", "PRAIRIELEARN_OUT=build/test/prairielearn-refused"};
    argv.insert(argv.end(), settings.begin(), settings.end());
    const tools::RunResult r = run_tool(argv);
    CHECK(r.exited(2));
    CHECK(contains(r.output, "make prairielearn: "));
    CHECK_FALSE(fs::exists("build/test/prairielearn-refused/questions"));
  }
}

}
