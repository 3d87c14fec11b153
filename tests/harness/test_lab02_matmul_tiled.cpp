// Lab 02's solution is right on every shape (partial tiles at each edge, 1-wide, tall and
// wide), its skeleton fails without crashing, and the classic mistakes are caught.
#include <doctest/doctest.h>

#include "tests/lab_programs.h"

using lab_test::matmul;

TEST_SUITE("lab02") {

TEST_CASE("the solution passes every shape" * doctest::skip(lab_test::kNoSolutions)) {
  lab_test::check_solution_passes("02_matmul_tiled", {
      matmul(1, 1, 1), matmul(1, 300, 1), matmul(300, 1, 77), matmul(17, 31, 13),
      matmul(31, 32, 33), matmul(33, 31, 32), matmul(32, 33, 31),  // a 32-wide tile, +-1
      matmul(255, 257, 129), matmul(1000, 40, 70), matmul(40, 1000, 70), matmul(512, 512, 512),
      matmul(2100, 5, 7), matmul(0, 5, 5), matmul(7, 9, 0),
      // The loop over tile rows runs only past 65535 tile rows (M > 2,097,120): the grader's
      // tests grade the solution on such a shape (grading/rubric.txt).
  });
}

TEST_CASE("the skeleton fails cleanly" * doctest::skip(lab_test::kNoSolutions)) {
  lab_test::check_skeleton_fails("02_matmul_tiled", {matmul(1, 1, 1), matmul(65, 70, 40)});
}

TEST_CASE("a missing __syncthreads is caught by one of two schedules" * doctest::skip(lab_test::kNoSolutions)) {
  lab_test::check_mutant_caught("no_first_sync_02", "02_matmul_tiled", matmul(65, 70, 40));
  lab_test::check_mutant_caught("no_second_sync_02", "02_matmul_tiled", matmul(65, 70, 40));
}

// make run checks once; when its check fails with every element written, it runs the launcher
// again in the other thread order, and a result that changes is called a race, not an indexing
// mistake (which "almost every element is wrong" would say of a missing second barrier).
TEST_CASE("make run calls a missing barrier a race" * doctest::skip(lab_test::kNoSolutions)) {
  REQUIRE((lab_test::have_solutions() && lab_test::testing_backend("cpu")));
  const tools::RunResult r = tools::run_command({lab_test::corpus_program("cpu", "no_second_sync_02", "02_matmul_tiled"), "--m", "65",
                                                 "--n", "70", "--k", "40", "--no-time", "--no-edges"});
  CAPTURE(r.output);
  CHECK(r.exited(1));
  CHECK(lab_test::contains(r.output, "the result changes when the kernel runs again on the same inputs"));
  CHECK_FALSE(lab_test::contains(r.output, "check the indexing"));
}

TEST_CASE("skipping the partial last tile along K is caught" * doctest::skip(lab_test::kNoSolutions)) {
  lab_test::check_mutant_caught("off_by_one_tiles_02", "02_matmul_tiled", matmul(40, 40, 40), {""});
}

TEST_CASE("storing without the bounds guard is caught" * doctest::skip(lab_test::kNoSolutions)) {
  lab_test::check_mutant_caught("no_store_guard_02", "02_matmul_tiled", matmul(33, 33, 33), {""});
}

}  // TEST_SUITE
