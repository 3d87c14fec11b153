// Test helpers that run lab programs as separate processes: a wrong or crashing student
// file must fail its test, not take the test binary down with it.
#pragma once

#include <glob.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "tools/subprocess.h"
#include "tools/text.h"

namespace lab_test {

// The backends whose lab programs `make test` built: "cpu", and "gpu" on a GPU machine.
inline std::vector<std::string> backends() {
  const char* env = std::getenv("LAB_TEST_BACKENDS");
  std::istringstream words(env != nullptr ? env : "cpu");
  std::vector<std::string> out;
  for (std::string w; words >> w;) out.push_back(w);
  return out;
}

// build/<backend>/bin/<source folder>/<lab>, as the Makefile names it.
inline std::string program(const std::string& backend, const std::string& source, const std::string& lab) {
  return "build/" + backend + "/bin/" + source + "/" + lab;
}

// Runs a lab program with arguments, a time limit generous for the CPU backend.
inline tools::RunResult run(const std::string& program, const std::vector<std::string>& args,
                            double timeout_s = 120) {
  std::vector<std::string> argv = {program};
  argv.insert(argv.end(), args.begin(), args.end());
  tools::RunOptions options;
  options.timeout_s = timeout_s;
  return tools::run_command(argv, options);
}

// The whole of a file, or "" when it cannot be read.
inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Whether this user may make a mount namespace, which the sandbox's tests need.
inline const bool kNoMountNamespace = !tools::run_command({"unshare", "--mount", "true"}).exited(0);

// Copies the checkout's files (tracked, and new ones git does not ignore; not its history or
// builds) into DEST, an existing folder, for a test that changes or removes some of them.
inline bool copy_checkout(const std::string& dest) {
  return tools::run_command({"sh", "-c", "git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -C \"$1\" -xf -",
                             "sh", dest}).exited(0);
}

// Copies FROM/PART (a file or folder) to TO/PART, times kept, where it exists.
inline void copy_part(const std::string& from, const std::string& to, const std::string& part) {
  namespace fs = std::filesystem;
  if (!fs::exists(from + "/" + part)) return;
  fs::create_directories(fs::path(to + "/" + part).parent_path());
  tools::run_command({"cp", "-a", from + "/" + part, fs::path(to + "/" + part).parent_path().string()});
}

// The checkout's builds that a copy of it (copy_checkout, or make release's) may reuse: the CPU
// backend's runtime, whose cache holds content stamps (cpusim/cpusim.mk); the host objects, (with
// TESTS) test programs and the CPU backend's suite, made from the same files with the same times, so that
// make finds them up to date in the copy exactly where it would here; and of the grader's build
// folder of the tests (build/grade-tests, made ready before the tests start: mk/tests.mk), what
// every lab program links in each CPU flavor, the solutions' programs and its stamp, which holds
// in the copy as the grader and the makefiles are the same (grading/core/grade.cpp). These parts
// are written once, before the tests, so a copy made while other tests grade reads them whole.
// Of the grader's build folder of the tests, what a grader with the same program and makefiles
// finds up to date in the build folder FOLDER: see reuse_builds.
inline void reuse_grader_builds(const std::string& folder) {
  for (const char* made : {".grader-stamp", "cpusim", "host"}) copy_part("build/grade-tests", folder, made);
  for (const char* flavor : {"cpu", "cpu-asan", "cpu-tsan", "cpu-count"}) {
    for (const char* parts : {"obj/harness", "obj/common", "obj/solutions", "bin/solutions"}) {
      copy_part("build/grade-tests", folder, std::string(flavor) + "/" + parts);
    }
  }
}

// The same parts again for the copy's own build folder (build/, where make run, make profile
// and make program put them), in the flavors the checkout's build/ lacks them: the
// sanitizers' and the counting one. Their dependency files name the targets they were made
// as, which are then the copy's.
inline void reuse_flavor_parts(const std::string& copy) {
  for (const char* flavor : {"cpu-asan", "cpu-tsan", "cpu-count"}) {
    for (const char* parts : {"obj/harness", "obj/common"}) {
      const std::string part = std::string(flavor) + "/" + parts;
      copy_part("build/grade-tests", copy + "/build", part);
      tools::run_command({"sh", "-c", "find \"$1\" -name '*.d' -exec sed -i 's|build/grade-tests/|build/|g' {} +", "sh",
                          copy + "/build/" + part});
    }
  }
}

inline void reuse_builds(const std::string& copy, bool tests = false) {
  for (const char* made : {"cpusim", "host"}) copy_part("build", copy + "/build", made);
  if (tests) {
    for (const char* made : {"test", "cpu/cpusim-suite"}) copy_part("build", copy + "/build", made);
  }
  reuse_grader_builds(copy + "/build/grade-build");
  reuse_flavor_parts(copy);
}

using tools::contains;

// A problem size, as the lab program's arguments.
struct Shape {
  std::string name;
  std::vector<std::string> args;
};

inline Shape matmul(int64_t M, int64_t N, int64_t K) {
  const std::string m = std::to_string(M), n = std::to_string(N), k = std::to_string(K);
  return {m + "x" + n + "x" + k, {"--m", m, "--n", n, "--k", k}};
}

// Where the tests find solutions' and skeletons' programs; the skeletons are generated from
// the solutions into build/skeletons, so a learner's own labs/ never changes these tests.
inline const char* kSolutions = "solutions";
inline const char* kSkeletons = "build_skeletons";

inline bool have_solutions() {
  glob_t found;
  const bool any = glob("solutions/*/*.cu", 0, nullptr, &found) == 0;
  globfree(&found);
  return any;
}

inline bool testing_backend(const std::string& backend) {
  const std::vector<std::string> all = backends();
  return std::find(all.begin(), all.end(), backend) != all.end();
}

// Decided once, when the tests are registered, for doctest::skip: a test that needs what this
// checkout lacks (the solutions: a student's release has none; the CPU backend: left out by
// LAB_TEST_BACKENDS; a GPU: there is none) is reported as skipped, never as passed.
inline const bool kNoSolutions = !have_solutions();
inline const bool kNoCpuSolutions = kNoSolutions || !testing_backend("cpu");
inline const bool kNoGpuSolutions = kNoSolutions || !testing_backend("gpu");

// The solution's lab program passes its check on every shape, on every backend. These helpers
// check the shape they are given and no other: --no-edges skips the lab program's own edge
// check (tests/harness/test_run_edges.cpp tests that).
inline void check_solution_passes(const std::string& lab, const std::vector<Shape>& shapes) {
  REQUIRE(have_solutions());
  for (const std::string& backend : backends()) {
    for (const Shape& shape : shapes) {
      SUBCASE((backend + " " + shape.name).c_str()) {
        std::vector<std::string> args = shape.args;
        args.push_back("--no-time");
        args.push_back("--no-edges");
        const tools::RunResult r = run(program(backend, kSolutions, lab), args);
        CAPTURE(r.output);
        CHECK_MESSAGE(r.exited(0), r.describe());
        CHECK(contains(r.output, "check    PASS"));
      }
    }
  }
}

// The skeleton's program runs to the end and reports a wrong result: exit 1, no crash.
inline void check_skeleton_fails(const std::string& lab, const std::vector<Shape>& shapes) {
  REQUIRE(have_solutions());
  for (const std::string& backend : backends()) {
    for (const Shape& shape : shapes) {
      SUBCASE((backend + " " + shape.name).c_str()) {
        std::vector<std::string> args = shape.args;
        args.push_back("--no-edges");
        const tools::RunResult r = run(program(backend, kSkeletons, lab), args);
        CAPTURE(r.output);
        CHECK_MESSAGE(r.exited(1), r.describe());
        CHECK(contains(r.output, "check    FAIL"));
      }
    }
  }
}

// Bad arguments: one line on stderr and exit 2, before anything runs.
inline void check_bad_arguments(const std::string& lab, const std::vector<std::string>& args, const std::string& says) {
  REQUIRE(have_solutions());
  for (const std::string& backend : backends()) {
    CAPTURE(backend);
    const tools::RunResult r = run(program(backend, kSolutions, lab), args);
    CAPTURE(r.output);
    CHECK_MESSAGE(r.exited(2), r.describe());
    CHECK(contains(r.output, says));
  }
}

inline Shape transpose(int64_t rows, int64_t cols) {
  const std::string r = std::to_string(rows), c = std::to_string(cols);
  return {r + "x" + c, {"--rows", r, "--cols", c}};
}

inline Shape dot(int64_t n) { return {"n=" + std::to_string(n), {"--n", std::to_string(n)}}; }

// The program of a wrong submission of tests/corpus/corpus.txt, as the Makefile builds it.
inline std::string corpus_program(const std::string& flavor, const std::string& name, const std::string& lab) {
  return program(flavor, "build_corpus_" + name, lab);
}

// A wrong submission's program does not pass on `shape`: run under each of the given
// CPU-backend schedules (environment entries), at least one run fails its check (exit 1) or
// dies (a write far outside the output can corrupt the heap), and none hangs. A race such as
// a missing __syncthreads shows under some schedules only, which is why the grader runs two.
inline void check_mutant_caught(const std::string& name, const std::string& lab, const Shape& shape,
                                const std::vector<std::string>& schedules = {"CPUSIM_SCHEDULE=forward",
                                                                             "CPUSIM_SCHEDULE=reverse"}) {
  REQUIRE((have_solutions() && testing_backend("cpu")));
  bool caught = false;
  std::string outputs;
  for (const std::string& schedule : schedules) {
    std::vector<std::string> argv = {corpus_program("cpu", name, lab)};
    argv.insert(argv.end(), shape.args.begin(), shape.args.end());
    argv.push_back("--no-time");
    argv.push_back("--no-edges");
    tools::RunOptions options;
    options.timeout_s = 120;
    options.env = {schedule};
    const tools::RunResult r = tools::run_command(argv, options);
    CHECK_FALSE_MESSAGE(r.timed_out, schedule);
    caught |= !r.exited(0) && !r.timed_out;
    outputs += "[" + schedule + "] " + r.describe() + "\n" + r.output;
  }
  CAPTURE(outputs);
  CHECK(caught);
}

}  // namespace lab_test
