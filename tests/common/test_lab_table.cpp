// The table of labs (labs.txt, common/labs.h): what it accepts, that the Makefile reads the
// same labs from it, and that a lab added the way labs.txt says (a folder and its solution, a
// row, a launcher's declaration, a rubric entry) is built and graded like the others.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/labs.h"
#include "common/subprocess.h"
#include "tests/lab_programs.h"

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
  lab::RunOptions options;
  options.cwd = dir;
  options.env = {"MAKEFLAGS=", "MAKELEVEL="};  // a make of its own, not a job of the tests' make
  const lab::RunResult r = lab::run_command(
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

TEST_CASE("a sixth lab is a folder and its solution, a row, its launchers' declarations and rubric entries" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  // A copy of the checkout (its files, not its history or builds; the grader's own build
  // copied with it, since a lab does not change it), and in it a lab 06 that solves a matmul,
  // in two steps: the launcher matmul_copy_1d(), then matmul_copy().
  const std::string copy = fs::temp_directory_path() / ("toy-lab-" + std::to_string(getpid()));
  fs::remove_all(copy);
  fs::create_directories(copy + "/build");
  REQUIRE(lab_test::copy_checkout(copy));
  lab_test::reuse_builds(copy);
  fs::create_directories(copy + "/solutions/06_matmul_copy");
  const std::string solution = copy + "/solutions/06_matmul_copy/matmul_copy.cu";
  REQUIRE(lab::run_command({"sh", "-c", "sed 's/^void matmul_naive(/void matmul_copy(/' solutions/01_matmul_naive/matmul_naive.cu > \"$1\"",
                            "sh", solution}).exited(0));
  std::ofstream(solution, std::ios::app) << "\nvoid matmul_copy_1d(const float* A, const float* B, float* C, int M, int N, int K) {\n"
                                            "  matmul_copy(A, B, C, M, N, K);\n}\n";
  std::ofstream(copy + "/labs.txt", std::ios::app) << "06_matmul_copy      matmul     1d\n";
  std::ofstream(copy + "/harness/launchers.h", std::ios::app)
      << "\n// Lab 06 (a test's): lab 01 again, twice.\nvoid matmul_copy_1d(const float* A, const float* B, float* C, int M, int N, int K);\n"
         "void matmul_copy(const float* A, const float* B, float* C, int M, int N, int K);\n";
  const std::string section = "points.correctness = 5\npoints.safety = 2\npoints.technique = 0\npoints.performance = 2\n"
                              "shapes = 17x31x13 65x70x40\nsafety_shape = 67x45x33\ntechnique = none\n"
                              "technique_shape = 64x64x64\nperformance_shape = 1024x1024x1024\n";
  std::ofstream(copy + "/rubric-06.txt") << "timeout.build = 600\ntimeout.run = 20\n\n[06_matmul_copy]\npoints.build = 0\n"
                                         << section << "\n[06_matmul_copy.1d]\npoints.build = 1\n" << section;
  lab::RunOptions options;
  options.cwd = copy;
  options.timeout_s = 900;
  // Its folder in labs/, the student's skeleton, made from the solution as every lab's is.
  const lab::RunResult skeletons = lab::run_command({"make", "-s", "skeletons"}, options);
  CAPTURE(skeletons.output);
  REQUIRE(skeletons.exited(0));
  CHECK(contains(skeletons.output, "wrote labs/06_matmul_copy/matmul_copy.cu"));
  const lab::RunResult r = lab::run_command({"build/host/grade", "--backend", "cpu", "--src", "solutions", "--lab", "06",
                                             "--rubric", "rubric-06.txt", "--seed", "6", "--out", copy + "/out"},
                                            options);
  CAPTURE(r.output);
  CHECK(r.exited(0));
  CHECK(contains(r.output, "== lab 06 matmul_copy, step 1 (1d): solutions/06_matmul_copy/matmul_copy.cu"));
  CHECK(contains(r.output, "== lab 06 matmul_copy, step 2: solutions/06_matmul_copy/matmul_copy.cu"));
  CHECK(r.output.find("step 1 (1d)") < r.output.find("step 2:"));  // in the steps' order, not the sections'
  CHECK(contains(r.output, "Score: 15/15"));
  // make run goes through both steps, the program's --step naming each.
  const lab::RunResult run = lab::run_command({"make", "-s", "run", "LAB=06", "SRC=solutions", "BACKEND=cpu",
                                               "ARGS=--m 20 --n 30 --k 5 --no-time"}, options);
  CAPTURE(run.output);
  CHECK(run.exited(0));
  CHECK(contains(run.output, "lab 06 matmul_copy_1d (step 1 of 2)"));
  CHECK(contains(run.output, "lab 06 matmul_copy (step 2 of 2)"));
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
  const lab::RunResult r = lab::run_command({lab_test::program("cpu", lab_test::kSolutions, "01_matmul_naive"), "--serve", dir});
  CAPTURE(r.output);
  CHECK(r.exited(2));
  CHECK(contains(r.output, "case 0 is a dot, but this lab's launcher computes a matmul"));
}
