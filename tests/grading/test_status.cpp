// make status and the history it reads (grading/core/progress.h, grading/student/status.cpp): a history line
// is written and read back, a bad one is named and left out; and in a copy of the checkout, real
// make grade and make check runs of lab 01 and 02 on the CPU backend: a lab graded done stays
// done after a failing run, with its best and its latest result; a run of one lab keeps the
// others'; make check's runs show as make check's; labs/ and solutions/ never mix.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <glob.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "grading/core/progress.h"
#include "tests/lab_programs.h"
#include "tools/subprocess.h"

namespace {

namespace fs = std::filesystem;
using lab_test::contains;

// The line of OUTPUT that starts with PREFIX, or "".
std::string line_of(const std::string& output, const std::string& prefix) {
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(prefix, 0) == 0) return line;
  }
  return "";
}

// The lines of OUTPUT between the one that starts with FROM and the next lab's.
std::string lab_block(const std::string& output, const std::string& from) {
  const size_t start = output.find("\n" + from);
  if (start == std::string::npos) return "";
  const size_t end = output.find("\n  lab ", start + 1);
  return output.substr(start + 1, end == std::string::npos ? std::string::npos : end - start - 1);
}

grade::LabResult lab01_result() {
  grade::LabResult r{"01_matmul_naive", "matmul_naive.cu", {}, ""};
  grade::CheckResult build("build", grade::Status::kPass, 1);
  build.points = 1;
  grade::CheckResult correctness("correctness", grade::Status::kFail, 5);
  correctness.points = 10.0 / 3;
  correctness.details = {"2 of 3 shapes correct, seed 7", "M=65 N=70 K=40: FAIL: 70 of 4550 elements wrong",
                         "  hint: every element of the last column is wrong:\tcheck the guard", "  hint: a second hint"};
  r.checks = {build, correctness, grade::CheckResult("safety", grade::Status::kSkip, 2),
              grade::CheckResult("technique", grade::Status::kSkip, 0),
              grade::CheckResult("performance", grade::Status::kWaived, 0)};
  return r;
}

}  // namespace

TEST_SUITE("status") {

TEST_CASE("a failed build's line in the history holds the compiler's first error, not its heading alone") {
  grade::LabResult r{"02_matmul_tiled", "matmul_tiled.cu", {}, ""};
  grade::CheckResult build("build", grade::Status::kFail, 1);
  build.details = {"the compiler says:", "", "  labs/02_matmul_tiled/matmul_tiled.cu:40:23: error: expected ';' before '}' token",
                   "     40 |     float acc = 0.0f"};
  r.checks = {build};
  const grade::HistoryLine line = grade::history_line(r, "2026-11-29 10:00:00", "check", "cpu", "build/check/x");
  REQUIRE(line.notes.size() == 1);
  CHECK(line.notes[0] == "build: the compiler says: labs/02_matmul_tiled/matmul_tiled.cu:40:23: error: expected ';' before '}' token");
}

TEST_CASE("a history line reads back as written; a bad one is named and left out, never a crash") {
  const grade::HistoryLine written = grade::history_line(lab01_result(), "2026-11-25 11:08:06", "grade", "cpu", "build/grade/x");
  const std::string text = grade::format_line(written);
  CHECK(std::count(text.begin(), text.end(), '\n') == 1);
  grade::HistoryLine read;
  std::string error;
  REQUIRE_MESSAGE(grade::parse_line(text.substr(0, text.size() - 1), &read, &error), error);
  CHECK(read.date == "2026-11-25 11:08:06");
  CHECK(read.lab == "01_matmul_naive");
  CHECK_FALSE(read.quick());
  CHECK(read.points == doctest::Approx(1 + 10.0 / 3).epsilon(1e-5));
  CHECK(read.max_points == 8);
  CHECK(read.report == "build/grade/x");
  REQUIRE(read.checks.size() == 5);
  CHECK(read.checks[1] == std::pair<std::string, std::string>("correctness", "FAIL"));
  CHECK_FALSE(read.passed());
  // The failing check's first two lines and the first hint, a tab in it made a space.
  CHECK(read.notes == std::vector<std::string>{"correctness: 2 of 3 shapes correct, seed 7; M=65 N=70 K=40: FAIL: 70 of 4550 elements wrong",
                                                "hint: every element of the last column is wrong: check the guard"});

  const std::pair<const char*, const char*> bad[] = {
      {"garbage", "expected 8 or more fields separated by tabs"},
      {"2026-11-25\t01_matmul_naive\tgrade\tcpu\t8\t8\tbuild=OK\tr", "the date '2026-11-25' is not YYYY-MM-DD HH:MM:SS"},
      {"2026-11-25 11:08:06\tmatmul\tgrade\tcpu\t8\t8\tbuild=OK\tr", "the lab 'matmul' is not a lab's folder"},
      {"2026-11-25 11:08:06\t01_a\tregrade\tcpu\t8\t8\tbuild=OK\tr", "the command 'regrade' is neither grade nor check"},
      {"2026-11-25 11:08:06\t01_a\tgrade\ttpu\t8\t8\tbuild=OK\tr", "the backend 'tpu' is neither cpu nor gpu"},
      {"2026-11-25 11:08:06\t01_a\tgrade\tcpu\t9\t8\tbuild=OK\tr", "the points '9' of '8' are not a score"},
      {"2026-11-25 11:08:06\t01_a\tgrade\tcpu\tnan\t8\tbuild=OK\tr", "the points 'nan' of '8' are not a score"},
      {"2026-11-25 11:08:06\t01_a\tgrade\tcpu\t8\t8\tbuild=MAYBE\tr", "the check 'build=MAYBE' is not name=OK, FAIL, SKIP or WAIVED"},
      {"2026-11-25 11:08:06\t01_a\tgrade\tcpu\t8\t8\t\tr", "no check's verdict"},
  };
  for (const auto& [line, says] : bad) {
    CAPTURE(std::string(line));
    CHECK_FALSE(grade::parse_line(line, &read, &error));
    CAPTURE(error);
    CHECK(contains(error, says));
  }

  // A file: its header, a good line, a bad one, and a last line cut short.
  const std::string path = "build/test/status-history.tsv";
  fs::create_directories("build/test");
  std::ofstream(path) << "# a header\n" << text << "garbage\n\n" << text.substr(0, 30);
  const grade::History h = grade::read_history(path);
  CHECK(h.found);
  CHECK(h.lines.size() == 1);
  REQUIRE(h.problems.size() == 2);
  CHECK(contains(h.problems[0], path + ":3: expected 8 or more fields"));
  CHECK(contains(h.problems[0], "the line is left out"));
  CHECK(contains(h.problems[1], path + ":5: "));
  CHECK(contains(h.problems[1], "the file ends in the middle of it"));
  const grade::History none = grade::read_history("build/test/no-such-history.tsv");
  CHECK_FALSE(none.found);
  CHECK(none.problems.empty());
}

TEST_CASE("runs that append to one history at once leave every line whole") {
  const std::string root = "build/test/status-progress";
  fs::remove_all(root);
  const grade::HistoryLine line = grade::history_line(lab01_result(), "2026-11-25 11:08:06", "check", "cpu", "build/check/x");
  std::vector<std::thread> runs;
  std::vector<std::string> errors(8);
  for (int i = 0; i < 8; ++i) {
    runs.emplace_back([&, i] {
      for (int n = 0; n < 50; ++n) errors[i] += grade::append_history(root, "labs", {line, line});
    });
  }
  for (std::thread& t : runs) t.join();
  for (const std::string& error : errors) CHECK(error.empty());
  const grade::History h = grade::read_history(grade::history_path(root, "labs"));
  CHECK(h.problems.empty());
  CHECK(h.lines.size() == 800);
  const std::string text = lab_test::read_file(grade::history_path(root, "labs"));
  CHECK(text.rfind("# make grade and make check of labs:", 0) == 0);
  CHECK(std::count(text.begin(), text.end(), '#') == 2);  // one header
  fs::remove_all(root);
}

TEST_CASE("a history that is a FIFO or a link is refused with a message, never waited on or followed") {
  // Where student code runs as the grader's user (no namespaces), it can put either in place.
  const std::string root = "build/test/status-hostile";
  fs::remove_all(root);
  const std::string path = grade::history_path(root, "labs");
  fs::create_directories(fs::path(path).parent_path());
  const grade::HistoryLine line = grade::history_line(lab01_result(), "2026-11-25 11:08:06", "grade", "cpu", "build/grade/x");
  REQUIRE(mkfifo(path.c_str(), 0644) == 0);
  CHECK_FALSE(grade::append_history(root, "labs", {line}).empty());  // no reader: ENXIO, at once
  CHECK_FALSE(grade::read_history(path).problems.empty());
  fs::remove(path);
  const std::string target = root + "/elsewhere.txt";
  std::ofstream(target).close();
  fs::create_symlink(fs::absolute(target), path);
  CHECK_FALSE(grade::append_history(root, "labs", {line}).empty());
  CHECK(lab_test::read_file(target).empty());
  CHECK_FALSE(grade::read_history(path).problems.empty());
  fs::remove_all(root);
}

TEST_CASE("each folder has a history of its own, whatever the name it is given") {
  CHECK(grade::submission_key("labs") == grade::submission_key("./labs/"));
  CHECK(grade::submission_key("labs") == grade::submission_key(fs::absolute("labs").string()));
  CHECK(grade::submission_key("labs") != grade::submission_key("solutions"));
  CHECK(grade::submission_key("labs").rfind("labs-", 0) == 0);
  CHECK(grade::submission_key("solutions").rfind("solutions-", 0) == 0);
  // Names that read the same once made plain still differ.
  CHECK(grade::submission_key("/tmp/a b") != grade::submission_key("/tmp/a-b"));
  CHECK(grade::submission_key("/tmp/a b").rfind("tmp-a-b-", 0) == 0);
  CHECK(grade::history_path("build/progress", "labs") == "build/progress/" + grade::submission_key("labs") + "/history.tsv");
}

TEST_CASE("make status keeps each lab's best and latest run, per folder, across partial and quick runs" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  // A copy of the checkout with fresh skeletons in labs/, and the grader and make status copied
  // with it (cp -a: make sees them up to date). Its build folder is its own, seeded with the
  // grader's builds of the tests (build/grade-tests, made by make test-programs).
  const std::string copy = fs::temp_directory_path() / ("status-copy-" + std::to_string(getpid()));
  fs::remove_all(copy);
  fs::create_directories(copy + "/build");
  REQUIRE(lab_test::copy_checkout(copy));
  lab_test::reuse_builds(copy);
  tools::RunOptions options;
  options.cwd = copy;
  options.timeout_s = 900;
  options.env = {"MAKEFLAGS=", "MAKELEVEL="};  // makes of their own, not jobs of the tests' make
  auto make = [&](const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"make", "-s", "--no-print-directory"};
    argv.insert(argv.end(), args.begin(), args.end());
    return tools::run_command(argv, options);
  };
  // make grade and make check, like tests, fail below full marks: the grader's exit status 1.
  auto grade_lab = [&](const std::string& target, const std::string& lab, const std::string& src) {
    const tools::RunResult r = make({target, "LAB=" + lab, "SRC=" + src, "BACKEND=cpu", "RUBRIC=tests/fixtures/rubric-fast.txt"});
    CAPTURE(r.output);
    if (!contains(r.output, "Score: 8/8")) {
      CHECK_FALSE(r.exited(0));
      CHECK(contains(r.output, "(the grader exited with status 1)"));
    } else {
      REQUIRE(r.exited(0));
    }
    return r.output;
  };
  REQUIRE(make({"skeletons"}).exited(0));
  const std::string lab01 = copy + "/labs/01_matmul_naive/matmul_naive.cu";
  const std::string skeleton01 = lab_test::read_file(lab01);

  // No history yet: how to start.
  const tools::RunResult fresh = make({"status"});
  CAPTURE(fresh.output);
  CHECK(fresh.exited(0));
  CHECK(contains(fresh.output, "No make grade or make check run of labs is recorded yet."));
  CHECK(contains(fresh.output, "Next: lab 01 (labs/01_matmul_naive/README.md): make check LAB=01 after each edit"));

  // Lab 01 solved and graded; lab 02's skeleton checked (make check, a partial and quick run);
  // lab 01 broken again and graded (a partial run that fails).
  fs::copy_file("solutions/01_matmul_naive/matmul_naive.cu", lab01, fs::copy_options::overwrite_existing);
  CHECK(contains(grade_lab("grade", "01", "labs"), "Score: 8/8"));
  CHECK(contains(grade_lab("check", "02", "labs"), "Score: 0/8 (build, correctness and safety)"));
  std::ofstream(lab01) << skeleton01;
  CHECK(contains(grade_lab("grade", "01", "labs"), "Score: 0/8"));

  const tools::RunResult status = make({"status"});
  CAPTURE(status.output);
  REQUIRE(status.exited(0));
  CHECK(contains(status.output, "Progress of labs (3 runs of make grade and make check, build/progress/labs-"));
  const std::string first = lab_block(status.output, "  lab 01 ");
  CHECK(contains(first, "done (best 8/8 on "));
  CHECK(contains(first, "; last run: 0/8 on "));
  CHECK(contains(first, "failing: correctness: not started: labs/01_matmul_naive/matmul_naive.cu is the skeleton as handed out"));
  CHECK(contains(first, "not run yet: safety, technique"));
  const std::string second = lab_block(status.output, "  lab 02 ");
  CHECK(contains(second, "last run: 0/8 on "));
  CHECK(contains(second, " by make check (build, correctness and safety only); no make grade run yet"));
  CHECK(contains(second, "failing: correctness: not started"));
  // Lab 03 is in steps: a line for it, then one per step, each a unit of progress.
  CHECK(contains(line_of(status.output, "  lab 03 "), "matmul_register, in 3 steps:"));
  CHECK(contains(line_of(status.output, "    step 1 (1d) "), "not started"));
  CHECK(contains(line_of(status.output, "    step 3 "), "not started"));
  CHECK(contains(status.output, "Next: lab 02 (labs/02_matmul_tiled/README.md)"));

  // The solutions' run is theirs alone: labs/ keeps its latest (0/8), solutions/ gets a history.
  CHECK(contains(grade_lab("grade", "01", "solutions"), "Score: 8/8"));
  const tools::RunResult solutions = make({"status", "SRC=solutions"});
  CAPTURE(solutions.output);
  CHECK(contains(solutions.output, "Progress of solutions (1 run of make grade and make check, build/progress/solutions-"));
  CHECK(line_of(solutions.output, "  lab 01 ").find("done (best 8/8 on ") != std::string::npos);
  CHECK_FALSE(contains(solutions.output, "last run"));
  CHECK(contains(line_of(solutions.output, "  lab 02 "), "not graded yet"));
  CHECK(contains(solutions.output, "make check LAB=02 SRC=solutions after each edit"));
  const tools::RunResult again = make({"status"});
  CAPTURE(again.output);
  CHECK(again.output == status.output);

  // A corrupt line and a line cut short: named, left out, and the rest still counts.
  glob_t found;
  REQUIRE(glob((copy + "/build/progress/labs-*/history.tsv").c_str(), 0, nullptr, &found) == 0);
  const std::string history = found.gl_pathv[0];
  globfree(&found);
  std::ofstream(history, std::ios::app) << "not a line of history\n2026-11-25 11:08:06\t01_matmul_naive\tgra";
  const tools::RunResult corrupt = make({"status"});
  CAPTURE(corrupt.output);
  CHECK(corrupt.exited(0));
  CHECK(contains(corrupt.output, "history.tsv:6: expected 8 or more fields separated by tabs"));
  CHECK(contains(corrupt.output, "history.tsv:7: "));
  CHECK(contains(corrupt.output, "a run was cut short"));
  CHECK(contains(lab_block(corrupt.output, "  lab 01 "), "done (best 8/8 on "));

  // Lab 02 and lab 03's first step done (lines as the grader writes them): step 2 is next.
  std::ofstream lines(history, std::ios::app);
  lines << "\n";  // after the line cut short
  for (const char* lab : {"02_matmul_tiled", "03_matmul_register.1d"}) {
    grade::HistoryLine done{"2026-11-26 10:00:00", lab, "grade", "cpu", 6, 6, {{"correctness", "OK"}, {"performance", "WAIVED"}}, "build/grade/x", {}};
    lines << grade::format_line(done) << "\n";
  }
  lines.close();
  const tools::RunResult stepped = make({"status"});
  CAPTURE(stepped.output);
  CHECK(contains(line_of(stepped.output, "    step 1 (1d) "), "done (best 6/6 on 2026-11-26 10:00)"));
  CHECK(contains(line_of(stepped.output, "    step 2 (2d) "), "not started"));
  CHECK(contains(stepped.output, "Next: lab 03, step 2 (2d) (labs/03_matmul_register/README.md): "
                                 "make run LAB=03 STEP=2 and make check LAB=03 after each edit"));
  fs::remove_all(copy);
}

}  // TEST_SUITE
