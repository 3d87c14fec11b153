// make classroom50 and its autograder (grading/course/classroom50/: autograder.py and
// build/host/classroom50): the autograder folder make classroom50 writes, then autograder.py as
// Classroom 50's runner runs it, in a fake student checkout in build/test/classroom50 (its
// labs/ folder, the runner's variables set), for a correct lab file and a missing one; each
// result.json is checked against Classroom 50's contract (schema classroom50/result/v1: the
// submission's identity, whole points, score and max-score the sums of the tests'). Lab 01 on
// the fast rubric, on the CPU backend.
//
// autograder.py grades with the workbook in its folder's workbook.tar.gz, built afresh on each
// runner (minutes); here WORKBOOK_DIR points it at this checkout, whose files the tarball holds
// (checked apart), and GRADE_BUILD at the grader tests' build folder, so that only the student's
// file is built. Without grade-class's libraries (which build/host/classroom50 links) every test
// here is skipped, and one more says so.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#ifndef GRADE_CLASS_MISSING
#include <archive.h>
#include <archive_entry.h>

#include <nlohmann/json.hpp>

#include "grading/course/classroom50/results.h"
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

// make classroom50 for lab 01 on the fast rubric, into build/test/classroom50/out.
const fs::path& made() {
  static const fs::path out = [] {
    const fs::path dir = fs::absolute("build/test/classroom50");
    fs::remove_all(dir);
    const tools::RunResult r = run_tool({"make", "--no-print-directory", "classroom50", "LAB=01", "RUBRIC=tests/fixtures/rubric-fast.txt",
                                         "CLASSROOM50_OUT=" + (dir / "out").string()});
    INFO(r.output);
    REQUIRE(r.exited(0));
    return dir / "out" / "autograders" / "01_matmul_naive";
  }();
  return out;
}

#ifndef GRADE_CLASS_MISSING
using nlohmann::json;

// The files of the tarball at PATH, by name, with their bytes.
std::map<std::string, std::string> tarball(const std::string& path) {
  std::map<std::string, std::string> entries;
  archive* a = archive_read_new();
  archive_read_support_format_tar(a);
  archive_read_support_filter_gzip(a);
  REQUIRE(archive_read_open_filename(a, path.c_str(), 1 << 16) == ARCHIVE_OK);
  archive_entry* e;
  while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
    if (archive_entry_filetype(e) != AE_IFREG) continue;
    std::string bytes(size_t(archive_entry_size(e)), '\0');
    if (!bytes.empty()) REQUIRE(archive_read_data(a, bytes.data(), bytes.size()) == la_ssize_t(bytes.size()));
    std::string name = archive_entry_pathname(e);
    entries[name.rfind("./", 0) == 0 ? name.substr(2) : name] = bytes;
  }
  archive_read_free(a);
  return entries;
}

struct Graded {
  tools::RunResult run;
  json result;       // discarded when there is none
  std::string body;  // release-body.md
};

// A student checkout whose labs/ holds FILES (path under labs/, bytes), graded by autograder.py
// as Classroom 50's runner runs it: in the checkout, with the runner's variables.
Graded autograde(const std::vector<std::pair<std::string, std::string>>& files) {
  const fs::path student = made().parent_path().parent_path().parent_path() / "student";
  fs::remove_all(student);
  fs::create_directories(student / "labs");
  for (const auto& [path, bytes] : files) lab_test::put(student / "labs" / path, bytes);
  Graded g;
  g.run = run_tool({"python3", (made() / "autograder.py").string()},
                   {"WORKBOOK_DIR=" + fs::current_path().string(), "GRADE_BUILD=" + fs::absolute("build/grade-tests").string(),
                    "SKIP_PACKAGES=1", "CLASSROOM=cuda-fall-2026", "ASSIGNMENT=lab-01", "SUBMISSION_TAG=submit/2026-11-29T10-00-00Z-abc1234",
                    "COMMIT_URL=https://github.com/org/lab-01-alice/commit/abc1234", "RELEASE_URL=https://github.com/org/lab-01-alice/releases/1",
                    "REVIEW_URL="},
                   student.string());
  g.result = json::parse(read_file((student / "result.json").string()), nullptr, false);
  g.body = read_file((student / "release-body.md").string());
  return g;
}

// Classroom 50's contract: its schema, the submission's identity from the runner's variables, a
// UTC time, whole points, and a score and max-score that are the sums of the tests'.
void check_contract(const json& r) {
  CAPTURE(r.dump(2));
  REQUIRE(r.is_object());
  CHECK(r["schema"] == "classroom50/result/v1");
  CHECK(r["classroom"] == "cuda-fall-2026");
  CHECK(r["assignment"] == "lab-01");
  CHECK(r["submission"] == "submit/2026-11-29T10-00-00Z-abc1234");
  CHECK(r["commit"] == "https://github.com/org/lab-01-alice/commit/abc1234");
  CHECK(r["release"] == "https://github.com/org/lab-01-alice/releases/1");
  CHECK(r["review"] == r["commit"]);  // no review URL: the commit's
  REQUIRE(r["datetime"].is_string());
  CHECK(r["datetime"].get<std::string>().size() == 20);  // 2026-11-29T10:00:00Z
  CHECK(r["datetime"].get<std::string>().back() == 'Z');
  REQUIRE(r["score"].is_number_integer());
  REQUIRE(r["max-score"].is_number_integer());
  REQUIRE(r["tests"].is_array());
  long score = 0, max_score = 0;
  for (const json& t : r["tests"]) {
    CHECK(t["test-name"].is_string());
    CHECK(t["passed"].is_boolean());
    REQUIRE(t["score"].is_number_integer());
    REQUIRE(t["max-score"].is_number_integer());
    CHECK(t["score"].get<long>() <= t["max-score"].get<long>());
    score += t["score"].get<long>();
    max_score += t["max-score"].get<long>();
  }
  CHECK(r["score"] == score);
  CHECK(r["max-score"] == max_score);
}

#endif

}  // namespace

TEST_SUITE("classroom50") {

#ifdef GRADE_CLASS_MISSING
TEST_CASE("build/host/classroom50 is not built here: the Debian packages " GRADE_CLASS_MISSING
          " are missing (scripts/install-deps grade-class installs them); its tests are skipped" * doctest::skip()) {}
#else
TEST_CASE("make classroom50 writes an autograder for the lab, with the workbook it grades with and no solutions" *
          doctest::skip(lab_test::kNoSolutions)) {
  const std::string py = read_file((made() / "autograder.py").string());
  CHECK(contains(py, "LAB = \"01_matmul_naive\""));
  CHECK(contains(py, "TIMEOUT = \"540\""));
  CHECK_FALSE(contains(py, "@LAB@"));
  CHECK_FALSE(fs::exists(made().parent_path() / "02_matmul_tiled"));  // LAB=01: one autograder
  const json runtime = json::parse(read_file((made() / "runtime.json").string()), nullptr, false);
  REQUIRE_FALSE(runtime.is_discarded());
  CHECK(runtime["runs-on"] == "ubuntu-latest");
  CHECK(runtime["apt"].size() == 6);
  // The tarball holds what the grader builds and runs, as this checkout has it, the rubric
  // given, and no solutions, tests or documents.
  const auto files = tarball((made() / "workbook.tar.gz").string());
  for (const char* same : {"Makefile", "labs.txt", "grading/core/grade.cpp", "grading/course/classroom50/autograder.cpp",
                           "cpusim/cpucc", "labs/01_matmul_naive/matmul_naive.cu"}) {
    CAPTURE(same);
    REQUIRE(files.count(same) == 1);
    CHECK(files.at(same) == read_file(same));
  }
  CHECK(files.at("grading/rubric.txt") == read_file("tests/fixtures/rubric-fast.txt"));
  for (const auto& [name, bytes] : files) {
    CAPTURE(name);
    for (const char* absent : {"solutions/", "tests/", "docs/"}) CHECK(name.rfind(absent, 0) != 0);
  }
}

// The runner's Python may be older than the "data" filter of tarfile (Debian 12's 3.11.2 is):
// autograder.py unpacks its workbook with every python3 this machine has (PATH's, and the
// system's), and refuses an archive with a name that climbs out, with each.
TEST_CASE("make classroom50 LAB=all writes one autograder for the whole workbook, which grades every lab" *
          doctest::skip(lab_test::kNoSolutions)) {
  const fs::path dir = fs::absolute("build/test/classroom50-all");
  fs::remove_all(dir);
  const tools::RunResult r = run_tool({"make", "--no-print-directory", "classroom50", "LAB=all", "CLASSROOM50_OUT=" + dir.string()});
  CAPTURE(r.output);
  REQUIRE(r.exited(0));
  CHECK(contains(r.output, "1 autograder(s)"));
  std::vector<std::string> folders;
  for (const auto& e : fs::directory_iterator(dir / "autograders")) folders.push_back(e.path().filename().string());
  CHECK(folders == std::vector<std::string>{"workbook"});
  const std::string py = read_file((dir / "autograders" / "workbook" / "autograder.py").string());
  CHECK(contains(py, "LAB = \"\""));  // no --lab: the grader grades every lab
  CHECK(contains(py, "HOST_OPT=-O1"));
  CHECK(fs::exists(dir / "autograders" / "workbook" / "workbook.tar.gz"));
  CHECK(fs::exists(dir / "autograders" / "workbook" / "runtime.json"));
  fs::remove_all(dir);
}

TEST_CASE("autograder.py unpacks its workbook with every Python here, and refuses a name with ..") {
  const fs::path dir = made().parent_path().parent_path().parent_path() / "unpack";
  const fs::path bad = dir / "bad.tar.gz";
  fs::remove_all(dir);
  fs::create_directories(dir / "evil");
  lab_test::put(dir / "evil" / "x", "x");
  REQUIRE(tools::run_command({"tar", "-C", (dir / "evil").string(), "-czf", bad.string(), "--absolute-names", "../evil/x"}).exited(0));
  const std::string unpack = "import sys; sys.path.insert(0, sys.argv[1]); import autograder; autograder.unpack(sys.argv[2], sys.argv[3])";
  for (const std::string python : {"python3", "/usr/bin/python3"}) {
    CAPTURE(python);
    const fs::path into = dir / ("into-" + std::to_string(python.size()));
    fs::create_directories(into);
    tools::RunResult r = tools::run_command({python, "-c", unpack, made().string(), (made() / "workbook.tar.gz").string(), into.string()});
    CHECK_MESSAGE(r.exited(0), r.output);
    CHECK(read_file((into / "labs.txt").string()) == read_file("labs.txt"));
    r = tools::run_command({python, "-c", unpack, made().string(), bad.string(), (dir / "bad").string()});
    CHECK_MESSAGE(!r.exited(0), r.output);
  }
  fs::remove_all(dir);
}

TEST_CASE("a correct lab file scores full marks, in Classroom 50's contract" * doctest::skip(lab_test::kNoCpuSolutions)) {
  const Graded g = autograde({{kLabFile, read_file("solutions/" + kLabFile)}});
  CAPTURE(g.run.output);
  CHECK(g.run.exited(0));
  check_contract(g.result);
  CHECK(g.result["score"] == 8);
  CHECK(g.result["max-score"] == 8);
  CHECK(lab_test::test_named(g.result, "lab 01 matmul_naive: correctness", "test-name")["passed"] == true);
  CHECK(contains(g.body, "Score: 8/8"));
  CHECK(contains(g.body, "performance is waived here"));
}

TEST_CASE("a missing lab file scores 0 and says why" * doctest::skip(lab_test::kNoCpuSolutions)) {
  // A broken file's failing checks are the grader's, tested with every platform's (the partial
  // points of the conversion below); a missing one is what a repository can hand in.
  const Graded missing = autograde({{"02_matmul_tiled/matmul_tiled.cu", "// the wrong lab"}});
  CAPTURE(missing.run.output);
  check_contract(missing.result);
  CHECK(missing.result["score"] == 0);
  CHECK(missing.result["max-score"] == 8);
  CHECK(lab_test::test_named(missing.result, "lab 01 matmul_naive: build", "test-name")["passed"] == false);
  CHECK(contains(missing.body, "no file"));
}

TEST_CASE("what the grader leaves becomes Classroom 50's result: whole points; a grader that could not grade is an error") {
  const fs::path dir = fs::absolute("build/test/classroom50-results");
  fs::remove_all(dir);
  lab_test::put(dir / "partial.json", R"({"score": 5.7, "output": "Score: 5.7/10", "tests": [
      {"name": "lab 02 matmul_tiled: build", "score": 1, "max_score": 1, "status": "passed", "output": ""},
      {"name": "lab 02 matmul_tiled: correctness", "score": 2.7, "max_score": 5, "status": "failed", "output": "lost"},
      {"name": "lab 02 matmul_tiled: technique", "score": 2, "max_score": 4, "status": "failed", "output": "1 of 2 rules"}]})");
  lab_test::put(dir / "none.json", R"({"score": 0, "output": "could not grade this submission: ...", "tests": []})");
  const grade::RunnerVariables runner = {{"CLASSROOM", "c"}, {"ASSIGNMENT", "a"}, {"COMMIT_URL", "u"}};
  std::string why;
  const json partial = json::parse(grade::classroom50_result((dir / "partial.json").string(), runner, 1796165940, &why));
  CAPTURE(partial.dump(2));
  CHECK(partial["datetime"] == "2026-12-01T22:59:00Z");
  CHECK(lab_test::test_named(partial, "lab 02 matmul_tiled: correctness", "test-name")["score"] == 3);  // 2.7, rounded
  CHECK(partial["score"] == 6);
  CHECK(partial["max-score"] == 10);
  CHECK(grade::classroom50_result((dir / "none.json").string(), runner, 0, &why).empty());
  CHECK(contains(why, "could not grade"));
  CHECK(grade::classroom50_result((dir / "missing.json").string(), runner, 0, &why).empty());
}
#endif

TEST_CASE("make classroom50 refuses a time limit it cannot use, or a lab that is not there") {
  for (const char* setting : {"TIMEOUT=5", "TIMEOUT=soon", "LAB=99"}) {
    CAPTURE(setting);
    const tools::RunResult r = run_tool({"make", "--no-print-directory", "classroom50", setting, "CLASSROOM50_OUT=build/test/classroom50-refused"});
    CHECK(r.exited(2));
    CHECK(contains(r.output, "make classroom50: "));
    CHECK_FALSE(fs::exists("build/test/classroom50-refused/autograders"));
  }
}

}
