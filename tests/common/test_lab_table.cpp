// The table of labs (labs.txt, common/labs.h): what it accepts, that the Makefile reads the
// same labs from it, and that a lab added by every step labs.txt lists passes what CI checks of
// a lab: its skeleton, its documents, its grading, its place in the students' copy.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/labs.h"
#include "tests/lab_programs.h"
#include "tools/subprocess.h"

namespace {

namespace fs = std::filesystem;

using lab_test::contains;

// Reads TEXT as a table; the error, or "" when it reads.
std::string table_error(const std::string& text, std::vector<lab::LabEntry>* labs) {
  const std::string path = "build/test/labs-table.txt";
  std::ofstream(path) << text;
  std::string error;
  return lab::read_labs(path, labs, &error) ? "" : error;
}

}  // namespace

TEST_CASE("the table of labs: a row is a folder NN_stem, a problem and maybe its steps") {
  std::vector<lab::LabEntry> labs;
  CHECK(table_error("# a comment\n\n01_matmul_naive  matmul  # trailing\n05_dot_reduction dot\n", &labs).empty());
  REQUIRE(labs.size() == 2);
  CHECK(labs[1].folder == "05_dot_reduction");
  CHECK(labs[1].number == "05");
  CHECK(labs[1].stem == "dot_reduction");
  CHECK(labs[1].file() == "dot_reduction.cu");
  CHECK(labs[1].op == lab::Op::kDot);
  CHECK(lab::find_lab(labs, "05") == &labs[1]);
  CHECK(lab::find_lab(labs, "05_dot_reduction") == &labs[1]);
  CHECK(lab::find_lab(labs, "5") == nullptr);
  CHECK(labs[1].steps.empty());
  CHECK(contains(table_error("01_matmul_naive\n", &labs), "labs-table.txt:1: a row is a folder NN_stem, a problem and maybe its steps"));
  CHECK(contains(table_error("matmul_naive matmul\n", &labs), ":1: a row is"));
  CHECK(contains(table_error("01_matmul_naive matmul 1d extra\n", &labs), ":1: a row is"));
  CHECK(contains(table_error("01_a matmul 1d,1d\n", &labs), ":1: step '1d' comes twice"));
  CHECK(contains(table_error("01_a matmul 1d,2\n", &labs), ":1: a step is a launcher's suffix"));
  CHECK(contains(table_error("01_a matmul 1d,,2d\n", &labs), ":1: a step is a launcher's suffix"));
  CHECK(contains(table_error("01_a matmul Big\n", &labs), ":1: a step is a launcher's suffix"));
  CHECK(contains(table_error("01_a matmul\n06_b sort\n", &labs), ":2: no problem 'sort'"));
  CHECK(contains(table_error("01_a matmul\n01_b dot\n", &labs), ":2: lab 01 comes twice"));
  CHECK(contains(table_error("# nothing\n", &labs), "lists no lab"));
  CHECK(contains(table_error("", &labs), "lists no lab"));
  // A lab in steps: the launchers stem_1d() and stem_2d(), then stem() itself, the last.
  REQUIRE(table_error("03_matmul_register matmul 1d,2d  # a ladder\n", &labs).empty());
  const std::vector<lab::LabStep> steps = labs[0].step_list();
  REQUIRE(steps.size() == 3);
  CHECK(steps[0].id == "03_matmul_register.1d");
  CHECK(steps[0].launcher == "matmul_register_1d");
  CHECK(steps[0].title == "lab 03 matmul_register, step 1 (1d)");
  CHECK(steps[1].named("2d"));
  CHECK(steps[1].named("2"));
  CHECK(steps[2].id == "03_matmul_register");
  CHECK(steps[2].launcher == "matmul_register");
  CHECK(steps[2].title == "lab 03 matmul_register, step 3");
  CHECK(steps[2].count == 3);
  CHECK_FALSE(steps[2].named(""));
  std::string error;
  CHECK_FALSE(lab::read_labs("build/test/no-such-table.txt", &labs, &error));
  CHECK(contains(error, "cannot read build/test/no-such-table.txt"));
}

// The labs make reads from the table in folder DIR, each with its steps: "03_x:1d,2d".
std::string labs_of_make(const std::string& dir) {
  tools::RunOptions options;
  options.cwd = dir;
  options.env = {"MAKEFLAGS=", "MAKELEVEL="};  // a make of its own, not a job of the tests' make
  const tools::RunResult r = tools::run_command(
      {"make", "-s", "--no-print-directory", "--eval",
       "print-labs: ; @echo $(foreach l,$(LABS),$(l)$(if $(call lab_steps,$(l)),:$(subst $(space),$(comma),$(call lab_steps,$(l)))))",
       "print-labs"},
      options);
  CAPTURE(r.output);
  REQUIRE(r.exited(0));
  return r.output;
}

std::string folders(const std::vector<lab::LabEntry>& labs) {
  std::string all;
  for (const lab::LabEntry& e : labs) {
    all += (all.empty() ? "" : " ") + e.folder;
    for (size_t i = 0; i < e.steps.size(); ++i) all += (i == 0 ? ":" : ",") + e.steps[i];
  }
  return all + "\n";
}

TEST_CASE("the Makefile reads the same labs from the table as the programs do") {
  CHECK(labs_of_make(".") == folders(lab::labs()));
  // And from a table that tries both readers: comments that name labs, blanks and tabs, a
  // comment at the end of a row. (make status reads it with common/labs.h, as the programs do.)
  const std::string copy = fs::temp_directory_path() / ("labs-table-" + std::to_string(getpid()));
  fs::remove_all(copy);
  fs::create_directories(copy);
  REQUIRE(lab_test::copy_checkout(copy));
  std::ofstream(copy + "/labs.txt") << "# 09_not_a_lab matmul\n\n  02_b\tmatmul   # 03_c dot\n\t01_a dot\t1d,x2 #\n#01_x matmul 9z\n"
                                       "04_d matmul#4e\n";
  std::vector<lab::LabEntry> labs;
  std::string error;
  REQUIRE_MESSAGE(lab::read_labs(copy + "/labs.txt", &labs, &error), error);
  CHECK(folders(labs) == "02_b 01_a:1d,x2 04_d\n");
  CHECK(labs_of_make(copy) == folders(labs));
  fs::remove_all(copy);
}

TEST_CASE("a sixth lab, added by every step labs.txt lists, passes what CI checks of a lab" * doctest::skip(lab_test::kNoCpuSolutions)) {
  // A copy of the checkout (its files, not its history; the builds it may reuse copied with it,
  // the test programs too), and in it a lab 06 that solves a matmul in two steps, the launcher
  // matmul_copy_1d(), then matmul_copy(), added by the steps of labs.txt's comment, in order.
  const std::string copy = fs::temp_directory_path() / ("toy-lab-" + std::to_string(getpid()));
  fs::remove_all(copy);
  fs::create_directories(copy + "/build");
  REQUIRE(lab_test::copy_checkout(copy));
  lab_test::reuse_builds(copy, true);
  tools::RunOptions options;
  options.cwd = copy;
  options.timeout_s = 900;
  auto run = [&](const std::vector<std::string>& argv) {
    const tools::RunResult r = tools::run_command(argv, options);
    if (!r.exited(0)) MESSAGE(std::string(argv.front() + " " + argv.back() + " said:\n" + r.output));
    return r;
  };
  // The steps are the comment's own: a new step there that this test does not take fails here.
  const std::string table = lab_test::read_file(copy + "/labs.txt");
  CHECK(contains(table, "#   8. on each GPU the course grades on, make bench LAB=NN"));
  CHECK_FALSE(contains(table, "#   9."));

  // 1. The solution: lab 01's, its launcher renamed, and a first step calling it.
  fs::create_directories(copy + "/solutions/06_matmul_copy");
  const std::string solution = copy + "/solutions/06_matmul_copy/matmul_copy.cu";
  REQUIRE(run({"sh", "-c", "sed 's/^void matmul_naive(/void matmul_copy(/' solutions/01_matmul_naive/matmul_naive.cu > \"$1\"", "sh",
               solution}).exited(0));
  std::ofstream(solution, std::ios::app) << "\nvoid matmul_copy_1d(const float* A, const float* B, float* C, int M, int N, int K) {\n"
                                            "  matmul_copy(A, B, C, M, N, K);\n}\n";
  // 2. Its row.
  std::ofstream(copy + "/labs.txt", std::ios::app) << "06_matmul_copy      matmul     1d\n";
  // 3. Its launchers' declarations.
  std::ofstream(copy + "/public/harness/launchers.h", std::ios::app)
      << "\n// Lab 06 (a test's): lab 01 again, twice.\nvoid matmul_copy_1d(const float* A, const float* B, float* C, int M, int N, int K);\n"
         "void matmul_copy(const float* A, const float* B, float* C, int M, int N, int K);\n";
  // 4. Its sections in the rubric: lab 01's of the tests' rubric (its shapes grade quickly), for
  // each step, the build's point in the first.
  const std::string rubric = lab_test::read_file(copy + "/tests/fixtures/rubric-fast.txt");
  const size_t from = rubric.find("[01_matmul_naive]\n"), to = rubric.find("\n[", from + 1);
  REQUIRE(from != std::string::npos);
  std::string first = rubric.substr(from, to - from);
  first = first.substr(first.find('\n') + 1);
  std::string last = first;
  last.replace(last.find("points.build = 1"), 16, "points.build = 0");
  std::ofstream(copy + "/grading/rubric.txt", std::ios::app) << "\n[06_matmul_copy]\n" << last << "\n[06_matmul_copy.1d]\n" << first;
  // 5. Its README and the Chinese twin, listed.
  fs::create_directories(copy + "/labs/06_matmul_copy");
  std::ofstream(copy + "/labs/06_matmul_copy/README.md") << "# Lab 06: matmul_copy\n\n[中文](README.zh-CN.md)\n\nRun it: `make run LAB=06`.\n";
  std::ofstream(copy + "/labs/06_matmul_copy/README.zh-CN.md") << "# 实验 06：matmul_copy\n\n[English](README.md)\n\n运行：`make run LAB=06`。\n";
  std::ofstream(copy + "/docs/zh-CN.txt", std::ios::app) << "labs/06_matmul_copy/README.md\n";
  // 6. The skeleton, made from the solution.
  const tools::RunResult skeletons = run({"make", "-s", "skeletons"});
  REQUIRE(skeletons.exited(0));
  CHECK(contains(skeletons.output, "wrote labs/06_matmul_copy/matmul_copy.cu"));
  // 7. Its estimated times: a grading of its solution, which CI's checks of a lab include below.
  const tools::RunResult graded = run({"make", "-s", "record-estimates", "LAB=06"});
  REQUIRE(graded.exited(0));
  CHECK(contains(lab_test::read_file(copy + "/grading/estimates.txt"), "06_matmul_copy.1d\t256x256x64\tH100"));
  // 8. (make bench) needs a GPU.

  // What CI checks of a lab: the solution grades full marks (the grading of step 7) and the
  // skeleton 0, the skeletons match, the twin says what the English says, make run goes through
  // both steps, and the students' copy has the lab, without its solution.
  CHECK(contains(graded.output, "== lab 06 matmul_copy, step 1 (1d): solutions/06_matmul_copy/matmul_copy.cu"));
  CHECK(contains(graded.output, "== lab 06 matmul_copy, step 2: solutions/06_matmul_copy/matmul_copy.cu"));
  CHECK(graded.output.find("step 1 (1d)") < graded.output.find("step 2:"));  // in the steps' order, not the sections'
  CHECK(contains(graded.output, "Score: 15/15"));  // performance is waived on the CPU backend
  CHECK(run({"make", "-s", "check-skeletons"}).exited(0));
  CHECK(run({"build/test/docs/test_doc_parity"}).exited(0));
  const tools::RunResult skeleton = run({"build/host/grade", "--backend", "cpu", "--lab", "06", "--quick", "--out", copy + "/out-labs"});
  CHECK(contains(skeleton.output, "not started"));
  CHECK(contains(skeleton.output, "Score: 0/"));
  const tools::RunResult ran = run({"make", "-s", "run", "LAB=06", "SRC=solutions", "BACKEND=cpu", "ARGS=--m 20 --n 30 --k 5 --no-time"});
  CHECK(ran.exited(0));
  CHECK(contains(ran.output, "lab 06 matmul_copy_1d (step 1 of 2)"));
  CHECK(contains(ran.output, "lab 06 matmul_copy (step 2 of 2)"));
  // The students' copy is made from what git holds: the lab committed, as its author would.
  REQUIRE(run({"sh", "-c", "git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm lab06"}).exited(0));
  const std::string students = copy + "-students";
  fs::remove_all(students);
  CHECK(run({"make", "-s", "release", "OUT=" + students}).exited(0));
  for (const std::string file : {"labs/06_matmul_copy/matmul_copy.cu", "labs/06_matmul_copy/README.md", "labs/06_matmul_copy/README.zh-CN.md"}) {
    CHECK_MESSAGE(fs::exists(students + "/" + file), file);
  }
  CHECK_FALSE(fs::exists(students + "/solutions"));
  fs::remove_all(students);
  fs::remove_all(copy);
}

TEST_CASE("a lab program refuses a case of another problem than its launcher's (a wrong row of labs.txt)" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  // The grader takes each lab's problem from the table; lab 01's program computes a matmul. A
  // dot product handed to it, as a row saying `01_matmul_naive dot` would, is exit 2 with the
  // reason, not a call through a launcher that is not there.
  const std::string dir = "build/test/wrong-problem";
  fs::create_directories(dir);
  std::ofstream(dir + "/cases.txt") << "0 check dot 100 0 0 1 0 0 poison\n";
  const tools::RunResult r = tools::run_command({lab_test::program("cpu", lab_test::kSolutions, "01_matmul_naive"), "--serve", dir});
  CAPTURE(r.output);
  CHECK(r.exited(2));
  CHECK(contains(r.output, "case 0 is a dot, but this lab's launcher computes a matmul"));
}
