// The grader's verdicts on the solutions and skeletons: every solution gets full marks on build,
// correctness, safety and technique; every skeleton gets 0 without a crash; a lab in steps is
// graded step by step; the grid limit, the seed and a crash at one shape are treated alike on
// every backend. They grade on the CPU backend (CI has no GPU) and are skipped when `make test
// TEST_BACKENDS=gpu` leaves it out; one, of --counts, grades on a GPU, where there is one. The
// runs share one build folder to stay fast (tests/grading/grade_runs.h).
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "common/labs.h"
#include "grading/core/progress.h"
#include "grading/core/student_uid.h"
#include "grading/core/utf8.h"
#include "tests/grading/grade_runs.h"
#include "tests/lab_programs.h"
#include "tools/subprocess.h"
#include "tools/text.h"

using namespace grade_test;

TEST_SUITE("grade") {

TEST_CASE("every solution grades full marks on build, correctness, safety and technique" * doctest::skip(lab_test::kNoCpuSolutions)) {
  const Graded g = grade_every_lab("solutions", "Score: 54/54", "");
  CAPTURE(g.run.output);
  CHECK_FALSE(contains(g.run.output, "FAIL"));
  CHECK(contains(g.results_json, "\"score\": 54"));
  // Each step of lab 03 is a part of its own, its build graded once, with the first.
  CHECK(contains(g.results_json, "\"name\": \"lab 03 matmul_register, step 2 (2d): technique\""));
  CHECK(contains(g.run.output, "\nlab 03, step 1: 5/5\n"));
  CHECK(contains(g.run.output, "\nlab 03, step 3: 6/6\n"));  // the lab's build, with its last step
  // Each graded part's estimate is the one grading/estimates.txt records for the solution: that
  // file is current (make record-estimates after a solution changes).
  CHECK_MESSAGE(tools::count_of(g.run.output, "µs on an H200, as the solution's (a floor, feedback only") == 7,
                "grading/estimates.txt is not the solutions' (make record-estimates writes it)");
  if (tools::run_command({"sh", "-c", "command -v python3"}).exited(0)) CHECK(valid_json(default_out() + "/results.json"));
}

// On the CPU backend it shows the technique check's estimate of the time (no points), beside the
// solution's, once the lab computes the technique shape right.
TEST_CASE("make check's quick pass: build, correctness and safety, the solution in full, the skeleton 0" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  for (const char* src : {"solutions", "build/skeletons"}) {
    const Graded g = run_grader({"--quick", "--src", src, "--lab", "02", "--rubric", "tests/fixtures/rubric-fast.txt"}, false,
                                "build/grade-test-reports/quick");
    CAPTURE(g.run.output);
    REQUIRE(g.run.exited(0));
    CHECK(contains(g.run.output, std::string("make check: ") + src));
    CHECK_FALSE(contains(g.run.output, "technique:"));
    CHECK_FALSE(contains(g.run.output, "performance:"));
    const bool solved = std::string(src) == "solutions";
    CHECK(contains(check_line(g.run.output, "safety"), solved ? ": OK" : ": SKIP"));
    CHECK(contains(g.run.output, "\n  estimated on a GPU from the memory model's counts at M=256 N=256 K=64: ") == solved);
    CHECK(contains(g.run.output, "on an H200, as the solution's (a floor, feedback only") == solved);
    CHECK(last_line(g.run.output) == (solved ? "Score: 8/8 (build, correctness and safety)" : "Score: 0/8 (build, correctness and safety)"));
  }
}

TEST_CASE("a lab in steps: STEP= grades one step, a file grades the steps it defines, and the build's point comes with any" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  const std::vector<std::string> fast = {"--rubric", "tests/fixtures/rubric-fast.txt"};
  // One step, with the lab's build.
  std::vector<std::string> args = {"--src", "solutions", "--lab", "03", "--step", "1d"};
  args.insert(args.end(), fast.begin(), fast.end());
  const Graded one = run_grader(args, false, "build/grade-test-reports/step");
  CAPTURE(one.run.output);
  CHECK(one.run.exited(0));
  CHECK(contains(one.run.output, "== lab 03 matmul_register, step 1 (1d): "));
  CHECK_FALSE(contains(one.run.output, "step 2"));
  CHECK(contains(check_line(one.run.output, "build"), ": OK"));
  CHECK(last_line(one.run.output) == "Score: 6/6");

  // Step 3 alone defined: the others are not done, and the build's point comes with step 3.
  const Graded third = grade_fast("build/corpus/only_step3_03", "03", {}, {}, "build/grade-test-reports/only-step3");
  CAPTURE(third.run.output);
  CHECK(third.run.exited(0));
  for (const char* launcher : {"matmul_register_1d()", "matmul_register_2d()"}) {
    CHECK(contains(third.run.output, std::string("not done: build/corpus/only_step3_03/03_matmul_register/matmul_register.cu "
                                                 "does not define ") + launcher));
  }
  CHECK(contains(third.run.output, "\nlab 03, step 1: 0/5\n"));
  CHECK(contains(third.run.output, "\nlab 03, step 3: 6/6\n"));

  // What names no step says so, and grades nothing (exit 2).
  for (const std::vector<std::string>& wrong : std::vector<std::vector<std::string>>{
           {"--lab", "01", "--step", "1"}, {"--lab", "03", "--step", "4"}, {"--step", "1"}}) {
    std::vector<std::string> a = {"--src", "solutions"};
    a.insert(a.end(), wrong.begin(), wrong.end());
    const Graded g = run_grader(a, false, "build/grade-test-reports/no-step");
    CAPTURE(g.run.output);
    CHECK(g.run.exited(2));
    CHECK((contains(g.run.output, "has no steps") || contains(g.run.output, "has no step '4': its steps are 1 (1d), 2 (2d), 3") ||
           contains(g.run.output, "STEP=1 needs one lab")));
  }
}

TEST_CASE("the CPU backend's programs run on the grader's cores (CPUSIM_THREADS), unless its environment says otherwise" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  // A lab 01 that computes only when told one thread.
  const tools::RunResult made = tools::run_command({"scripts/make-variant", "tests/fixtures/environment_variants.txt", "one_thread_01"});
  REQUIRE_MESSAGE(made.exited(0), made.output);
  const std::string src = "build/grade-test-src/one_thread_01";
  std::filesystem::create_directories(src + "/01_matmul_naive");
  std::ofstream(src + "/01_matmul_naive/matmul_naive.cu") << made.output;
  const Graded one = grade_fast(src, "01", {"--cores", "1"}, {}, "build/grade-test-reports/one-thread");
  CAPTURE(one.run.output);
  CHECK(contains(check_line(one.run.output, "correctness"), ": OK"));
  // Set by whoever runs the grader, it stays.
  const Graded two = grade_fast(src, "01", {"--cores", "1"}, {"CPUSIM_THREADS=2"}, "build/grade-test-reports/two-threads");
  CAPTURE(two.run.output);
  CHECK(contains(check_line(two.run.output, "correctness"), ": FAIL"));
}

TEST_CASE("LAB= a list grades those labs, in the table's order; a name in it that is no lab grades nothing" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  // The skeletons as handed out: each lab says it is not started, and runs no shape.
  const Graded two = run_grader({"--src", "build/skeletons", "--lab", "05,01", "--rubric", "tests/fixtures/rubric-fast.txt"}, false,
                                "build/grade-test-reports/lab-list");
  CAPTURE(two.run.output);
  CHECK(two.run.exited(0));
  const size_t first = two.run.output.find("== lab 01 matmul_naive"), second = two.run.output.find("== lab 05 dot_reduction");
  CHECK(first != std::string::npos);
  CHECK(second != std::string::npos);
  CHECK(first < second);
  for (const char* other : {"== lab 02", "== lab 03", "== lab 04"}) CHECK_FALSE(contains(two.run.output, other));
  for (const std::vector<std::string>& wrong : std::vector<std::vector<std::string>>{
           {"--lab", "01,99"}, {"--lab", "01,,02"}, {"--lab", "01,03", "--step", "1"}}) {
    std::vector<std::string> a = {"--src", "build/skeletons"};
    a.insert(a.end(), wrong.begin(), wrong.end());
    const Graded g = run_grader(a, false, "build/grade-test-reports/lab-list-wrong");
    CAPTURE(g.run.output);
    CHECK(g.run.exited(2));
    CHECK((contains(g.run.output, "no lab '99'") || contains(g.run.output, "no lab ''") ||
           contains(g.run.output, "STEP=1 needs one lab")));
  }
}

TEST_CASE("--record-estimates records the solutions' estimates only: another folder, a quick pass or a GPU is refused") {
  for (const std::vector<std::string>& wrong : std::vector<std::vector<std::string>>{
           {"--src", "labs", "--backend", "cpu"}, {"--src", "solutions", "--backend", "cpu", "--quick"}}) {
    std::vector<std::string> a = {"--record-estimates", "--lab", "01"};
    a.insert(a.end(), wrong.begin(), wrong.end());
    const Graded g = run_grader(a, false, "build/grade-test-reports/record-estimates");
    CAPTURE(g.run.output);
    CHECK(g.run.exited(2));
    CHECK(contains(g.run.output, "--record-estimates counts the solutions on the CPU backend"));
  }
}

TEST_CASE("--counts is ncu or model, and the CPU backend counts with its model only") {
  for (const auto& [value, message] : std::vector<std::pair<std::string, std::string>>{
           {"nope", "COUNTS must be ncu or model, not 'nope'"},
           {"ncu", "COUNTS=ncu counts with Nsight Compute, on a GPU; the CPU backend counts with its model"}}) {
    const Graded g = run_grader({"--counts", value, "--lab", "01"}, false, "build/grade-test-reports/counts");
    CAPTURE(g.run.output);
    CHECK(g.run.exited(2));
    CHECK(contains(g.run.output, message));
  }
}

// On a GPU only (make test there): the technique counts of a GPU's grading from the CPU backend's
// model, which takes no profiled run on the GPU; and from Nsight Compute for a file correct on
// the GPU that the CPU backend cannot build (inline PTX).
TEST_CASE("on a GPU, --counts model counts on the cores, and a file only nvcc builds is counted by Nsight Compute" *
          doctest::skip(lab_test::kNoGpuSolutions)) {
  const std::string dir = "build/grade-test-reports/counts-gpu";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/ptx/04_transpose");
  std::string file = read_file("solutions/04_transpose/transpose.cu");
  const std::string body = "  const int x = threadIdx.x, y = threadIdx.y;\n";
  REQUIRE(contains(file, body));
  file.replace(file.find(body), body.size(), body + "  unsigned lane;\n  asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(lane));\n  (void)lane;\n");
  std::ofstream(dir + "/ptx/04_transpose/transpose.cu") << file;
  for (const auto& [src, counts, counted_by_ncu] : std::vector<std::tuple<std::string, std::string, bool>>{
           {"solutions", "model", false}, {dir + "/ptx", "model", true}, {"solutions", "ncu", true}}) {
    CAPTURE(src);
    CAPTURE(counts);
    const std::string trace = dir + "/runs-" + counts + (counted_by_ncu ? "-ncu" : "") + ".tsv";
    const Graded g = grade_fast(src, "04", {"--backend", "gpu", "--counts", counts, "--trace-runs", trace}, {}, dir + "/out");
    CAPTURE(g.run.output);
    REQUIRE(g.run.exited(0));
    CHECK(contains(check_line(g.run.output, "technique"), ": OK"));
    CHECK(contains(g.run.output, counts == "model" ? "(technique counts: the CPU backend's model" : "(technique counts: Nsight Compute"));
    const std::string runs = read_file(trace);
    CHECK(contains(runs, "\tncu\t") == counted_by_ncu);
    CHECK(contains(runs, ":cpu\n") == (counts == "model" && !counted_by_ncu));
    CHECK_FALSE(contains(runs, "\tcorrectness-watched-"));  // the CPU backend's pass: a GPU loses its own updates
    CHECK(contains(g.run.output, "counted by Nsight Compute: the CPU backend, whose model counts the others, cannot build this file") ==
          (counts == "model" && counted_by_ncu));
  }
}

TEST_CASE("every skeleton grades 0, without a crash; one as handed out is not started" * doctest::skip(lab_test::kNoCpuSolutions)) {
  namespace fs = std::filesystem;
  // As handed out (grading/skeletons.sha256 lists them): each lab says once that it is not
  // started, and runs no shape.
  const Graded untouched = grade_every_lab("build/skeletons", "Score: 0/54", "0/", 3);
  CAPTURE(untouched.run.output);
  for (const lab::LabEntry& e : lab::labs()) {
    CHECK(contains(untouched.run.output, "not started: build/skeletons/" + e.folder + "/" + e.file() + " is the skeleton as handed out"));
  }
  CHECK_FALSE(contains(untouched.run.output, "shapes correct"));
  // Touched (a blank line added), each is run, three labs at once as on a GPU machine: the same
  // verdicts, printed in the same order (on the fast rubric: a skeleton fails any shape).
  const std::string touched = "build/test/skeletons-touched";
  fs::remove_all(touched);
  REQUIRE(tools::run_command({"cp", "-r", "build/skeletons", touched}).exited(0));
  for (const lab::LabEntry& e : lab::labs()) std::ofstream(touched + "/" + e.folder + "/" + e.file(), std::ios::app) << "\n";
  const Graded g = grade_every_lab(touched, "Score: 0/54", "0/", 3, "tests/fixtures/rubric-fast.txt");
  CAPTURE(g.run.output);
  CHECK_FALSE(contains(g.run.output, "killed by"));
  CHECK_FALSE(contains(g.run.output, "not started"));
  // A skeleton writes nothing: that is what it is told, not a race. It compiles, and its
  // build's point waits for a shape computed correctly.
  CHECK_FALSE(contains(g.run.output, "differs between two runs"));
  CHECK(tools::count_of(g.run.output, "it compiles; its points count once a shape is computed correctly") == 5);
  CHECK(contains(g.run.output, "nothing was written"));
}

// On the CPU backend the solution's run of the correctness shapes is kept in the build folder
// (grading/core/check_correctness.cpp): after a grading, a file per pass of its per-shape seconds
// under a title line, which the next grading reads instead of running the solution again; a file
// that does not hold one number per shape is measured again and replaced. Other tests grade into
// the same build folder at the same time: this one finds its own files by their title, whose
// shapes are its rubric's alone.
TEST_CASE("the solution's correctness run on the CPU backend is kept for the next grading, and a bad record is measured again" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  namespace fs = std::filesystem;
  const std::string kept = std::string(kSharedBuild) + "/solution-times";
  const std::string rubric = "build/test/rubric-kept.txt";
  {
    std::ifstream fast("tests/fixtures/rubric-fast.txt");
    std::string text((std::istreambuf_iterator<char>(fast)), std::istreambuf_iterator<char>());
    text.replace(text.find("shapes = 17x31x13 65x70x40 1000x33x3"), 36, "shapes = 19x23x11 70x65x40 999x31x3");
    text.replace(text.find("main_shapes = 17x31x13 1000x33x3"), 32, "main_shapes = 19x23x11 999x31x3");
    std::ofstream(rubric) << text;
  }
  auto ours = [&] {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(kept)) {
      std::ifstream in(e.path());
      std::string title;
      if (std::getline(in, title) && contains(title, "M=19 N=23 K=11")) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    return files;
  };
  auto numbers = [](const fs::path& p) {
    std::ifstream in(p);
    std::string title;
    std::getline(in, title);
    size_t n = 0;
    for (double s; in >> s; ++n) CHECK((s >= 0 || s == -1));  // -1: a shape the pass does not run
    return n;
  };
  auto grade = [&](const std::string& out, const std::vector<std::string>& more = {}) {
    std::vector<std::string> args = {"--src", "solutions", "--lab", "01", "--rubric", rubric};
    args.insert(args.end(), more.begin(), more.end());
    return run_grader(args, false, "build/grade-test-reports/" + out);
  };
  for (const fs::path& f : fs::exists(kept) ? ours() : std::vector<fs::path>{}) fs::remove(f);
  Graded g = grade("kept-1");
  REQUIRE_MESSAGE(g.run.exited(0), g.run.output);
  CHECK(contains(g.run.output, "Score: 8/8"));
  const std::vector<fs::path> files = ours();
  REQUIRE(files.size() == 2);  // one per pass: forward, and reverse on one OS thread
  for (const fs::path& f : files) CHECK(numbers(f) == 3);
  for (const fs::path& f : files) {
    std::ifstream in(f);
    std::string title;
    std::getline(in, title);
    std::ofstream(f) << title << "\n0.5\n";
  }
  g = grade("kept-2");
  REQUIRE_MESSAGE(g.run.exited(0), g.run.output);
  CHECK(contains(g.run.output, "Score: 8/8"));
  for (const fs::path& f : files) CHECK(numbers(f) == 3);
  // Without namespaces a student's program could write the build folder, and with it the times
  // the next grading reads (0 s, to cut the next student's limits to the floors): none is kept.
  for (const fs::path& f : ours()) fs::remove(f);
  g = grade("kept-3", {"--no-namespaces"});
  REQUIRE_MESSAGE(g.run.exited(0), g.run.output);
  CHECK(contains(g.run.output, "Score: 8/8"));
  CHECK(ours().empty());
}

TEST_CASE("a program that prints bytes that are not UTF-8 leaves a results.json that is" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  // tests/corpus/garbled prints a stray 0xFF, a cut character and 600 multi-byte ones, then dies.
  const Graded g = grade_fast("tests/corpus/garbled", "01");
  CAPTURE(g.run.output);
  REQUIRE(g.run.exited(0));
  CHECK(last_line(g.run.output) == "Score: 0/8");
  CHECK(contains(g.results_json, "bad bytes: "));  // the output is quoted ...
  CHECK(grade::valid_utf8(g.results_json) == g.results_json);  // ... and every byte of the file is UTF-8
}

TEST_CASE("a crash at one shape costs that shape only, and the later checks wait only for the main shapes" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  // The launcher dies at M = 65 (an edge shape in rubric-fast.txt): a fresh process goes on
  // with the next shape, and safety and technique still run.
  const Graded g = grade_fast("build/corpus/crash_at_65_01", "01");
  CAPTURE(g.run.output);
  REQUIRE(g.run.exited(0));
  CHECK(contains(g.run.output, "2 of 3 shapes correct"));
  CHECK(contains(g.run.output, "M=65 N=70 K=40: the program killed by SIGILL before finishing this shape"));
  CHECK(contains(check_line(g.run.output, "safety"), ": OK"));
  CHECK(last_line(g.run.output) == "Score: 6.7/8");
}

// On a GPU only (make test there): the second correctness pass is the first again, in the same
// process (grading/core/case_runs.h's serve_twice). After the crash at M = 65 a fresh process goes
// on, without M = 65's second run, which would only crash again: two processes in all; three if
// it ran (and crashed) again.
TEST_CASE("on a GPU, a shape's two correctness runs share a process, and a crash costs one more process only" *
          doctest::skip(lab_test::kNoGpuSolutions)) {
  const std::string dir = "build/grade-test-reports/twice-gpu";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string trace = dir + "/runs.tsv";
  const Graded g = grade_fast("build/corpus/crash_at_65_01", "01", {"--backend", "gpu", "--trace-runs", trace}, {}, dir + "/out");
  CAPTURE(g.run.output);
  REQUIRE(g.run.exited(0));
  CHECK(contains(g.run.output, "2 of 3 shapes correct"));
  CHECK(contains(g.run.output, "M=65 N=70 K=40: the program killed by SIGILL before finishing this shape"));
  const std::string runs = read_file(trace);
  CAPTURE(runs);
  int student_correctness_runs = 0;
  std::istringstream lines(runs);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> field;
    std::istringstream fields(line);
    for (std::string f; std::getline(fields, f, '\t');) field.push_back(f);
    REQUIRE(field.size() == 8);
    // The student's correctness folder, "correctness-" and mkdtemp's six letters, not the solution's
    // ("correctness-solution-...") or another pass's.
    student_correctness_runs += field[6].rfind("correctness-", 0) == 0 && field[6].size() == 18 && field[5] == "-";
  }
  CHECK(student_correctness_runs == 2);
}

// The solutions, which cap it, pass the same shape in the grading of every solution above
// (grading/rubric.txt's tall shapes of labs 02 and 04).
TEST_CASE("the grid limit: a launcher must cap the grid at 65535 blocks along y, on every backend" * doctest::skip(lab_test::kNoCpuSolutions)) {
  const Graded g = run_grader({"--src", "build/corpus/no_cap_02", "--lab", "02", "--rubric", "tests/fixtures/rubric-limits.txt"});
  CAPTURE(g.run.output);
  REQUIRE(g.run.exited(0));
  CHECK(contains(check_line(g.run.output, "correctness"), ": FAIL"));
  CHECK(contains(g.run.output, "exceeds the largest grid dimensions (2147483647,65535,65535)"));
  // The rubric gives the later checks no points: they are off, and run nothing.
  for (const char* check : {"safety", "technique", "performance"}) {
    CAPTURE(check);
    CHECK(contains(check_line(g.run.output, check), ": SKIP (0.0s)"));
  }
  CHECK(tools::count_of(g.run.output, "off: the rubric gives it no points") == 3);
}

TEST_CASE("the seed never reaches student code, though `make grade SEED=N` exports it" * doctest::skip(lab_test::kNoCpuSolutions)) {
  // build/corpus/seed_reader_01 is the solution, except that it dies when SEED is in its environment.
  const Graded g = grade_fast("build/corpus/seed_reader_01", "01", {}, {"SEED=4242", "MAKEFLAGS=SEED=4242"});
  CAPTURE(g.run.output);
  REQUIRE(g.run.exited(0));
  CHECK(last_line(g.run.output) == "Score: 8/8");
}

}  // TEST_SUITE
