// make release, the students' copy of the workbook: how a document becomes the students' one
// (scripts/make-release-doc), the search for solution code (scripts/find-solution-code), the
// folders make release refuses; and a copy made into a temp folder, which holds no solution by
// path or by content, is a git repository of one commit, has documents without the commands
// only the instructor's copy runs, and in which make test and make grade pass on the CPU
// backend, with every lab built and scored 0, as skeletons are.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/docs/doc_commands.h"
#include "tests/lab_programs.h"
#include "tools/subprocess.h"
#include "tools/text.h"

namespace {

namespace fs = std::filesystem;
using lab_test::contains;

// A make of its own, not a job of the tests' make, in folder CWD ("" this checkout).
tools::RunResult run(const std::vector<std::string>& argv, const std::string& cwd = "", double timeout_s = 120) {
  tools::RunOptions options;
  options.cwd = cwd;
  options.env = {"MAKEFLAGS=", "MAKELEVEL="};
  options.timeout_s = timeout_s;
  return tools::run_command(argv, options);
}

// A temp folder of this test's own, removed at the end of its scope.
struct TempFolder {
  explicit TempFolder(const std::string& name) : path(fs::temp_directory_path() / (name + "-" + std::to_string(getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempFolder() { fs::remove_all(path); }
  std::string path;
};

// scripts/make-release-doc on TEXT, written to a file named doc.md.
tools::RunResult release_doc(const TempFolder& dir, const std::string& text) {
  std::ofstream(dir.path + "/doc.md") << text;
  return run({"scripts/make-release-doc", dir.path + "/doc.md"});
}

const char* const kDocument = R"md(# Lab

Run it (<!-- instructor -->`make run LAB=01 SRC=solutions`, <!-- /instructor -->the edges first).
The other mapping<!-- student:  (swap it in your file) -->.

```sh
make run LAB=01
make run LAB=01 VARIANT=rows_on_x   # the other mapping
DOT_VARIANT=seed make run LAB=05
```

| kernel | command |
|---|---|
| the solution | `make run LAB=01 SRC=solutions` |
| yours | `make run LAB=01` |

<!-- instructor -->
Only in this checkout: `make check LAB=04 SRC=build/corpus/no_second_sync_04`.
<!-- /instructor -->
<!-- student
Only in the students' copy.
-->
The end.
)md";

const char* const kStudentsDocument = R"md(# Lab

Run it (the edges first).
The other mapping (swap it in your file).

```sh
make run LAB=01
DOT_VARIANT=seed make run LAB=05
```

| kernel | command |
|---|---|
| the solution | - |
| yours | `make run LAB=01` |

Only in the students' copy.
The end.
)md";

// A line of a solution's @solution regions that its skeleton does not have: solution code.
std::string solution_line(const std::string& solution) {
  const std::string skeleton = run({"scripts/make-skeleton", solution}).output;
  std::istringstream lines(lab_test::read_file(solution));
  bool inside = false;
  for (std::string line; std::getline(lines, line);) {
    const std::string body = tools::trim(line);
    if (body == "// @solution") inside = true;
    else if (body == "// @end" || body == "// @stub") inside = false;
    else if (inside && body.size() >= 20 && !contains(skeleton, body)) return body;
  }
  return "";
}

// Calls SEE(document, line number, line) for every line of every document (.md file) of FOLDER.
void each_doc_line(const std::string& folder, const std::function<void(const fs::path&, int, const std::string&)>& see) {
  for (const auto& e : fs::recursive_directory_iterator(folder)) {
    if (e.path().extension() != ".md") continue;
    std::istringstream lines(lab_test::read_file(e.path()));
    int n = 0;
    for (std::string line; std::getline(lines, line);) see(e.path(), ++n, line);
  }
}

// Every document of FOLDER (its .md files), for what only the instructor's copy has.
std::vector<std::string> instructor_lines(const std::string& folder) {
  static const std::regex instructor(R"((^|[^A-Za-z_])(SRC=(solutions|build/corpus|build/variants)|VARIANT=)|<!-- *(/?instructor|student))");
  std::vector<std::string> found;
  each_doc_line(folder, [&](const fs::path& doc, int n, const std::string& line) {
    if (std::regex_search(line, instructor)) found.push_back(doc.string() + ":" + std::to_string(n) + ": " + line);
  });
  return found;
}

// Every path of this checkout that a document of COPY (its .md files) names and COPY lacks, as
// "document:line: path". A path is a word that starts with a folder of this checkout (or
// build/corpus and build/variants, which the corpus and the variants fill), read from the
// copy's root or from the document's folder; a name that stands for several (labs/NN_name,
// build/corpus/NAME) is not one, and one cut short (problems.{h,cpp}, test_grade*.cpp) counts as
// present when a file of its folder starts with it.
std::vector<std::string> missing_names(const std::string& copy) {
  std::string roots = "build/corpus|build/variants";
  for (const auto& e : fs::directory_iterator(".")) {
    const std::string name = e.path().filename().string();
    if (e.is_directory() && name[0] != '.' && name != "build") roots += "|" + name;
  }
  const std::regex path("(^|[^A-Za-z0-9_./-])((" + roots + ")/([A-Za-z0-9_.+/-]*[A-Za-z0-9_])?)");
  const std::regex placeholder("(^|/)[A-Z]+(_|/|$)");  // NN_name, build/corpus/NAME
  auto present = [](const fs::path& p) {
    std::error_code ec;
    if (fs::exists(p, ec)) return true;
    for (const auto& e : fs::directory_iterator(p.parent_path(), ec)) {
      if (e.path().filename().string().rfind(p.filename().string(), 0) == 0) return true;
    }
    return false;
  };
  std::vector<std::string> missing;
  each_doc_line(copy, [&](const fs::path& doc, int n, const std::string& line) {
    for (std::sregex_iterator it(line.begin(), line.end(), path), end; it != end; ++it) {
      const std::string named = (*it)[2];
      if (std::regex_search(named, placeholder) || present(fs::path(copy) / named) || present(doc.parent_path() / named)) continue;
      missing.push_back(fs::relative(doc, copy).string() + ":" + std::to_string(n) + ": " + named);
    }
  });
  return missing;
}

}  // namespace

TEST_SUITE("release") {

TEST_CASE("a document's students' copy: the instructor's commands left out, the students' text in, the rest as it was") {
  const TempFolder dir("release-doc");
  const tools::RunResult r = release_doc(dir, kDocument);
  CAPTURE(r.output);
  REQUIRE(r.exited(0));
  CHECK(r.output == kStudentsDocument);
}

TEST_CASE("a document with an instructor's command left unmarked, or a marker out of place, is an error with its line") {
  const TempFolder dir("release-doc");
  const std::string head = "# Lab\n\n";
  for (const auto& [text, says] : std::vector<std::pair<std::string, std::string>>{
           {head + "See `make run LAB=01 VARIANT=rows_on_x`.\n", "doc.md:3: names the solutions, a variant or the corpus; mark it"},
           {head + "```console\n$ make run LAB=04 SRC=solutions\nlab 04\n```\n", "doc.md:4: names the solutions"},
           {head + "```sh\nmake run LAB=01 SRC=solutions\n```\n", "doc.md:5: this sh block has no command left"},
           {head + "<!-- instructor -->\nnever closed\n", "doc.md:3: <!-- instructor --> never closed"},
           {head + "a <!-- instructor -->span over\ntwo lines<!-- /instructor -->\n", "doc.md:3: <!-- instructor --> without"},
           {head + "a marker <!-- /instructor --> alone\n", "doc.md:3: a marker out of place"}}) {
    CAPTURE(text);
    const tools::RunResult r = release_doc(dir, text);
    CHECK(r.exited(1));
    CHECK_MESSAGE(contains(r.output, says), r.output);
  }
}

TEST_CASE("the search for solution code finds a solution's line planted in a folder, and none in the skeletons" *
          doctest::skip(lab_test::kNoSolutions)) {
  const TempFolder dir("solution-code");
  // The lab READMEs and fresh skeletons (labs/ may hold a learner's solved files).
  REQUIRE(tools::run_command({"cp", "-a", "labs", dir.path + "/labs"}).exited(0));
  for (const auto& lab : fs::directory_iterator("solutions")) {
    for (const auto& f : fs::directory_iterator(lab.path())) {
      if (f.path().extension() != ".cu") continue;
      const std::string skeleton = dir.path + "/labs/" + lab.path().filename().string() + "/" + f.path().filename().string();
      std::ofstream(skeleton) << run({"scripts/make-skeleton", f.path().string()}).output;
    }
  }
  const tools::RunResult clean = run({"scripts/find-solution-code", dir.path});
  CAPTURE(clean.output);
  CHECK(clean.exited(0));

  const std::string line = solution_line("solutions/02_matmul_tiled/matmul_tiled.cu");
  REQUIRE(!line.empty());
  std::ofstream(dir.path + "/labs/02_matmul_tiled/README.md", std::ios::app) << "\nA hint:\n\n    " << line << "\n";
  const tools::RunResult found = run({"scripts/find-solution-code", dir.path});
  CAPTURE(found.output);
  CHECK(found.exited(1));
  CHECK(contains(found.output, "/labs/02_matmul_tiled/README.md:"));
  CHECK(contains(found.output, line));
}

TEST_CASE("make release refuses a folder it would overwrite or one inside the checkout, and says where to write" *
          doctest::skip(lab_test::kNoSolutions)) {
  const TempFolder dir("release-refused");
  std::ofstream(dir.path + "/a file") << "x";
  for (const auto& [argv, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"make", "-s", "release"}, "make release: say where"},
           {{"make", "-s", "release", "OUT=" + dir.path}, "exists and is not an empty folder"},
           {{"make", "-s", "release", "OUT=docs/students"}, "is inside this checkout: put it outside, or under build/"}}) {
    const tools::RunResult r = run(argv);
    CAPTURE(r.output);
    CHECK(r.exited(2));
    CHECK(contains(r.output, says));
  }
  CHECK_FALSE(fs::exists("docs/students"));
}

TEST_CASE("the students' copy: no solution by path or content, one commit, and make test and make grade pass in it" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  const TempFolder dir("release");
  const std::string copy = dir.path + "/workbook";
  const tools::RunResult made = run({"make", "-s", "release", "OUT=" + copy});
  CAPTURE(made.output);
  REQUIRE(made.exited(0));

  // By path: no solutions, no corpus, no test that needs them; each lab's file is its skeleton.
  for (const char* absent : {"solutions", "tests/corpus", "tests/grading/test_grade.cpp", "tests/scripts/test_release.cpp"}) {
    CHECK_MESSAGE(!fs::exists(copy + "/" + absent), absent);
  }
  for (const auto& e : fs::directory_iterator("solutions")) {
    if (e.path().filename() == "variants") continue;
    for (const auto& f : fs::directory_iterator(e.path())) {
      CHECK(lab_test::read_file(copy + "/labs/" + e.path().filename().string() + "/" + f.path().filename().string()) ==
            run({"scripts/make-skeleton", f.path().string()}).output);
    }
  }
  // By content, and in its history.
  const tools::RunResult search = run({"scripts/find-solution-code", copy});
  CAPTURE(search.output);
  CHECK(search.exited(0));
  CHECK(run({"git", "-C", copy, "rev-list", "--count", "HEAD"}).output == "1\n");
  CHECK(run({"git", "-C", copy, "status", "--porcelain"}).output.empty());
  const std::vector<std::string> left = instructor_lines(copy);
  CHECK_MESSAGE(left.empty(), "documents of the students' copy that name what only the instructor's has:\n", tools::joined(left));
  const std::vector<std::string> absent = missing_names(copy);
  CHECK_MESSAGE(absent.empty(), "documents of the students' copy that name a file or folder it lacks:\n", tools::joined(absent));
  // Every command its documents show is one that this checkout's show, which test_doc_commands
  // runs here: the students' copy only leaves commands out, those that name the solutions.
  std::vector<std::string> untagged;
  std::set<std::string> ours;
  for (const doc_test::DocCommand& c : doc_test::doc_commands(&untagged)) ours.insert(c.line);
  const std::vector<doc_test::DocCommand> theirs = doc_test::doc_commands(&untagged, copy);
  CHECK(theirs.size() > 40);
  for (const doc_test::DocCommand& c : theirs) CHECK_MESSAGE(ours.count(c.line) == 1, c.where, ": `", c.line, "`");
  CHECK(untagged.empty());

  // Its own tests and its grader, as its README says, on the CPU backend.
  lab_test::reuse_builds(copy, /*tests=*/true);
  const tools::RunResult test = run({"make", "test", "BACKEND=cpu", "TEST_BACKENDS=cpu"}, copy, 1500);
  CAPTURE(test.output.substr(test.output.size() > 6000 ? test.output.size() - 6000 : 0));
  CHECK(test.exited(0));
  CHECK(std::regex_search(test.output, std::regex("\n[1-9][0-9]* passed, 0 failed")));
  MESSAGE("make test in the students' copy: ", test.seconds, " s");
  const tools::RunResult grade = run({"make", "grade", "BACKEND=cpu"}, copy, 1500);
  CAPTURE(grade.output);
  CHECK_FALSE(grade.exited(0));  // below full marks
  CHECK(contains(grade.output, "(the grader exited with status 1)"));
  CHECK(tools::count_of(grade.output, "it compiles; its points count once a shape is computed correctly") == 5);
  CHECK(std::regex_search(grade.output, std::regex("\nScore: 0/[1-9][0-9]*\n")));
  MESSAGE("make grade in the students' copy: ", grade.seconds, " s");
  const tools::RunResult again = run({"make", "-s", "release", "OUT=" + dir.path + "/again"}, copy);
  CHECK(again.exited(2));
  CHECK(contains(again.output, "no solutions/ here"));
}

}  // TEST_SUITE
