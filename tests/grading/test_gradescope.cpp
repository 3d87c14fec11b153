// make gradescope and its autograder (grading/course/gradescope/: setup.sh, run_autograder and
// build/host/gradescope), against a fake /autograder in build/test/gradescope: the zip's files
// (no solution in them, by path or by content), then setup.sh and run_autograder as Gradescope
// runs them, for a correct submission handed in as a loose file, a broken one in a labs/ folder,
// a wrong upload, and a grader that cannot grade; each results.json is checked against
// Gradescope's format (the autograder specification: required fields, legal values, the
// scores adding up). Lab 01 on the fast rubric, on the CPU backend.
//
// Gradescope builds its image from the zip from scratch (minutes: the CPU backend's runtime and
// every lab's harness in four builds). Here setup.sh runs in a copy of the zip's folder (its
// files keep their times) with this checkout's build/host linked in and the grader tests' build
// folder (build/grade-tests) as the grader's: its make and its warm-up grading run for real and
// find everything built, so a file the zip lacks still fails them. Packages are not installed
// (GRADESCOPE_SKIP_PACKAGES): this machine has them. Without grade-class's libraries (which
// build/host/gradescope links) every test here is skipped, and one more names what is missing.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#ifndef GRADE_CLASS_MISSING
#include <archive.h>
#include <archive_entry.h>

#include <nlohmann/json.hpp>
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

// make gradescope packs with zip (scripts/install-deps gradescope; CI's .ci/run installs it).
const bool kNoZip = !tools::run_command({"sh", "-c", "command -v zip"}).exited(0);

// What Gradescope sets around setup.sh and run_autograder, here: the fake root, the grader
// tests' build folder, no packages installed; and no CUDA toolkit on the PATH, which the CPU
// backend does without.
std::vector<std::string> env_for(const fs::path& root) {
  return {"AUTOGRADER_ROOT=" + root.string(), "GRADESCOPE_SKIP_PACKAGES=1",
          "GRADESCOPE_GRADE_BUILD=" + fs::absolute("build/grade-tests").string(),
          "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "CUDA_HOME=/nonexistent"};
}

// make gradescope for lab 01 on the fast rubric, into build/test/gradescope/out.
const fs::path& made() {
  static const fs::path out = [] {
    const fs::path dir = fs::absolute("build/test/gradescope");
    fs::remove_all(dir);
    const tools::RunResult r = run_tool({"make", "--no-print-directory", "gradescope", "LAB=01", "RUBRIC=tests/fixtures/rubric-fast.txt",
                                  "GRADESCOPE_OUT=" + (dir / "out").string()});
    INFO(r.output);
    REQUIRE(r.exited(0));
    return dir / "out";
  }();
  return out;
}

// The fake /autograder: the zip's folder copied into source/ (times kept), this checkout's
// build/host linked in, and setup.sh run once. What setup.sh printed, in *setup_output.
const fs::path& autograder_root(std::string* setup_output = nullptr) {
  static std::string output;
  static const fs::path root = [] {
    const fs::path r = made().parent_path() / "root";
    fs::create_directories(r / "source" / "build");
    REQUIRE(run_tool({"sh", "-c", "tar -C \"$1\" -cf - . | tar -C \"$2\" -xf -", "sh", (made() / "autograder").string(),
                 (r / "source").string()}).exited(0));
    fs::create_directory_symlink(fs::absolute("build/host"), r / "source" / "build" / "host");
    const tools::RunResult setup = run_tool({"bash", (r / "source" / "setup.sh").string()}, env_for(r));
    output = setup.output;
    INFO(setup.output);
    REQUIRE(setup.exited(0));
    fs::copy_file(r / "source" / "run_autograder", r / "run_autograder");  // as Gradescope does
    return r;
  }();
  if (setup_output != nullptr) *setup_output = output;
  return root;
}

#ifndef GRADE_CLASS_MISSING
using nlohmann::json;

// Hands in FILES (path under submission/, bytes) and runs run_autograder as Gradescope does (in
// the root); its results.json, checked against Gradescope's format.
json autograde(const std::vector<std::pair<std::string, std::string>>& files) {
  const fs::path& root = autograder_root();
  fs::remove_all(root / "submission");
  fs::remove_all(root / "results");
  fs::create_directories(root / "submission");
  for (const auto& [path, bytes] : files) {
    fs::create_directories((root / "submission" / path).parent_path());
    std::ofstream(root / "submission" / path, std::ios::binary) << bytes;
  }
  const tools::RunResult r = run_tool({(root / "run_autograder").string()}, env_for(root), root.string());
  INFO(r.output);
  CHECK(r.exited(0));
  const json results = json::parse(read_file((root / "results" / "results.json").string()), nullptr, false);
  REQUIRE_FALSE(results.is_discarded());
  return results;
}

bool legal_visibility(const json& v) {
  return v.is_string() && (v == "visible" || v == "hidden" || v == "after_due_date" || v == "after_published");
}
bool legal_format(const json& v) {
  return v.is_string() && (v == "text" || v == "html" || v == "simple_format" || v == "md" || v == "ansi");
}

// Gradescope's format: every field it reads has its type and a legal value, each test's score
// lies in [0, max_score], the score is the tests' sum and the maximum MAX.
void check_format(const json& r, double max) {
  CAPTURE(r.dump(2));
  REQUIRE(r.is_object());
  REQUIRE(r.contains("score"));
  CHECK(r["score"].is_number());
  CHECK(r["output"].is_string());
  CHECK(legal_format(r["output_format"]));
  CHECK(legal_format(r["test_output_format"]));
  CHECK(legal_format(r["test_name_format"]));
  CHECK(legal_visibility(r["visibility"]));
  CHECK(legal_visibility(r["stdout_visibility"]));
  CHECK(r["execution_time"].is_number_integer());
  CHECK(r["execution_time"].get<int>() >= 0);
  REQUIRE(r["tests"].is_array());
  double score = 0, max_score = 0;
  for (const json& t : r["tests"]) {
    CHECK(t["name"].is_string());
    CHECK_FALSE(t["name"].get<std::string>().empty());
    REQUIRE(t["score"].is_number());
    REQUIRE(t["max_score"].is_number());
    CHECK(t["score"].get<double>() >= 0);
    CHECK(t["score"].get<double>() <= t["max_score"].get<double>());
    CHECK(t["output"].is_string());
    CHECK(legal_format(t["output_format"]));
    CHECK(legal_visibility(t["visibility"]));
    CHECK((t["status"] == "passed" || t["status"] == "failed"));
    score += t["score"].get<double>();
    max_score += t["max_score"].get<double>();
  }
  CHECK(std::fabs(score - r["score"].get<double>()) < 1e-9);
  if (!r["tests"].empty()) CHECK(max_score == max);
  REQUIRE(r["leaderboard"].is_array());
  for (const json& column : r["leaderboard"]) {
    CHECK(column["name"].is_string());
    CHECK((column["value"].is_number() || column["value"].is_string()));
    if (column.contains("order")) CHECK((column["order"] == "asc" || column["order"] == "desc"));
  }
}

// Each entry of the zip at PATH: its name and bytes, and the Unix mode of each.
std::map<std::string, std::string> zip_entries(const std::string& path, std::map<std::string, int>* modes) {
  std::map<std::string, std::string> entries;
  archive* a = archive_read_new();
  archive_read_support_format_zip(a);
  REQUIRE(archive_read_open_filename(a, path.c_str(), 1 << 16) == ARCHIVE_OK);
  archive_entry* e;
  while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
    if (archive_entry_filetype(e) != AE_IFREG) continue;
    std::string bytes(size_t(archive_entry_size(e)), '\0');
    if (!bytes.empty()) REQUIRE(archive_read_data(a, bytes.data(), bytes.size()) == la_ssize_t(bytes.size()));
    std::string name = archive_entry_pathname(e);
    if (name.rfind("./", 0) == 0) name = name.substr(2);
    entries[name] = bytes;
    (*modes)[name] = int(archive_entry_perm(e));
  }
  archive_read_free(a);
  return entries;
}

// The lines of solution code in FILE: inside its @solution blocks, not comments, long enough to
// be the solution's own (a skeleton's stub lines are shorter than this or are in the skeleton).
std::vector<std::string> solution_lines(const std::string& file) {
  std::vector<std::string> lines;
  std::istringstream in(read_file(file));
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    const std::string t = tools::trim(line);
    if (t == "// @solution") inside = true;
    else if (t == "// @end") inside = false;
    else if (inside && t.size() >= 24 && t.rfind("//", 0) != 0) lines.push_back(t);
  }
  return lines;
}
#endif

}  // namespace

TEST_SUITE("gradescope") {

#ifdef GRADE_CLASS_MISSING
TEST_CASE("build/host/gradescope is not built here: the Debian packages " GRADE_CLASS_MISSING
          " are missing (scripts/install-deps grade-class installs them); its tests are skipped" * doctest::skip()) {}
#else
TEST_CASE("the zip has setup.sh and run_autograder at its root and what grading needs, and no solution code (skipped without zip)" *
          doctest::skip(lab_test::kNoSolutions || kNoZip)) {
  std::map<std::string, int> modes;
  const auto entries = zip_entries((made() / "autograder.zip").string(), &modes);
  for (const char* needed : {"setup.sh", "run_autograder", "gradescope.env", "Makefile", "labs.txt", "grading/core/grade.cpp",
                             "grading/course/gradescope/autograder.cpp", "cpusim/cpucc", "harness/lab_main.cpp", "scripts/list-rules",
                             "labs/01_matmul_naive/matmul_naive.cu"}) {
    CAPTURE(needed);
    CHECK(entries.count(needed) == 1);
  }
  CHECK((modes["setup.sh"] & 0111) != 0);
  CHECK((modes["run_autograder"] & 0111) != 0);
  CHECK(entries.at("grading/rubric.txt") == read_file("tests/fixtures/rubric-fast.txt"));
  CHECK(contains(entries.at("gradescope.env"), "LAB=01_matmul_naive\n"));
  // Every file of the zip is in the folder beside it, and the other way round.
  size_t staged = 0;
  for (const auto& f : fs::recursive_directory_iterator(made() / "autograder")) staged += f.is_regular_file();
  CHECK(staged == entries.size());
  // No solution, by path or by content: no line of any solution's code (the variants' included)
  // that the students' own material (labs/: the skeletons and READMEs) does not give them.
  std::string given;
  for (const auto& f : fs::recursive_directory_iterator("labs")) given += f.is_regular_file() ? read_file(f.path().string()) : "";
  std::vector<std::string> lines;
  for (const auto& f : fs::recursive_directory_iterator("solutions")) {
    if (f.path().extension() != ".cu") continue;
    for (const std::string& l : solution_lines(f.path().string())) {
      if (!contains(given, l)) lines.push_back(l);
    }
  }
  REQUIRE(lines.size() > 50);
  for (const auto& [name, bytes] : entries) {
    CAPTURE(name);
    CHECK(name.rfind("solutions/", 0) != 0);
    CHECK(name.rfind("tests/", 0) != 0);
    CHECK(name.rfind("docs/", 0) != 0);
    for (const std::string& l : lines) {
      if (contains(bytes, l)) FAIL_CHECK("a line of solution code: " << l);
    }
  }
}

TEST_CASE("setup.sh builds the grader and fills its build folder, without a CUDA toolkit (skipped without zip)" *
          doctest::skip(lab_test::kNoCpuSolutions || kNoZip)) {
  std::string output;
  autograder_root(&output);
  CAPTURE(output);
  CHECK(contains(output, "Score: 0/8"));  // the skeletons, graded once
}

TEST_CASE("a correct lab file uploaded alone gets full marks, in Gradescope's format (skipped without zip)" *
          doctest::skip(lab_test::kNoCpuSolutions || kNoZip)) {
  const json r = autograde({{"matmul_naive.cu", read_file("solutions/" + kLabFile)}});
  const std::string output = r["output"];
  CAPTURE(output);
  check_format(r, 8);
  CHECK(r["score"] == 8);
  CHECK(r["tests"].size() == 5);
  CHECK(lab_test::test_named(r, "lab 01 matmul_naive: correctness")["score"] == 4);
  CHECK(lab_test::test_named(r, "lab 01 matmul_naive: performance")["max_score"] == 0);  // waived without a GPU
  CHECK(contains(output, "matmul_naive.cu graded as 01_matmul_naive/matmul_naive.cu"));
  CHECK(contains(output, "performance is waived"));
  CHECK(contains(output, "Score: 8/8"));
  CHECK(r["visibility"] == "visible");
  CHECK(r["stdout_visibility"] == "hidden");
  CHECK(r["leaderboard"][0]["name"] == "total points");
  CHECK(r["leaderboard"][0]["value"] == 8);
}

TEST_CASE("a broken lab in a labs/ folder loses its correctness points; hidden until the due date but its build (skipped without zip)" *
          doctest::skip(lab_test::kNoCpuSolutions || kNoZip)) {
  const fs::path env = autograder_root() / "source" / "gradescope.env";
  const std::string settings = read_file(env.string());
  std::ofstream(env) << settings << "VISIBILITY=after_due_date\n";
  const json r = autograde({{"labs/" + kLabFile, read_file("build/corpus/no_guard_01/" + kLabFile)},
                            {"labs/02_matmul_tiled/notes.txt", "not graded: LAB=01"}});
  std::ofstream(env) << settings;
  check_format(r, 8);
  CHECK(r["score"].get<double>() < 8);
  const json& correctness = lab_test::test_named(r, "lab 01 matmul_naive: correctness");
  CHECK(correctness["status"] == "failed");
  CHECK(correctness["score"].get<double>() < 5);
  CHECK(correctness["visibility"] == "after_due_date");
  CHECK(r["visibility"] == "after_due_date");
  CHECK(lab_test::test_named(r, "lab 01 matmul_naive: build")["visibility"] == "visible");
}

TEST_CASE("a wrong upload gets a results.json that says so, visible, with no score (skipped without zip)" *
          doctest::skip(lab_test::kNoCpuSolutions || kNoZip)) {
  const json r = autograde({{"notes.txt", "my lab is elsewhere"}, {"lab1/README.md", "no code here"}});
  check_format(r, 0);
  CHECK(r["score"] == 0);
  CHECK(r["tests"].empty());
  CHECK(r["visibility"] == "visible");
  const std::string output = r["output"];
  CHECK(contains(output, "your upload: wrong layout"));
  CHECK(contains(output, "Upload the lab files themselves (matmul_naive.cu, ...)"));
}

TEST_CASE("a grader that cannot grade, or a wrong setting, still gives a results.json that says so (skipped without zip)" *
          doctest::skip(lab_test::kNoCpuSolutions || kNoZip)) {
  const fs::path& root = autograder_root();
  fs::remove_all(root / "results");
  const std::vector<std::string> env = env_for(root);
  const std::string source = (root / "source").string();
  tools::RunResult r = run_tool({"build/host/gradescope", "--root", root.string(), "--rubric", "no-such-rubric.txt"}, env, source);
  CHECK(r.exited(0));
  json results = json::parse(read_file((root / "results" / "results.json").string()), nullptr, false);
  check_format(results, 0);
  CHECK(contains(results["output"].get<std::string>(), "could not grade this submission"));
  r = run_tool({"build/host/gradescope", "--root", root.string(), "--visibility", "sometimes"}, env, source);
  CHECK(r.exited(0));
  results = json::parse(read_file((root / "results" / "results.json").string()), nullptr, false);
  check_format(results, 0);
  CHECK(contains(results["output"].get<std::string>(), "the autograder is set up wrongly"));
  // No results folder that can be written: said, exit 2.
  r = run_tool({"build/host/gradescope", "--root", "/proc/no-such-root"}, env, source);
  CHECK(r.exited(2));
  CHECK(contains(r.output, "cannot write /proc/no-such-root/results/results.json"));
}
#endif

TEST_CASE("make gradescope refuses a setting Gradescope does not know, or a lab that is not there") {
  for (const char* setting : {"VISIBILITY=sometimes", "LAB=99", "TIMEOUT=soon"}) {
    CAPTURE(setting);
    const tools::RunResult r = run_tool({"make", "--no-print-directory", "gradescope", setting, "GRADESCOPE_OUT=build/test/gradescope-refused"});
    CHECK(r.exited(2));
    CHECK(contains(r.output, "make gradescope: "));
    CHECK_FALSE(fs::exists("build/test/gradescope-refused/autograder.zip"));
  }
}

}
