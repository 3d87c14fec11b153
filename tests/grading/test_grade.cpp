// The grader: every solution gets full marks on build, correctness, safety and technique;
// every skeleton gets 0 without a crash; each wrong submission of the corpus is caught by the
// check that should catch it; a hostile submission cannot make itself pass. They grade on the
// CPU backend (CI has no GPU) and are skipped when `make test TEST_BACKENDS=gpu` leaves it out.
// The runs share one build folder to stay fast, except the tamper test, which needs a fresh one
// (the grader's default where it has no namespaces).
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
#include <vector>

#include "common/labs.h"
#include "common/subprocess.h"
#include "grading/core/progress.h"
#include "grading/core/student_uid.h"
#include "grading/core/utf8.h"
#include "tests/lab_programs.h"

namespace {

// The build folder the runs share; their reports go beside it, never in it (the grader empties
// a build folder when it changes, and refuses one holding files it did not make).
const char* kSharedBuild = "build/grade-tests";

struct Graded {
  lab::RunResult run;
  std::string results_json;
};

using lab_test::read_file;

// COMMAND run as UID's user, one that is not root and that no grading running beside the test
// shares (grading/core/student_uid.h); without COMMAND, the prefix that does it.
std::vector<std::string> as_user(const grade::StudentUid& uid, const std::vector<std::string>& command = {}) {
  const std::string id = std::to_string(uid.uid());
  std::vector<std::string> argv = {"setpriv", "--reuid=" + id, "--regid=" + id, "--clear-groups", "--"};
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

Graded run_grader(const std::vector<std::string>& args, bool fresh_build = false, const std::string& out = "build/grade-test-reports/out",
             const std::vector<std::string>& env = {}) {
  std::vector<std::string> argv = {"build/host/grade", "--backend", "cpu", "--seed", "4242", "--out", out};
  if (!fresh_build) argv.insert(argv.end(), {"--build-dir", kSharedBuild});
  argv.insert(argv.end(), args.begin(), args.end());
  lab::RunOptions options;
  options.timeout_s = 1200;
  options.env = env;
  Graded g;
  g.run = lab::run_command(argv, options);
  g.results_json = read_file(out + "/results.json");
  return g;
}

// Grades lab LAB of SRC on the fast rubric (a few small shapes), as most of these tests do.
Graded grade_fast(const std::string& src, const std::string& lab, const std::vector<std::string>& more_args = {},
                  const std::vector<std::string>& env = {}, const std::string& out = "build/grade-test-reports/out") {
  std::vector<std::string> args = {"--src", src, "--lab", lab, "--rubric", "tests/fixtures/rubric-fast.txt"};
  args.insert(args.end(), more_args.begin(), more_args.end());
  return run_grader(args, false, out, env);
}

// Calls WORK(i) for every i < COUNT, as many at once as this machine has cores, and returns when
// all are done. For gradings that share the build folder, each with reports of its own: the
// folder's lock takes their builds one at a time, and while one builds, another's programs run
// (on 2 cores, the corpus's 30 gradings took 516 s one after another).
void at_once(size_t count, const std::function<void(size_t)>& work) {
  std::atomic<size_t> next{0};
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < std::max(1u, std::thread::hardware_concurrency()); ++t) {
    workers.emplace_back([&] {
      for (size_t i; (i = next++) < count;) work(i);
    });
  }
  for (std::thread& t : workers) t.join();
}

using lab_test::contains;

// The line "  <check>: <STATUS> ..." of the grading output; of a lab in steps, which has one per
// step, the first that failed, else the first.
std::string check_line(const std::string& output, const std::string& check) {
  std::istringstream lines(output);
  std::string first;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("  " + check + ": ", 0) != 0) continue;
    if (contains(line, ": FAIL")) return line;
    if (first.empty()) first = line;
  }
  return first;
}

// The score the grader printed last, "Score: X/Y".
std::string last_line(const std::string& output) {
  std::string text = output;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text.substr(text.rfind('\n') + 1);
}

// Whether SCORE, "Score: X/Y", has X below Y.
bool below_full_marks(const std::string& score) {
  const size_t slash = score.find('/');
  if (score.rfind("Score: ", 0) != 0 || slash == std::string::npos) return false;
  return std::stod(score.substr(7, slash - 7)) < std::stod(score.substr(slash + 1));
}

// Whether `pred` holds for one of the '|'-separated alternatives in `options`.
template <class Pred>
bool any_of(const std::string& options, Pred pred) {
  std::istringstream in(options);
  for (std::string option; std::getline(in, option, '|');) {
    if (pred(option)) return true;
  }
  return false;
}

// Grades every lab of SRC, JOBS at a time, and checks what any such grading prints: exit 0,
// SCORE as its last line, and the labs one after another, whatever order they finished in:
// each lab's header, then its subtotal line, which starts with "lab NN: " + SUBTOTAL; a lab in
// steps, each step's, in their order ("== lab 03 matmul_register, step 1 (1d): ...", then
// "lab 03, step 1: " + SUBTOTAL).
Graded grade_every_lab(const std::string& src, const std::string& score, const std::string& subtotal, int jobs = 1) {
  const Graded g = run_grader({"--src", src, "--jobs", std::to_string(jobs)});
  CAPTURE(g.run.output);
  REQUIRE(g.run.exited(0));
  CHECK(last_line(g.run.output) == score);
  size_t previous_end = 0;
  for (const lab::LabEntry& e : lab::labs()) {
    for (const lab::LabStep& step : e.step_list()) {
      CAPTURE(step.title);
      const std::string step_text = step.count > 1 ? ", step " + std::to_string(step.number) : "";
      const size_t header = g.run.output.find("== " + step.title + ": ");
      const size_t end = g.run.output.find("\nlab " + e.number + step_text + ": " + subtotal);
      REQUIRE(header != std::string::npos);
      REQUIRE(end != std::string::npos);
      CHECK(previous_end < header);
      CHECK(header < end);
      previous_end = end;
    }
  }
  return g;
}

bool valid_json(const std::string& path) {
  return lab::run_command({"python3", "-c", "import json,sys; json.load(open(sys.argv[1]))", path}).exited(0);
}

}  // namespace

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
  if (lab::run_command({"sh", "-c", "command -v python3"}).exited(0)) CHECK(valid_json("build/grade-test-reports/out/results.json"));
}

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
           contains(g.run.output, "STEP=1 needs a lab")));
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
  // verdicts, printed in the same order.
  const std::string touched = "build/test/skeletons-touched";
  fs::remove_all(touched);
  REQUIRE(lab::run_command({"cp", "-r", "build/skeletons", touched}).exited(0));
  for (const lab::LabEntry& e : lab::labs()) std::ofstream(touched + "/" + e.folder + "/" + e.file(), std::ios::app) << "\n";
  const Graded g = grade_every_lab(touched, "Score: 0/54", "0/", 3);
  CAPTURE(g.run.output);
  CHECK_FALSE(contains(g.run.output, "killed by"));
  CHECK_FALSE(contains(g.run.output, "not started"));
  // A skeleton writes nothing: that is what it is told, not a race. It compiles, and its
  // build's point waits for a shape computed correctly.
  CHECK_FALSE(contains(g.run.output, "differs between two runs"));
  CHECK(text::count_of(g.run.output, "it compiles; its points count once a shape is computed correctly") == 5);
  CHECK(contains(g.run.output, "nothing was written"));
}

TEST_CASE("every variant of the solutions that keeps the lesson grades full marks" * doctest::skip(lab_test::kNoCpuSolutions)) {
  // Other block shapes, tile sizes, thread layouts, tile layouts and reductions: other routes to a
  // right answer that still coalesce, reuse, avoid bank conflicts and add once.
  const std::pair<const char*, const char*> variants[] = {
      {"build/variants/block16x16", "01"},      {"build/variants/block32x4", "01"},      {"solutions/variants/coarsened", "02"},
      {"build/variants/tile16", "02"},          {"build/variants/tile128", "03"},        {"build/variants/wide", "03"},
      {"build/variants/row_1d", "03"},          {"build/variants/tile32", "04"},         {"build/variants/swizzled", "04"},
      {"build/variants/no_launch_bounds", "04"}, {"solutions/variants/reduction_ladder", "05"}, {"build/variants/shuffle_atomic", "05"},
  };
  std::vector<Graded> graded(std::size(variants));
  at_once(graded.size(), [&](size_t i) {
    graded[i] = grade_fast(variants[i].first, variants[i].second, {}, {}, "build/grade-test-reports/variant-" + std::to_string(i));
  });
  for (size_t i = 0; i < graded.size(); ++i) {
    CAPTURE(variants[i].first);
    const std::string& output = graded[i].run.output;
    CAPTURE(output);
    CHECK(graded[i].run.exited(0));
    const std::string score = last_line(output);
    const size_t slash = score.find('/');
    CHECK(score.rfind("Score: ", 0) == 0);
    CHECK((slash != std::string::npos && score.substr(7, slash - 7) == score.substr(slash + 1)));
  }
}

// The variants that skip a lab's lesson on purpose are right, and lose that lesson's points and
// nothing else: threadIdx.x down a column of C (lab 01: uncoalesced), and the transpose's tile
// without padding (lab 04: 32-way bank conflicts, its coalescing intact).
TEST_CASE("a variant that skips the lesson loses exactly the lesson's points" * doctest::skip(lab_test::kNoCpuSolutions)) {
  struct Skips {
    const char* src;
    const char* lab;
    const char* technique;  // the technique line's points
    const char* says;
  };
  const Skips variants[] = {
      {"solutions/variants/rows_on_x", "01", "0/2", "global loads use 12% of the bytes in the sectors they move, their stores 12%"},
      {"build/variants/unpadded", "04", "1/2", "shared-memory loads take 32.00 times the wavefronts a conflict-free access would"},
  };
  std::vector<Graded> graded(std::size(variants));
  at_once(graded.size(), [&](size_t i) {
    graded[i] = grade_fast(variants[i].src, variants[i].lab, {}, {}, "build/grade-test-reports/skips-" + std::to_string(i));
  });
  for (size_t i = 0; i < graded.size(); ++i) {
    const Skips& v = variants[i];
    CAPTURE(v.src);
    const std::string& output = graded[i].run.output;
    CAPTURE(output);
    CHECK(graded[i].run.exited(0));
    for (const char* check : {"build", "correctness", "safety"}) CHECK(contains(check_line(output, check), ": OK"));
    const std::string technique = check_line(output, "technique");
    CHECK(contains(technique, ": FAIL"));
    CHECK(contains(technique, std::string("  ") + v.technique));
    CHECK(contains(output, v.says));
  }
}

TEST_CASE("each wrong submission is caught by its check, and by make check where it runs that check" * doctest::skip(lab_test::kNoCpuSolutions)) {
  struct Wrong {
    const char* src;
    const char* lab;
    const char* check;  // the check that must fail ('|': one of them)
    const char* says;   // and what its report must say ('|': one of them)
    const char* never = nullptr;  // and what it must not say: another mistake's hint
    bool quick = false;           // make check's pass is tried on it too
  };
  const Wrong corpus[] = {
      {"build/corpus/no_guard_01", "01", "correctness", "wrote outside the output"},
      // One float past the end of the output's allocation: AddressSanitizer names it, unless
      // the plain build's heap already broke over it (glibc aborts at the free).
      {"build/corpus/oob_write_01", "01", "safety|correctness", "AddressSanitizer|killed by SIGABRT", nullptr, true},
      {"build/corpus/infinite_loop_01", "01", "correctness", "timed out after"},
      {"build/corpus/reads_output_01", "01", "correctness", "reads the output before writing it", nullptr, true},
      {"build/corpus/scaled_01", "01", "correctness", "every element is 2 times the expected value"},
      // The launch counts x along the rows while the kernel puts threadIdx.x along the columns:
      // the grid is rounded up, so "round it up" would be no help.
      {"build/corpus/swapped_grid_01", "01", "correctness", "corner of the", "ceil_div"},
      {"build/corpus/no_store_guard_02", "02", "correctness", "wrote outside the output"},
      {"build/corpus/off_by_one_tiles_02", "02", "correctness", "every wrong element is 0"},
      {"build/corpus/no_first_sync_02", "02", "correctness", "differs between two runs", nullptr, true},
      {"build/corpus/no_second_sync_02", "02", "correctness", "differs between two runs"},
      {"build/corpus/compile_error_02", "02", "build", "matmul_tiled.cu", nullptr, true},
      {"build/corpus/naive_as_02", "02", "technique", "loaded 4.12 bytes from global memory per multiply-add"},
      {"build/corpus/decoy_shared_02", "02", "technique", "loaded 4.12 bytes from global memory per multiply-add"},
      {"build/corpus/naive_as_03", "03", "technique", "per thread"},
      // A ladder's classic mistakes: lab 02's one output per thread handed in as step 1 (right,
      // but no register tile), and step 2's store without its column guard.
      {"build/corpus/one_output_1d_03", "03", "technique", "1.00 per thread"},
      {"build/corpus/no_col_guard_2d_03", "03", "correctness", "wrote outside the output"},
      {"build/corpus/naive_as_04", "04", "technique", "their stores 12%"},
      {"build/corpus/host_sum_05", "05", "technique", "copied between host and device memory 2 times"},
      {"build/corpus/swapped_indices_04", "04", "correctness", "copied, not transposed"},
      {"build/corpus/no_second_sync_04", "04", "correctness", "differs between two runs"},
      // Blocks adding with a plain +=: a GPU loses updates, and the CPU backend loses them as a GPU
      // would and names the line.
      {"build/corpus/no_atomics_05", "05", "correctness", "lost update: block (", nullptr, true},
      {"build/corpus/no_sync_05", "05", "correctness", "differs between two runs"},
      // A dot's atomics add in another order in each run, so its last bits differ between the two
      // runs: a result that is wrong in both is not called a race for that, nor is a dot's
      // missing zeroing a matrix's C += ....
      {"build/corpus/no_memset_05", "05", "correctness", "which nobody set to 0 first", "C += "},
      {"build/corpus/no_tail_05", "05", "correctness", "exactly once", "differs between two runs"},
      // float4 loads from a + 1: a GPU faults, and the CPU backend faults as it does.
      {"build/corpus/misaligned_05", "05", "correctness", "cudaErrorMisalignedAddress"},
      {"tests/corpus/fake_success", "01", "correctness", "exit 0 before finishing this shape"},
      {"tests/corpus/cublas_call", "01", "build", "uses cuBLAS (cublas_v2.h)"},
      {"build/corpus/interpose", "01", "build", "defines getrandom, which another part of the lab program"},
      {"build/corpus/interpose_cxx", "01", "build", "defines std::random_device::_M_getval(), which another part"},
      // The assembler's .incbin of the solution: on a GPU the fenced build does not see it
      // (tests/grading/test_sandbox.cpp tries the fence with g++); the CPU backend refuses any asm.
      {"build/corpus/incbin", "01", "build", "file not found|needs a GPU"},
  };
  // Each entry graded, as many at once as there are cores: one's builds use the cores while
  // another's programs wait on the checks in the grader. make check (the command for after each
  // edit) runs the same build, correctness and safety checks, the same code, and must catch what
  // they catch with the same words: tried on one mistake that each kind of check catches (a
  // compile error, a wrong result with its hint, a race, a lost update, a sanitizer's finding).
  const size_t count = std::size(corpus);
  std::vector<Graded> full(count), quick(count);
  at_once(count, [&](size_t i) {
    const Wrong& w = corpus[i];
    const std::string out = "build/grade-test-reports/corpus-" + std::to_string(i);
    full[i] = grade_fast(w.src, w.lab, {}, {}, out);
    if (w.quick) quick[i] = grade_fast(w.src, w.lab, {"--quick"}, {}, out + "-quick");
  });
  // A loop, not subcases, so that one entry's failure leaves the others checked.
  for (size_t i = 0; i < count; ++i) {
    const Wrong& w = corpus[i];
    CAPTURE(w.src);
    const std::string& output = full[i].run.output;
    CAPTURE(output);
    CHECK(full[i].run.exited(0));
    CHECK(any_of(w.check, [&](const std::string& check) { return contains(check_line(output, check), ": FAIL"); }));
    CHECK(any_of(w.says, [&](const std::string& says) { return contains(output, says); }));
    if (w.never != nullptr) CHECK_FALSE(contains(output, w.never));
    CHECK(below_full_marks(last_line(output)));
    if (w.quick) {
      const std::string& quick_output = quick[i].run.output;
      CAPTURE(quick_output);
      CHECK(quick[i].run.exited(0));
      CHECK(any_of(w.check, [&](const std::string& check) { return contains(check_line(quick_output, check), ": FAIL"); }));
      CHECK(any_of(w.says, [&](const std::string& says) { return contains(quick_output, says); }));
    }
  }
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

TEST_CASE("a program that hangs where no per-shape limit watches it costs seconds, not the rubric's minutes" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  // build/corpus/tool_hang computes correctly, but sleeps forever when a checking tool is loaded
  // into it (here: AddressSanitizer's runtime). The default rubric gives a run 300 s; a run
  // outside a pass gets its floor (30 s on this backend), and the hang ends the check:
  // ThreadSanitizer's build does not run after it.
  const Graded g = run_grader({"--src", "build/corpus/tool_hang", "--lab", "01"});
  CAPTURE(g.run.output);
  REQUIRE(g.run.exited(0));
  CHECK(contains(check_line(g.run.output, "correctness"), ": OK"));
  const std::string safety = check_line(g.run.output, "safety");
  CHECK(contains(safety, ": FAIL"));
  CHECK(contains(g.run.output, "the AddressSanitizer build on M=67 N=45 K=33 timed out after 30.0 s:"));
  CHECK(contains(g.run.output, "(stopped after 30 s, the least time any such run gets)"));
  const size_t open = safety.find('(');
  REQUIRE(open != std::string::npos);
  CHECK(std::stod(safety.substr(open + 1)) < 45);
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

TEST_CASE("the grid limit: a launcher must cap the grid at 65535 blocks along y, on every backend" * doctest::skip(lab_test::kNoCpuSolutions)) {
  const Graded g = run_grader({"--src", "build/corpus/no_cap_02", "--lab", "02", "--rubric", "tests/fixtures/rubric-limits.txt"});
  CAPTURE(g.run.output);
  REQUIRE(g.run.exited(0));
  CHECK(contains(check_line(g.run.output, "correctness"), ": FAIL"));
  CHECK(contains(g.run.output, "exceeds the largest grid dimensions (2147483647,65535,65535)"));
  const Graded capped = run_grader({"--src", "solutions", "--lab", "02", "--rubric", "tests/fixtures/rubric-limits.txt"});
  CAPTURE(capped.run.output);
  CHECK(last_line(capped.run.output) == "Score: 6/6");
}

TEST_CASE("the seed never reaches student code, though `make grade SEED=N` exports it" * doctest::skip(lab_test::kNoCpuSolutions)) {
  // build/corpus/seed_reader_01 is the solution, except that it dies when SEED is in its environment.
  const Graded g = grade_fast("build/corpus/seed_reader_01", "01", {}, {"SEED=4242", "MAKEFLAGS=SEED=4242"});
  CAPTURE(g.run.output);
  REQUIRE(g.run.exited(0));
  CHECK(last_line(g.run.output) == "Score: 8/8");
}

TEST_CASE("a lab file that is a link, a FIFO or empty fails the build with a line that says so" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  const std::string root = "build/test/odd-files";
  lab::run_command({"rm", "-rf", root});
  auto lab_dir = [&](const std::string& name) {
    const std::string dir = root + "/" + name + "/01_matmul_naive";
    lab::run_command({"mkdir", "-p", dir});
    return dir;
  };
  const std::string solution = std::filesystem::current_path().string() + "/solutions/01_matmul_naive";
  lab::run_command({"ln", "-s", solution + "/matmul_naive.cu", lab_dir("file_link") + "/matmul_naive.cu"});
  lab::run_command({"mkdir", "-p", root + "/folder_link"});
  lab::run_command({"ln", "-s", solution, root + "/folder_link/01_matmul_naive"});
  lab::run_command({"mkfifo", lab_dir("fifo") + "/matmul_naive.cu"});
  std::ofstream(lab_dir("empty") + "/matmul_naive.cu") << "";
  const std::pair<const char*, const char*> cases[] = {
      {"file_link", "matmul_naive.cu is a symbolic link: hand in the file itself"},
      {"folder_link", "01_matmul_naive is a symbolic link: hand in the file itself"},
      {"fifo", "matmul_naive.cu is not a regular file"},
      {"empty", "matmul_naive.cu does not define matmul_naive(...), a launcher the lab program calls"},
  };
  for (const auto& [name, says] : cases) {
    SUBCASE(name) {
      const Graded g = grade_fast(root + "/" + name, "01");
      CAPTURE(g.run.output);
      REQUIRE(g.run.exited(0));
      CHECK(contains(check_line(g.run.output, "build"), ": FAIL"));
      CHECK(contains(g.run.output, says));
      CHECK(last_line(g.run.output) == "Score: 0/8");
    }
  }
}

TEST_CASE("a hostile submission cannot make itself pass, even where namespaces are missing" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  // It computes correctly, then rewrites the reports, replaces its other builds (the watched
  // and the sanitizers') with a script that exits 0, and leaves a daemon rewriting the reports (build/corpus/tamper). With
  // no read-only view of the builds, the fingerprints catch it.
  const std::string out = "build/grade-test-reports/tamper";
  const Graded g = run_grader({"--src", "build/corpus/tamper", "--lab", "01", "--rubric", "tests/fixtures/rubric-fast.txt",
                          "--no-namespaces"},
                         /*fresh_build=*/true, out);
  CAPTURE(g.run.output);
  REQUIRE(g.run.exited(0));
  // The first build it replaces to run is the watched one, the correctness check's third pass.
  CHECK(contains(check_line(g.run.output, "correctness"), ": FAIL"));
  CHECK(contains(g.run.output, "changed after it was built"));
  CHECK(last_line(g.run.output) == "Score: 2.3/8");
  // The reports are the grader's, written after every process of the submission was killed.
  lab::run_command({"sleep", "0.5"});
  const std::string json = read_file(out + "/results.json");
  CHECK(contains(json, "\"score\": 2.3"));
  CHECK_FALSE(contains(json, "999"));
  CHECK_FALSE(lab::run_command({"pgrep", "-x", "tamper_daemon"}).exited(0));
}

TEST_CASE("a submission's build reads its own file and the lab's headers, nothing else" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  // The solution, included by the name the checkout gives it, by its absolute path, and by a
  // path that climbs out of wherever the private copy is, built by macros: the build does not
  // see it. A file of the checkout it does see, but that is not one of the lab's headers (the
  // harness's own copy of one), is refused after the build.
  const std::string root = "build/test/includes";
  const std::string checkout = std::filesystem::current_path().string();
  const std::string solution = checkout + "/solutions/01_matmul_naive/matmul_naive.cu";
  const std::pair<const char*, std::string> cases[] = {
      {"by_name", "#include \"solutions/01_matmul_naive/matmul_naive.cu\"\n"},
      {"absolute", "#include \"" + solution + "\"\n"},
      {"by_macro", "#define TEXT(x) #x\n#define PATH(x) TEXT(x)\n#include PATH(../../../../../../../../../.." + solution + ")\n"},
      {"harness", "#include \"" + checkout + "/harness/launchers.h\"\n" + read_file("solutions/01_matmul_naive/matmul_naive.cu")},
  };
  for (const auto& [name, text] : cases) {
    SUBCASE(name) {
      const std::string dir = root + "/" + name + "/01_matmul_naive";
      lab::run_command({"mkdir", "-p", dir});
      std::ofstream(dir + "/matmul_naive.cu") << text;
      const Graded g = grade_fast(root + "/" + name, "01");
      CAPTURE(g.run.output);
      REQUIRE(g.run.exited(0));
      CHECK(contains(check_line(g.run.output, "build"), ": FAIL"));
      if (std::string(name) == "harness") {
        CHECK(contains(g.run.output, "is none of the lab's headers"));
      } else {
        CHECK(contains(g.run.output, "No such file or directory"));
        CHECK(contains(g.run.output, "a lab file may read the lab's headers"));
      }
      CHECK(last_line(g.run.output) == "Score: 0/8");
    }
  }
  SUBCASE("the toolkit's and the compiler's own headers are welcome") {
    // The fair side: a correct file that includes more of the toolkit and the C++ library, and
    // defines a variable and helpers of its own that instantiate the library's templates.
    const std::string dir = root + "/system/01_matmul_naive";
    lab::run_command({"mkdir", "-p", dir});
    std::ifstream in("solutions/01_matmul_naive/matmul_naive.cu");
    std::ofstream(dir + "/matmul_naive.cu")
        << "#include <cuda_runtime_api.h>\n#include <device_launch_parameters.h>\n#include <cmath>\n#include <vector>\n"
        << in.rdbuf()
        << "\nfloat last_total = 0.0f;  // a variable at file scope, as a __device__ array of partial sums is\n"
           "std::vector<float> copy_of(const float* p, int n) { return std::vector<float>(p, p + n); }\n"
           "float sum_of(const std::vector<float>& v) { float s = 0; for (float x : v) s += x; return s; }\n";
    const Graded g = grade_fast(root + "/system", "01");
    CAPTURE(g.run.output);
    REQUIRE(g.run.exited(0));
    CHECK(last_line(g.run.output) == "Score: 8/8");
  }
}

TEST_CASE("a folder of any name is graded like any other, and no command in a name runs" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  const std::string root = std::filesystem::absolute("build/test/names").string();
  lab::run_command({"rm", "-rf", root});
  const std::string name = "José Ñ O'Brien \"q\" $(touch ran1) `touch ran2` (p) inj$(shell touch ran3)";
  const std::string dir = root + "/" + name + "/01_matmul_naive";
  lab::run_command({"mkdir", "-p", dir});
  lab::run_command({"cp", "solutions/01_matmul_naive/matmul_naive.cu", dir});
  const Graded g = grade_fast(root + "/" + name, "01");
  CAPTURE(g.run.output);
  REQUIRE(g.run.exited(0));
  CHECK(last_line(g.run.output) == "Score: 8/8");
  // make grade hands the name on quoted, expanding nothing in it (-n: what it would run).
  const lab::RunResult make = lab::run_command({"make", "-n", "grade", "SRC=" + root + "/" + name, "LAB=01"});
  CAPTURE(make.output);
  CHECK(contains(make.output, "--src '" + root + "/José Ñ O'\\''Brien \"q\" $(touch ran1) `touch ran2` (p) inj$(shell touch ran3)'"));
  for (const char* ran : {"ran1", "ran2", "ran3"}) CHECK_FALSE(std::filesystem::exists(ran));
}

TEST_CASE("a submission cannot plant a grader, a rubric or a Makefile for the next grading" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  // build/corpus/plant unmounts or remounts the checkout writable if it can, then writes a fake
  // build/host/grade and appends to the rubric and the Makefile of the checkout it is told of.
  const std::vector<std::string> trusted = {"build/host/grade", "grading/rubric.txt", "Makefile"};
  auto sums = [&] {
    std::string text;
    for (const std::string& path : trusted) text += lab::run_command({"sha256sum", path}).output;
    return text;
  };
  const std::string before = sums();
  const Graded g = grade_fast("build/corpus/plant", "01", {},
                              {"PLANT_CHECKOUT=" + std::filesystem::current_path().string()});
  CAPTURE(g.run.output);
  REQUIRE(g.run.exited(0));
  CHECK(contains(g.run.output, "the checkout and the builds read-only"));
  CHECK(last_line(g.run.output) == "Score: 8/8");
  CHECK(sums() == before);
  // The next grading is the real grader's.
  const lab::RunResult next = lab::run_command({"build/host/grade", "--help"});
  CHECK(contains(next.output, "Grades the labs of a source folder"));
}

TEST_CASE("the fences hold: memory, file size, network, a flood of output, a storm of processes" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  // build/corpus/fences spoils its result with 1001, 1002, 1003 or 1004 when a fence gives way,
  // prints 100 MB and leaves 300 sleeping processes behind in every run.
  const Graded g = grade_fast("build/corpus/fences", "01");
  CAPTURE(g.run.output);
  REQUIRE(g.run.exited(0));
  CHECK(last_line(g.run.output) == "Score: 8/8");
  // A root grader (CI's) hands student code to a user of its own, whom the process limit binds.
  if (geteuid() == 0) CHECK(contains(g.run.output, " (no other grading running here shares it)"));
  CHECK(contains(g.run.output, "4096 processes and threads of its user"));
  CHECK_FALSE(lab::run_command({"pgrep", "-x", "fence_child"}).exited(0));
  // Where namespaces are missing the network is reachable, and the submission says so (the test can fail).
  const Graded open = grade_fast("build/corpus/fences", "01", {"--no-namespaces"});
  CAPTURE(open.run.output);
  CHECK(contains(open.run.output, "network reachable"));
  CHECK(contains(open.run.output, "got 1003"));
}

TEST_CASE("labs graded at once: no student program runs beside a solution's, which it could kill" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  // Lab 01 kills every solution program it finds while it runs (build/corpus/killer); the other
  // labs are skeletons, graded meanwhile by the second job, each check of correctness starting
  // with the solution's run of the shapes. A shape whose solution run died is left out of the
  // score: with a kernel wrong at it, a shortcut to points.
  const std::string root = "build/grade-test-reports/killer-src";
  lab::run_command({"rm", "-rf", root});
  lab::run_command({"cp", "-r", "build/skeletons", root});
  lab::run_command({"rm", "-rf", root + "/01_matmul_naive"});
  lab::run_command({"cp", "-r", "build/corpus/killer/01_matmul_naive", root + "/"});
  const Graded g = run_grader({"--src", root, "--rubric", "tests/fixtures/rubric-fast.txt", "--jobs", "2"});
  CAPTURE(g.run.output);
  REQUIRE(g.run.exited(0));
  CHECK_FALSE(contains(g.run.output, "left out"));
  CHECK(contains(g.run.output, "\nlab 01: "));
  CHECK(last_line(g.run.output).rfind("Score: ", 0) == 0);
  CHECK(contains(g.run.output, "\nlab 05: 0/10"));
}

TEST_CASE("a student's program sees neither the solution nor its program, the history or another run's outputs" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  // build/corpus/peek spoils its result with 1005-1008 when it can read the solution's source,
  // the checkout's .git, the solution's lab program or the scratch folder's other runs.
  const std::vector<std::string> env = {"PEEK_CHECKOUT=" + std::filesystem::current_path().string()};
  const Graded g = grade_fast("build/corpus/peek", "01", {}, env);
  CAPTURE(g.run.output);
  REQUIRE(g.run.exited(0));
  CHECK(last_line(g.run.output) == "Score: 8/8");
  // Where namespaces are missing and student code runs as the grader's user, all of it is there
  // (the test can fail).
  const Graded open = grade_fast("build/corpus/peek", "01", {"--no-namespaces"}, env);
  CAPTURE(open.run.output);
  CHECK(contains(open.run.output, "got 100"));
}

// A grader that is not root: a user of the pool here, who may make a user namespace where this
// machine lets unprivileged users (Debian and Ubuntu do by default).
const bool kNoUserNamespace = geteuid() != 0 ||
    !lab::run_command(as_user(*grade::StudentUid::take(), {"unshare", "--user", "--map-root-user", "--mount", "--net", "true"})).exited(0);

TEST_CASE("a grader that is not root fences student code in a user namespace" *
          doctest::skip(lab_test::kNoCpuSolutions || kNoUserNamespace)) {
  // The peek entry, graded by a user of the pool: its programs run as that user too, in namespaces of
  // their own, and find neither the solution, the history, the solution's program nor another
  // run's outputs. The grader's own folders are fresh ones in /tmp.
  const std::string out = "/tmp/grade-not-root-" + std::to_string(getpid());
  lab::RunOptions options;
  options.timeout_s = 900;
  options.env = {"PEEK_CHECKOUT=" + std::filesystem::current_path().string()};
  const std::unique_ptr<grade::StudentUid> uid = grade::StudentUid::take();
  const lab::RunResult r = lab::run_command(as_user(*uid, {"build/host/grade", "--backend", "cpu", "--seed", "4242", "--src", "build/corpus/peek",
                                                           "--lab", "01", "--rubric", "tests/fixtures/rubric-fast.txt", "--out", out,
                                                           "--build-dir", out + "/build"}),
                                            options);
  CAPTURE(r.output);
  REQUIRE(r.exited(0));
  CHECK(contains(r.output, "(sandbox: each student process runs in a folder of its own; limits:"));
  CHECK(contains(r.output, "no network; the checkout and the builds read-only)"));
  CHECK(last_line(r.output) == "Score: 8/8");
  lab::run_command({"rm", "-rf", out});
}

TEST_CASE("eight gradings at once from one checkout each get their own report" * doctest::skip(lab_test::kNoCpuSolutions)) {
  // Four copies of the solution and four of the skeleton, in folders of their own, graded at
  // once into the default report folders (build/grade/<run>/), each into its own history.
  const std::string root = "build/test/concurrent";
  lab::run_command({"rm", "-rf", root});
  std::vector<std::thread> runs;
  std::vector<lab::RunResult> results(8);
  for (int i = 0; i < 8; ++i) {
    const std::string src = root + "/" + std::to_string(i);
    lab::run_command({"mkdir", "-p", src + "/01_matmul_naive"});
    std::filesystem::remove_all(std::filesystem::path(grade::history_path(grade::kProgressRoot, src)).parent_path());
    lab::run_command({"cp", i % 2 ? "labs/01_matmul_naive/matmul_naive.cu" : "solutions/01_matmul_naive/matmul_naive.cu",
                      src + "/01_matmul_naive/"});
    runs.emplace_back([&results, i, src] {
      lab::RunOptions options;
      options.timeout_s = 1200;
      results[i] = lab::run_command({"build/host/grade", "--backend", "cpu", "--seed", "4242", "--build-dir", kSharedBuild,
                                     "--src", src, "--lab", "01", "--rubric", "tests/fixtures/rubric-fast.txt"},
                                    options);
    });
  }
  for (std::thread& t : runs) t.join();
  std::vector<std::string> folders;
  for (int i = 0; i < 8; ++i) {
    const std::string& out = results[i].output;
    CAPTURE(out);
    REQUIRE(results[i].exited(0));
    const size_t at = out.find("(reports: ");
    REQUIRE(at != std::string::npos);
    const std::string folder = out.substr(at + 10, out.find("/results.json", at) - at - 10);
    folders.push_back(folder);
    const std::string json = read_file(folder + "/results.json");
    CHECK(contains(json, i % 2 ? "\"score\": 0," : "\"score\": 8,"));
    CHECK(contains(json, root + "/" + std::to_string(i)));
    const grade::History history = grade::read_history(grade::history_path(grade::kProgressRoot, root + "/" + std::to_string(i)));
    CHECK(history.problems.empty());
    REQUIRE(history.lines.size() == 1);
    CHECK(history.lines[0].points == (i % 2 ? 0 : 8));
    CHECK(history.lines[0].report == folder);
  }
  std::sort(folders.begin(), folders.end());
  CHECK(std::unique(folders.begin(), folders.end()) == folders.end());
}

TEST_CASE("the grader's own failures exit 2 with a message") {
  struct Bad {
    std::vector<std::string> args;
    const char* says;
  };
  const Bad cases[] = {
      {{"--backend", "tpu"}, "BACKEND must be gpu or cpu"},
      {{"--src", "no/such/folder"}, "no folder 'no/such/folder'"},
      {{"--lab", "09"}, "no lab '09'"},
      {{"--rubric", "tests/fixtures/skeleton/solution.cu"}, "solution.cu:1: expected 'key = value'"},
      {{"--seed", "x"}, "--seed takes a whole number"},
      {{"--rubric", "build/test/rubric-bad-main.txt"}, "main shape '3x3x3' is not one of the shapes listed above it"},
      // A rubric of before the technique was measured.
      {{"--rubric", "build/test/rubric-old-technique.txt"},
       "rubric-old-technique.txt:2: technique is none, or one or more of reuse=BYTES_PER_FMA, outputs_per_thread=N, "
       "coalesced=SHARE, bank_conflicts=WAYS and one_pass"},
  };
  std::ofstream("build/test/rubric-old-technique.txt") << "[02_matmul_tiled]\ntechnique = shared_memory\n";
  // A main shape must be one of the lab's shapes.
  std::ofstream("build/test/rubric-bad-main.txt") << "[01_matmul_naive]\nshapes = 17x31x13\nmain_shapes = 3x3x3\n";
  const std::string out = "build/test/could-not-grade";
  for (const Bad& bad : cases) {
    CAPTURE(std::string(bad.says));
    // An earlier run's report, which must not pass for this one's.
    lab::run_command({"mkdir", "-p", out});
    std::ofstream(out + "/results.json") << "{\"score\": 58, \"tests\": []}\n";
    std::vector<std::string> argv = {"build/host/grade", "--out", out};
    argv.insert(argv.end(), bad.args.begin(), bad.args.end());
    const lab::RunResult r = lab::run_command(argv);
    CHECK_MESSAGE(r.exited(2), r.describe() << ": " << r.output);
    CHECK(contains(r.output, bad.says));
    const std::string json = read_file(out + "/results.json");
    if (std::string(bad.says).rfind("--seed", 0) == 0) {
      CHECK(contains(json, "\"score\": 58"));  // the arguments never got as far as naming the folder
    } else {
      CHECK(contains(json, "\"score\": 0,"));
      CHECK(contains(json, "could not grade this submission: "));
    }
  }
}

// Whether this machine lets the tests make a mount namespace (to put a tiny disk under /tmp).
using lab_test::kNoMountNamespace;

// Runs the grader on SUBMISSION lab 01 under PREFIX (a command that sets up a fault), into OUT
// over an earlier run's report, and returns the run and the results.json it left.
Graded grade_with_fault(const std::vector<std::string>& prefix, const std::string& submission, const std::string& out,
                        const std::vector<std::string>& more_args = {}) {
  lab::run_command({"mkdir", "-p", out});
  lab::run_command({"chmod", "777", out});
  std::ofstream(out + "/results.json") << "{\"score\": 58, \"tests\": []}\n";
  std::vector<std::string> argv = prefix;
  argv.insert(argv.end(), {"build/host/grade", "--src", submission, "--lab", "01", "--out", out});
  argv.insert(argv.end(), more_args.begin(), more_args.end());
  Graded g;
  lab::RunOptions options;
  options.timeout_s = 600;
  g.run = lab::run_command(argv, options);
  g.results_json = read_file(out + "/results.json");
  return g;
}

TEST_CASE("a fault of the machine is 'could not grade' (exit 2), never the student's 0") {
  SUBCASE("a missing tool") {
    const Graded g = grade_with_fault({"env", "PATH=/nonexistent"}, "labs", "build/test/fault-tool");
    CAPTURE(g.run.output);
    CHECK(g.run.exited(2));
    CHECK(contains(g.run.output, "'make' is not installed"));
    CHECK(contains(g.results_json, "could not grade this submission: "));
  }
  SUBCASE("a child of the grader killed") {
    // A make that is killed as soon as it starts: the solution's build, the first, fails.
    lab::run_command({"mkdir", "-p", "build/test/fault-bin"});
    std::ofstream("build/test/fault-bin/make") << "#!/bin/sh\nkill -KILL $$\n";
    lab::run_command({"chmod", "755", "build/test/fault-bin/make"});
    const std::string path = std::filesystem::absolute("build/test/fault-bin").string() + ":" + std::getenv("PATH");
    const Graded g = grade_with_fault({"env", "PATH=" + path}, "labs", "build/test/fault-killed");
    CAPTURE(g.run.output);
    CHECK(contains(g.run.output, "(make killed by SIGKILL)"));
    // Where the solution is missing (a student's release), the student's own build is the
    // first: the report says what happened, but cannot tell it from a build the file broke.
    if (!lab_test::kNoSolutions) CHECK(g.run.exited(2));
  }
  SUBCASE("a lab file the grader may not read") {
    // Root reads anything: as root, the grader runs as a user of the pool for this one.
    const std::string dir = "/tmp/fault-unreadable/01_matmul_naive";
    lab::run_command({"mkdir", "-p", dir});
    std::ofstream(dir + "/matmul_naive.cu") << "// a lab file\n";
    lab::run_command({"chmod", "000", dir + "/matmul_naive.cu"});
    const std::unique_ptr<grade::StudentUid> uid = geteuid() == 0 ? grade::StudentUid::take() : nullptr;
    const Graded g = grade_with_fault(uid ? as_user(*uid) : std::vector<std::string>{}, "/tmp/fault-unreadable",
                                      "/tmp/fault-unreadable-out");
    CAPTURE(g.run.output);
    CHECK(g.run.exited(2));
    CHECK(contains(g.run.output, "cannot read /tmp/fault-unreadable/01_matmul_naive/matmul_naive.cu"));
    CHECK(contains(g.results_json, "could not grade this submission: "));
    lab::run_command({"rm", "-rf", "/tmp/fault-unreadable", "/tmp/fault-unreadable-out"});
  }
}

TEST_CASE("a root grader in a checkout that its student user cannot read says so (exit 2)" *
          doctest::skip(geteuid() != 0 || kNoMountNamespace)) {
  // A checkout in a folder only root may enter (as under /root): the user who builds and runs
  // student code for a root grader, could do neither, and no student may lose points for it.
  const std::string home = std::filesystem::temp_directory_path() / ("root-only-" + std::to_string(getpid()));
  const std::string copy = home + "/checkout";
  std::filesystem::create_directories(copy + "/build");
  chmod(home.c_str(), 0700);
  REQUIRE(lab_test::copy_checkout(copy));
  REQUIRE(lab::run_command({"cp", "-a", "build/host", copy + "/build/"}).exited(0));
  lab::RunOptions options;
  options.cwd = copy;
  const lab::RunResult r = lab::run_command({"build/host/grade", "--backend", "cpu", "--src", "labs", "--lab", "01", "--out", home + "/out"}, options);
  CAPTURE(r.output);
  CHECK(r.exited(2));
  CHECK(contains(r.output, ", which runs student code for a grader that is root, cannot read " + copy));
  CHECK(contains(read_file(home + "/out/results.json"), "could not grade this submission: "));
  std::filesystem::remove_all(home);
}

TEST_CASE("a full disk is 'could not grade' (exit 2), never the student's 0" *
          doctest::skip(lab_test::kNoCpuSolutions || kNoMountNamespace)) {
  // The grader's build and scratch folders on a disk of 2 MiB: the solution's build runs out of
  // room before the student's starts. The disk is mounted, in a namespace of the grader's own,
  // over a folder outside the checkout wherever that is (/mnt), which the student user can read.
  const Graded g = grade_with_fault({"unshare", "--mount", "--", "sh", "-c",
                                     "mount -t tmpfs -o size=2m,mode=1777 tmpfs /mnt && TMPDIR=/mnt exec \"$@\"", "sh"},
                                    "solutions", "build/test/fault-disk", {"--build-dir", "/mnt/build"});
  CAPTURE(g.run.output);
  CHECK(g.run.exited(2));
  CHECK(contains(g.run.output, "does not build here"));
  CHECK(contains(g.results_json, "could not grade this submission: "));
}

}  // TEST_SUITE
