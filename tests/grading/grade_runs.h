// What the grader's tests share (test_grade.cpp, test_grade_corpus.cpp, test_grade_fences.cpp):
// running the grader on the CPU backend, in the build folder the runs share, and reading what
// it printed. The three programs run at once, each in its own report folders.
#pragma once

#include <doctest/doctest.h>

#include <errno.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/labs.h"
#include "grading/core/student_uid.h"
#include "tests/lab_programs.h"
#include "tools/subprocess.h"

namespace grade_test {

// The build folder the runs share; their reports go beside it, never in it (the grader empties
// a build folder when it changes, and refuses one holding files it did not make).
inline constexpr const char* kSharedBuild = "build/grade-tests";

// Where a grading's reports go unless a test names a folder: one per test program, since they
// run at once.
inline std::string default_out() { return std::string("build/grade-test-reports/") + program_invocation_short_name + "/out"; }

struct Graded {
  tools::RunResult run;
  std::string results_json;
};

using lab_test::read_file;

// COMMAND run as UID's user, one that is not root and that no grading running beside the test
// shares (grading/core/student_uid.h); without COMMAND, the prefix that does it.
inline std::vector<std::string> as_user(const grade::StudentUid& uid, const std::vector<std::string>& command = {}) {
  const std::string id = std::to_string(uid.uid());
  std::vector<std::string> argv = {"setpriv", "--reuid=" + id, "--regid=" + id, "--clear-groups", "--"};
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

inline Graded run_grader(const std::vector<std::string>& args, bool fresh_build = false, const std::string& out = default_out(),
             const std::vector<std::string>& env = {}) {
  std::vector<std::string> argv = {"build/host/grade", "--backend", "cpu", "--seed", "4242", "--out", out};
  if (!fresh_build) argv.insert(argv.end(), {"--build-dir", kSharedBuild});
  argv.insert(argv.end(), args.begin(), args.end());
  tools::RunOptions options;
  options.timeout_s = 1200;
  options.env = env;
  Graded g;
  g.run = tools::run_command(argv, options);
  g.results_json = read_file(out + "/results.json");
  return g;
}

// Grades lab LAB of SRC on the fast rubric (a few small shapes), as most of these tests do.
inline Graded grade_fast(const std::string& src, const std::string& lab, const std::vector<std::string>& more_args = {},
                  const std::vector<std::string>& env = {}, const std::string& out = default_out()) {
  std::vector<std::string> args = {"--src", src, "--lab", lab, "--rubric", "tests/fixtures/rubric-fast.txt"};
  args.insert(args.end(), more_args.begin(), more_args.end());
  return run_grader(args, false, out, env);
}

// Calls WORK(i) for every i < COUNT, as many at once as this machine has cores, and returns when
// all are done. For gradings that share the build folder, each with reports of its own: the
// folder's lock takes their builds one at a time, and while one builds, another's programs run
// (on 2 cores, the corpus's 30 gradings took 516 s one after another).
inline void at_once(size_t count, const std::function<void(size_t)>& work) {
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
inline std::string check_line(const std::string& output, const std::string& check) {
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
inline std::string last_line(const std::string& output) {
  std::string text = output;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text.substr(text.rfind('\n') + 1);
}

// Whether SCORE, "Score: X/Y", has X below Y.
inline bool below_full_marks(const std::string& score) {
  const size_t slash = score.find('/');
  if (score.rfind("Score: ", 0) != 0 || slash == std::string::npos) return false;
  return std::stod(score.substr(7, slash - 7)) < std::stod(score.substr(slash + 1));
}

// Whether `pred` holds for one of the '|'-separated alternatives in `options`.
template <class Pred>
inline bool any_of(const std::string& options, Pred pred) {
  std::istringstream in(options);
  for (std::string option; std::getline(in, option, '|');) {
    if (pred(option)) return true;
  }
  return false;
}

// Grades every lab of SRC, JOBS at a time, on RUBRIC, and checks what any such grading prints: exit 0,
// SCORE as its last line, and the labs one after another, whatever order they finished in:
// each lab's header, then its subtotal line, which starts with "lab NN: " + SUBTOTAL; a lab in
// steps, each step's, in their order ("== lab 03 matmul_register, step 1 (1d): ...", then
// "lab 03, step 1: " + SUBTOTAL).
inline Graded grade_every_lab(const std::string& src, const std::string& score, const std::string& subtotal, int jobs = 1,
                              const std::string& rubric = "grading/rubric.txt") {
  const Graded g = run_grader({"--src", src, "--jobs", std::to_string(jobs), "--rubric", rubric});
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

inline bool valid_json(const std::string& path) {
  return tools::run_command({"python3", "-c", "import json,sys; json.load(open(sys.argv[1]))", path}).exited(0);
}

}  // namespace grade_test
