// `make run`'s edge check (harness/lab_main.cpp): before its default size, which every tile
// and block size of the labs divides, a lab program checks sizes that none divides. With no
// arguments, as `make run` starts it, it must pass every solution and catch the corpus's edge
// bugs: exit 1 with the edge check's report, the main size neither checked nor timed.
#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "common/labs.h"
#include "tests/lab_programs.h"

using lab_test::contains;

TEST_SUITE("run_edges") {

TEST_CASE("every solution passes the edges, then the default size" * doctest::skip(lab_test::kNoSolutions)) {
  for (const std::string& backend : lab_test::backends()) {
    for (const lab::LabEntry& entry : lab::labs()) {
      SUBCASE((backend + " " + entry.folder).c_str()) {
        const tools::RunResult r = lab_test::run(lab_test::program(backend, lab_test::kSolutions, entry.folder), {});
        CAPTURE(r.output);
        CHECK_MESSAGE(r.exited(0), r.describe());
        CHECK(contains(r.output, "edges    PASS"));
        CHECK(contains(r.output, "check    PASS"));
        CHECK(contains(r.output, "time     "));
      }
    }
  }
}

// What a student sees on a first `make run`: the unsolved file fails the edges, cleanly.
TEST_CASE("every skeleton fails at the edges, and the default size is not run" * doctest::skip(lab_test::kNoSolutions)) {
  for (const std::string& backend : lab_test::backends()) {
    for (const lab::LabEntry& entry : lab::labs()) {
      SUBCASE((backend + " " + entry.folder).c_str()) {
        const tools::RunResult r = lab_test::run(lab_test::program(backend, lab_test::kSkeletons, entry.folder), {});
        CAPTURE(r.output);
        CHECK_MESSAGE(r.exited(1), r.describe());
        CHECK(contains(r.output, "edges    FAIL"));
        CHECK(contains(r.output, "check    not run"));
        CHECK_FALSE(contains(r.output, "time     "));
      }
    }
  }
}

// The wrong submissions of tests/corpus/corpus.txt whose bug is at the edges: each passes at
// the default sizes alone. Not here: no_cap_02, whose missing grid cap shows only past 65535
// rows of tiles (M > 2,097,120: 40 s on the CPU backend), which make check runs.
TEST_CASE("the corpus's edge bugs fail at the default sizes, before anything is timed" *
          doctest::skip(lab_test::kNoSolutions)) {
  const struct {
    const char* name;
    const char* lab;
  } bugs[] = {
      {"no_guard_01", "01_matmul_naive"},            // no column guard
      {"no_store_guard_02", "02_matmul_tiled"},      // no guard on the store of C
      {"off_by_one_tiles_02", "02_matmul_tiled"},    // the partial last tile along K skipped
  };
  for (const std::string& backend : lab_test::backends()) {
    for (const auto& bug : bugs) {
      SUBCASE((backend + " " + bug.name).c_str()) {
        const std::string result_file = "build/test-run-edges-" + std::string(bug.name) + ".result";
        const tools::RunResult r = lab_test::run(lab_test::corpus_program(backend, bug.name, bug.lab), {"--result", result_file});
        CAPTURE(r.output);
        CHECK_MESSAGE(r.exited(1), r.describe());
        CHECK(contains(r.output, "edges    FAIL"));
        CHECK_FALSE(contains(r.output, "check    PASS"));
        CHECK_FALSE(contains(r.output, "time     "));
        // The result file names the size that failed, an edge, not the default size never run.
        const std::string result = lab_test::read_file(result_file);
        CHECK(contains(result, "check fail\n"));
        CHECK(contains(result, "dims 259 "));
        std::remove(result_file.c_str());
      }
    }
  }
}

}  // TEST_SUITE
