// The similarity report (grading/course/class/similarity.h, scripts/similarity: copydetect), on a class
// made from the solutions where many hand in the instructor's solution: two authors (the
// solutions as they are), a copier (a near-copy of them: variables renamed and a section of
// functions moved, tests/fixtures/near_copies.txt), a student who took other routes (the
// independent variants of solutions/variants/: lab 01 rows_on_x, lab 02 coarsened, lab 03 row_1d,
// lab 04 naive, lab 05 reduction_ladder), a mimic who copied that student's labs 02 and 05 and
// disguised them (identifiers renamed, independent statements swapped, branches inverted), and
// two who handed in the skeletons unchanged. The solution's copies are listed apart and their
// pairs not ranked; the pair that copied each other is flagged where the lab's code tells
// anything, and nothing else is. make grade-class --similarity-only, as make similarity runs it.
// Without copydetect (scripts/install-deps similarity; CI's .ci/run installs it) the report's
// tests are skipped, and the test of its absence runs: a clear line, exit 2, nothing else fails.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#ifndef GRADE_CLASS_MISSING
#include <nlohmann/json.hpp>

#include "grading/course/class/similarity.h"
#endif

#include "tests/grading/grade_class_tests.h"
#include "tests/lab_programs.h"
#include "tools/subprocess.h"

namespace {

namespace fs = std::filesystem;
using lab_test::contains;
using lab_test::kNoGradeClass;
using lab_test::put;
using lab_test::read_file;

const bool kNoDetector = !tools::run_command({"build/similarity-env/bin/python3", "-c", "import copydetect"}).exited(0);

const std::map<std::string, std::string> kFiles = {{"01_matmul_naive", "matmul_naive.cu"}, {"02_matmul_tiled", "matmul_tiled.cu"},
                                                   {"03_matmul_register", "matmul_register.cu"}, {"04_transpose", "transpose.cu"},
                                                   {"05_dot_reduction", "dot_reduction.cu"}};
// The other route of each lab: a folder of solutions/variants/, or a row of its variants.txt.
const std::map<std::string, std::string> kRoutes = {{"01_matmul_naive", "rows_on_x"}, {"02_matmul_tiled", "coarsened"},
                                                    {"03_matmul_register", "row_1d"}, {"04_transpose", "naive"},
                                                    {"05_dot_reduction", "reduction_ladder"}};

std::string made(const std::string& list, const std::string& name) {
  const tools::RunResult r = tools::run_command({"scripts/make-variant", list, name});
  REQUIRE_MESSAGE(r.exited(0), r.output);
  return r.output;
}

// The class, in DIR/submissions.
void make_class(const fs::path& dir) {
  const fs::path subs = dir / "submissions";
  for (const auto& [lab, file] : kFiles) {
    const std::string rel = lab + "/" + file;
    put(subs / "author" / rel, read_file("solutions/" + rel));
    put(subs / "author2" / rel, read_file("solutions/" + rel));
    put(subs / "copier" / rel, made("tests/fixtures/near_copies.txt", "copy_" + lab.substr(0, 2)));
    const std::string route = kRoutes.at(lab), folder = "solutions/variants/" + route + "/" + rel;
    put(subs / "router" / rel, fs::exists(folder) ? read_file(folder) : made("solutions/variants/variants.txt", route));
    if (lab == "02_matmul_tiled" || lab == "05_dot_reduction") {
      put(subs / "mimic" / rel, made("tests/fixtures/near_copies.txt", "mimic_" + lab.substr(0, 2)));
    }
    put(subs / "skel_a" / rel, read_file("labs/" + rel));
    put(subs / "skel_b" / "labs" / rel, read_file("labs/" + rel));
  }
}

tools::RunResult similarity_only(const fs::path& dir, const std::vector<std::string>& env = {}, const std::string& cwd = "") {
  tools::RunOptions options;
  options.timeout_s = 300;
  options.env = env;
  options.cwd = cwd;
  return tools::run_command({fs::absolute("build/host/grade-class").string(), "--similarity-only", "--submissions",
                             (dir / "submissions").string(), "--out", (dir / "out").string()},
                          options);
}

#ifndef GRADE_CLASS_MISSING
using nlohmann::json;

// The class made and compared once: similarity.json, and what grade-class printed.
const json& report(std::string* output = nullptr) {
  static std::string printed;
  static const json summary = [] {
    const fs::path dir = fs::absolute("build/test/similarity");
    fs::remove_all(dir);
    make_class(dir);
    const tools::RunResult r = similarity_only(dir);
    printed = r.output;
    INFO(r.output);
    REQUIRE(r.exited(0));
    const json s = json::parse(read_file((dir / "out" / "similarity" / "similarity.json").string()), nullptr, false);
    REQUIRE_FALSE(s.is_discarded());
    return s;
  }();
  if (output != nullptr) *output = printed;
  return summary;
}

const json& lab_summary(const std::string& folder) {
  for (const json& l : report()["labs"]) {
    if (l["folder"] == folder) return l;
  }
  FAIL("no lab " << folder);
  static const json none;
  return none;
}

// The score of the pair A, B in the lab's ranking (every pair that is ranked is in its top), or -1
// for a pair it does not rank.
double score(const json& lab, const std::string& a, const std::string& b) {
  for (const json& p : lab["top"]) {
    if ((p["a"] == a && p["b"] == b) || (p["a"] == b && p["b"] == a)) return p["score"];
  }
  return -1;
}

// The share of ID's code that is the solution's, when the lab lists ID as having handed it in; -1 else.
double handed_in(const json& lab, const std::string& id) {
  for (const json& c : lab["handed_in_solution"]) {
    if (c["id"] == id) return c["share"];
  }
  return -1;
}

bool flagged(const json& lab, const std::string& a, const std::string& b) {
  for (const json& p : lab["flagged"]) {
    if ((p["a"] == a && p["b"] == b) || (p["a"] == b && p["b"] == a)) return true;
  }
  return false;
}
#endif

}  // namespace

TEST_SUITE("similarity") {

#ifndef GRADE_CLASS_MISSING
TEST_CASE("those who hand in the solution, disguised or not, are listed apart and their pairs not ranked (skipped without copydetect)" *
          doctest::skip(lab_test::kNoSolutions || kNoDetector)) {
  for (const auto& [folder, file] : kFiles) {
    CAPTURE(folder);
    const json& lab = lab_summary(folder);
    CHECK(lab["solution_given"] == true);
    CHECK(handed_in(lab, "author") >= 0.99);
    CHECK(handed_in(lab, "author2") >= 0.99);
    CHECK(handed_in(lab, "copier") >= 0.8);
    for (const char* who : {"skel_a", "skel_b", "mimic"}) CHECK(handed_in(lab, who) < 0);
    CHECK(score(lab, "author", "author2") < 0);
    CHECK(score(lab, "author", "copier") < 0);
    CHECK(score(lab, "skel_a", "skel_b") <= 0.05);
    for (const json& p : lab["top"]) CHECK_FALSE((handed_in(lab, p["a"]) >= 0 && handed_in(lab, p["b"]) >= 0));
  }
}

TEST_CASE("a disguised pair that copied each other is flagged among many who hand in the solution; nothing else is (skipped without copydetect)" *
          doctest::skip(lab_test::kNoSolutions || kNoDetector)) {
  for (const std::string folder : {"02_matmul_tiled", "05_dot_reduction"}) {
    CAPTURE(folder);
    const json& lab = lab_summary(folder);
    CHECK(lab["informative"] == true);
    CHECK(flagged(lab, "router", "mimic"));
    CHECK(lab["flagged"].size() == 1);
    CHECK(lab["top"][0]["score"] == score(lab, "router", "mimic"));  // first of the ranked pairs
  }
  // Labs 01, 03 and 04: no mimic, and the other routes (rows_on_x, row_1d: the solution with one
  // loop changed, handed in as the solution; naive: a few lines) are not flagged with anyone.
  for (const std::string folder : {"01_matmul_naive", "03_matmul_register", "04_transpose"}) {
    CAPTURE(folder);
    CHECK(lab_summary(folder)["flagged"].empty());
  }
  std::string output;
  report(&output);
  CHECK(contains(output, "similarity: 2 pairs flagged (a score of 80% or more), "));
}

TEST_CASE("the report is one page that needs no network, each lab's pairs with their code (skipped without copydetect)" *
          doctest::skip(lab_test::kNoSolutions || kNoDetector)) {
  report();
  const std::string html = read_file("build/test/similarity/out/similarity/similarity.html");
  for (const auto& [folder, file] : kFiles) CHECK(contains(html, "<h2 id='" + folder + "'>"));
  CHECK_FALSE(contains(html, "http"));
  CHECK_FALSE(contains(html, "<script"));
  CHECK_FALSE(contains(html, "<link"));
  CHECK(contains(html, "<span class='hl-a'>"));  // the matching code, marked
  CHECK(contains(html, "Handed in the instructor's solution"));
  CHECK(contains(html, "copydetect 0.5.0"));
}

TEST_CASE("the class page lists the flagged pairs, escaped, and links the report") {
  grade::Similarity s;
  s.report = "similarity/similarity.html";
  s.line = "similarity: 1 pairs flagged (a score of 80% or more), in out/similarity/similarity.html";
  s.flagged = {{"02_matmul_tiled", "alice", "Bob <b>", 0.97, 400}};
  s.lab_notes = {"lab 01_matmul_naive: 3 of 3 pairs ..."};
  s.handed_in_solution = {{"04_transpose", "Carol & co", 0.93}};
  const std::string html = grade::similarity_section(s);
  CHECK(contains(html, "<tr class=\"flagged\"><td>04_transpose</td><td>Carol &amp; co</td><td>93%</td></tr>"));
  CHECK(contains(html, "<a href=\"similarity/similarity.html\">"));
  CHECK(contains(html, "<tr class=\"flagged\"><td>02_matmul_tiled</td><td>alice</td><td>Bob &lt;b&gt;</td><td>97%</td></tr>"));
  CHECK(contains(html, "lab 01_matmul_naive: 3 of 3 pairs"));
  CHECK_FALSE(contains(html, "<b>"));
  s = {};
  s.line = "similarity: not made (grading is not affected): copydetect is not installed";
  CHECK(grade::similarity_section(s) == "<h2>Similarity</h2>\n<p id=\"similarity\">not made (grading is not affected): copydetect is not installed</p>\n");
}
#endif

TEST_CASE("without the detector, make similarity says how to install it and exits 2" *
          doctest::skip(kNoGradeClass || lab_test::kNoSolutions)) {
  // A folder with what grade-class reads but no build/similarity-env, and a PATH whose python3
  // (if any) lacks copydetect.
  const fs::path dir = fs::absolute("build/test/similarity-missing");
  fs::remove_all(dir);
  put(dir / "submissions" / "alice" / "01_matmul_naive" / "matmul_naive.cu", read_file("solutions/01_matmul_naive/matmul_naive.cu"));
  put(dir / "submissions" / "bob" / "01_matmul_naive" / "matmul_naive.cu", read_file("labs/01_matmul_naive/matmul_naive.cu"));
  fs::create_directories(dir / "checkout" / "scripts");
  fs::copy_file("labs.txt", dir / "checkout" / "labs.txt");
  fs::copy_file("scripts/similarity", dir / "checkout" / "scripts" / "similarity");
  fs::create_directory_symlink(fs::absolute("labs"), dir / "checkout" / "labs");
  const tools::RunResult r = similarity_only(dir, {"PATH=/usr/bin:/bin"}, (dir / "checkout").string());
  CAPTURE(r.output);
  CHECK(r.exited(2));
  CHECK(contains(r.output, "similarity: not made (grading is not affected): "));
  CHECK(contains(r.output, "scripts/install-deps similarity"));
}

}
