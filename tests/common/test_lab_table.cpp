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

TEST_CASE("the table of labs: a row is a folder NN_stem and a problem") {
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
  CHECK(contains(table_error("01_matmul_naive\n", &labs), "labs-table.txt:1: a row is a folder NN_stem and a problem"));
  CHECK(contains(table_error("matmul_naive matmul\n", &labs), ":1: a row is"));
  CHECK(contains(table_error("01_matmul_naive matmul extra\n", &labs), ":1: a row is"));
  CHECK(contains(table_error("01_a matmul\n06_b sort\n", &labs), ":2: no problem 'sort'"));
  CHECK(contains(table_error("01_a matmul\n01_b dot\n", &labs), ":2: lab 01 comes twice"));
  CHECK(contains(table_error("# nothing\n", &labs), "lists no lab"));
  CHECK(contains(table_error("", &labs), "lists no lab"));
  std::string error;
  CHECK_FALSE(lab::read_labs("build/test/no-such-table.txt", &labs, &error));
  CHECK(contains(error, "cannot read build/test/no-such-table.txt"));
}

// The labs make reads from the table in folder DIR.
std::string labs_of_make(const std::string& dir) {
  lab::RunOptions options;
  options.cwd = dir;
  options.env = {"MAKEFLAGS=", "MAKELEVEL="};  // a make of its own, not a job of the tests' make
  const lab::RunResult r =
      lab::run_command({"make", "-s", "--no-print-directory", "--eval", "print-labs: ; @echo $(LABS)", "print-labs"}, options);
  CAPTURE(r.output);
  REQUIRE(r.exited(0));
  return r.output;
}

std::string folders(const std::vector<lab::LabEntry>& labs) {
  std::string all;
  for (const lab::LabEntry& e : labs) all += (all.empty() ? "" : " ") + e.folder;
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
  std::ofstream(copy + "/labs.txt") << "# 09_not_a_lab matmul\n\n  02_b\tmatmul   # 03_c dot\n\t01_a dot\n#01_x matmul\n";
  std::vector<lab::LabEntry> labs;
  std::string error;
  REQUIRE_MESSAGE(lab::read_labs(copy + "/labs.txt", &labs, &error), error);
  CHECK(folders(labs) == "02_b 01_a\n");
  CHECK(labs_of_make(copy) == folders(labs));
  fs::remove_all(copy);
}

TEST_CASE("a sixth lab is a folder and its solution, a row, a launcher's declaration and a rubric entry" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  // A copy of the checkout (its files, not its history or builds; the grader's own build
  // copied with it, since a lab does not change it), and in it a lab 06 that solves a matmul.
  const std::string copy = fs::temp_directory_path() / ("toy-lab-" + std::to_string(getpid()));
  fs::remove_all(copy);
  fs::create_directories(copy + "/build");
  REQUIRE(lab_test::copy_checkout(copy));
  REQUIRE(lab::run_command({"cp", "-a", "build/host", copy + "/build/"}).exited(0));
  fs::create_directories(copy + "/solutions/06_matmul_copy");
  REQUIRE(lab::run_command({"sh", "-c", "sed 's/^void matmul_naive(/void matmul_copy(/' solutions/01_matmul_naive/matmul_naive.cu > \"$1\"",
                            "sh", copy + "/solutions/06_matmul_copy/matmul_copy.cu"}).exited(0));
  std::ofstream(copy + "/labs.txt", std::ios::app) << "06_matmul_copy      matmul\n";
  std::ofstream(copy + "/harness/launchers.h", std::ios::app)
      << "\n// Lab 06 (a test's): lab 01 again.\nvoid matmul_copy(const float* A, const float* B, float* C, int M, int N, int K);\n";
  std::ofstream(copy + "/rubric-06.txt") << "timeout.build = 600\ntimeout.run = 20\n\n[06_matmul_copy]\n"
                                            "points.build = 1\npoints.correctness = 5\npoints.safety = 2\n"
                                            "points.technique = 0\npoints.performance = 2\nshapes = 17x31x13 65x70x40\n"
                                            "safety_shape = 67x45x33\ntechnique = none\ntechnique_shape = 64x64x64\n"
                                            "performance_shape = 1024x1024x1024\n";
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
  CHECK(contains(r.output, "== lab 06 matmul_copy: solutions/06_matmul_copy/matmul_copy.cu"));
  CHECK(contains(r.output, "Score: 8/8"));
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
