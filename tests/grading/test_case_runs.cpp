// serve_twice (grading/core/case_runs.h): a GPU's two correctness passes in one process. Run here
// with a stand-in for a lab program, a shell script that answers common/protocol.h's files as a lab
// program would, and on the CPU backend's clock (its CPU time), so that no GPU is needed: which
// cases each process was given, which of their twins were dropped, and each pass's time.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/problems.h"
#include "grading/core/case_runs.h"
#include "grading/core/isolation.h"
#include "grading/core/rubric.h"
#include "tools/text.h"

namespace fs = std::filesystem;

namespace {

// The stand-in: it says its device is open, logs the ids of the cases it was given (a line per
// process, in the case folder), then writes each case's output and result; at the case CRASH it
// dies of SIGSEGV, at the case SPIN it computes forever, and with SLOW=T each case takes T clock
// ticks of CPU time (its own and its children's, which the CPU backend's clock counts).
const char* kStandIn = R"sh(#!/bin/sh
dir=$2
cpu() { awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat; }
: > "$dir/started"
cut -d' ' -f1 "$dir/cases.txt" | tr '\n' ' ' >> "$dir/processes.log"
echo >> "$dir/processes.log"
for id in $(cut -d' ' -f1 "$dir/cases.txt"); do
  [ "$id" = "$CRASH" ] && kill -SEGV $$
  if [ "$id" = "$SPIN" ]; then while :; do :; done; fi
  if [ -n "$SLOW" ]; then end=$(( $(cpu) + SLOW )); while [ "$(cpu)" -lt "$end" ]; do :; done; fi
  : > "$dir/$id.out"
  echo "finished 1" > "$dir/$id.result"
done
)sh";

struct Bench {
  grade::Rubric rubric;
  grade::Context ctx;
  grade::Program program;
  grade::Cases cases, again;

  Bench() {
    ctx.backend = "cpu";
    ctx.rubric = &rubric;
    ctx.work_dir = grade::make_private_dir((fs::temp_directory_path() / "case-runs-").string());
    REQUIRE_FALSE(ctx.work_dir.empty());
    program.path = ctx.work_dir + "/stand-in";
    std::ofstream(program.path) << kStandIn;
    chmod(program.path.c_str(), 0755);
    program.fingerprint = grade::fingerprint(program.path);
    program.on_cores = true;  // no turns to take
    cases = grade::write_cases(ctx, "twice", {lab::Case::dot(8), lab::Case::dot(9), lab::Case::dot(10)});
    again = grade::repeat_cases(cases);
  }
  ~Bench() { fs::remove_all(ctx.work_dir); }

  // Each process's cases, as the stand-in logged them: "0 1 | 2 3 5 |".
  std::string processes() const {
    std::string all;
    std::istringstream log(tools::read_text(cases.dir + "/processes.log"));
    for (std::string line; std::getline(log, line);) all += line + "| ";
    return all;
  }
};

grade::Limits limits(double per_case, double total) {
  grade::Limits l;
  l.per_case.assign(3, per_case);
  l.total = total;
  l.basis = "the test's";
  return l;
}

}  // namespace

TEST_SUITE("case runs") {

TEST_CASE("serve_twice: both passes in one process, the second on the same inputs under ids of its own") {
  Bench b;
  for (size_t i = 0; i < 3; ++i) {
    CHECK(b.again.cases[i].id == int(3 + i));
    CHECK(tools::read_text(b.again.dir + "/" + std::to_string(3 + i) + ".in0") ==
          tools::read_text(b.cases.dir + "/" + std::to_string(i) + ".in0"));
  }
  const auto [first, second] = grade::serve_twice(b.ctx, b.program, b.cases, b.again, {0, 1, 2}, {}, limits(20, 60));
  CHECK(b.processes() == "0 1 2 3 4 5 | ");
  for (size_t i = 0; i < 3; ++i) {
    CHECK(first.seconds[i] >= 0);
    CHECK(second.seconds[i] >= 0);
    CHECK(grade::exists(b.again.result_path(i)));
  }
}

TEST_CASE("serve_twice: a shape whose program died is not run again, and the others are") {
  Bench b;
  const auto [first, second] = grade::serve_twice(b.ctx, b.program, b.cases, b.again, {0, 1, 2}, {"CRASH=1"}, limits(20, 60));
  // The crash at case 1; a fresh process goes on from case 2, without case 1's twin, case 4.
  CHECK(b.processes() == "0 1 2 3 4 5 | 2 3 5 | ");
  CHECK(first.seconds[1] < 0);
  CHECK(tools::contains(first.stopped[1], "before finishing this shape"));
  CHECK(second.seconds[1] < 0);
  CHECK_FALSE(grade::exists(b.again.result_path(1)));
  CHECK((first.seconds[0] >= 0 && first.seconds[2] >= 0 && second.seconds[0] >= 0 && second.seconds[2] >= 0));
}

TEST_CASE("serve_twice: a hang costs its shape once, and each pass has its time for all shapes") {
  SUBCASE("past its shape's limit: its twin dropped, the rest run") {
    Bench b;
    const auto [first, second] = grade::serve_twice(b.ctx, b.program, b.cases, b.again, {0, 1, 2}, {"SPIN=0"}, limits(1, 60));
    CHECK(b.processes() == "0 1 2 3 4 5 | 1 2 4 5 | ");
    CHECK(tools::contains(first.stopped[0], "timed out after"));
    CHECK((second.seconds[0] < 0 && second.seconds[1] >= 0 && second.seconds[2] >= 0));
  }
  SUBCASE("past the first pass's time: the shape under way stops there, and the second pass has its own time") {
    // Each shape 1.2 s of CPU, each pass 3 s: the first stops during shape 2, at 3 s (not at the 6 s
    // of both passes); the second runs shapes 0 and 1 again, in 2.4 of its 3 s.
    Bench b;
    const long ticks = sysconf(_SC_CLK_TCK) * 12 / 10;
    const auto [first, second] = grade::serve_twice(b.ctx, b.program, b.cases, b.again, {0, 1, 2},
                                                    {"SLOW=" + std::to_string(ticks)}, limits(20, 3));
    CAPTURE(first.stopped[2]);
    CHECK(b.processes() == "0 1 2 3 4 5 | 3 4 | ");
    CHECK((first.seconds[0] >= 0 && first.seconds[1] >= 0 && first.seconds[2] < 0));
    CHECK(tools::contains(first.stopped[2], "ran out during this shape"));
    CHECK((second.seconds[0] >= 0 && second.seconds[1] >= 0 && second.seconds[2] < 0));
  }
  SUBCASE("past the first pass's time: its shapes left are not run, nor any twin of a shape not done") {
    Bench b;
    const auto [first, second] = grade::serve_twice(b.ctx, b.program, b.cases, b.again, {0, 1, 2}, {"SPIN=0"}, limits(20, 3));
    CHECK(b.processes() == "0 1 2 3 4 5 | ");
    CAPTURE(first.stopped[0]);
    CAPTURE(first.stopped[1]);
    CHECK(tools::contains(first.stopped[0], "the time for all shapes"));
    CHECK(tools::contains(first.stopped[1], "not run: the time for all shapes (3 s: the test's) ran out"));
    CHECK(tools::contains(first.stopped[2], "not run"));
    for (size_t i = 0; i < 3; ++i) CHECK(second.seconds[i] < 0);
  }
}

}  // TEST_SUITE
