// scripts/make-skeleton turns a solution into the student's skeleton: each task's solution
// replaced by its TODO(student) spec (and stub), everything else unchanged; malformed
// markers are errors, not silently wrong skeletons.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "tests/lab_programs.h"
#include "tools/subprocess.h"

namespace {

using lab_test::read_file;

tools::RunResult make_skeleton(const std::string& path) { return tools::run_command({"scripts/make-skeleton", path}); }

tools::RunResult make_skeleton_of(const std::string& text) {
  char path[] = "/tmp/skeleton-test-XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, text.data(), text.size()) == ssize_t(text.size()));
  close(fd);
  tools::RunResult r = make_skeleton(path);
  unlink(path);
  return r;
}

using tools::count_of;

}  // namespace

TEST_SUITE("skeleton") {

TEST_CASE("a solution becomes the expected skeleton") {
  const tools::RunResult r = make_skeleton("tests/fixtures/skeleton/solution.cu");
  REQUIRE_MESSAGE(r.exited(0), r.output);
  CHECK(r.output == read_file("tests/fixtures/skeleton/expected.cu"));
}

TEST_CASE("malformed markers are errors with a line number") {
  struct Bad {
    const char* text;
    const char* says;
  };
  const Bad cases[] = {
      {"// @task 1: x\n// spec\nint x;\n// @solution\n// @end\n", ":3: a task spec must be comment lines"},
      {"// @solution\n// @end\n", ":1: @solution without a @task"},
      {"// @task 1: x\n// @solution\nint x;\n", "task not closed"},
      {"// @task 1: x\n// @solution\n// @task 2: y\n", ":3: @task inside another task"},
      {"// @task 1: x\n// @solution\n// @stub\nreturn 0;\n// @end\n", ":4: stub lines must be commented"},
      {"// @end\n", ":1: @end without a @solution"},
      {"// @sollution\n", ":1: unknown marker"},
  };
  for (const Bad& bad : cases) {
    CAPTURE(bad.text);
    const tools::RunResult r = make_skeleton_of(bad.text);
    CHECK(r.exited(1));
    CHECK_MESSAGE(r.output.find(bad.says) != std::string::npos, r.output);
  }
}

TEST_CASE("every solution makes a skeleton with one TODO(student) per task" * doctest::skip(lab_test::kNoSolutions)) {
  const tools::RunResult list = tools::run_command({"sh", "-c", "ls solutions/[0-9]*/*.cu 2>/dev/null"});
  std::istringstream files(list.output);
  int solutions = 0;
  for (std::string path; files >> path;) {
    CAPTURE(path);
    ++solutions;
    const std::string solution = read_file(path);
    const tools::RunResult r = make_skeleton(path);
    REQUIRE_MESSAGE(r.exited(0), r.output);
    CHECK(count_of(solution, "// @task ") > 0);
    CHECK(count_of(r.output, "TODO(student) ") == count_of(solution, "// @task "));
    CHECK(count_of(r.output, "// @") == 0);
  }
  CHECK(solutions > 0);
}

}  // TEST_SUITE
