// Lab 01's solution is right on every shape (edges, 1-wide, sizes of 0), its skeleton fails without crashing, and bad input exits 2.
#include <doctest/doctest.h>

#include "tests/lab_programs.h"

using lab_test::matmul;

TEST_SUITE("lab01") {

TEST_CASE("the solution passes every shape" * doctest::skip(lab_test::kNoSolutions)) {
  lab_test::check_solution_passes("01_matmul_naive", {
      matmul(1, 1, 1), matmul(1, 300, 1), matmul(300, 1, 77), matmul(17, 31, 13),
      matmul(33, 31, 9), matmul(255, 257, 129), matmul(512, 512, 512), matmul(64, 1000, 3),
      matmul(1000, 64, 3),
      matmul(0, 5, 5),                            // no elements of C: nothing to write
      matmul(5, 5, 0),                            // K = 0: every element an empty sum, 0
  });
}

TEST_CASE("the skeleton fails cleanly" * doctest::skip(lab_test::kNoSolutions)) {
  lab_test::check_skeleton_fails("01_matmul_naive", {matmul(1, 1, 1), matmul(255, 257, 129)});
}

TEST_CASE("bad input exits 2 with a message" * doctest::skip(lab_test::kNoSolutions)) {
  lab_test::check_bad_arguments("01_matmul_naive", {"--m", "abc"}, "--m takes a whole number");
  lab_test::check_bad_arguments("01_matmul_naive", {"--n", "-3"}, "--n takes a whole number");
  lab_test::check_bad_arguments("01_matmul_naive", {"--size", "3"}, "unknown option --size");
  lab_test::check_bad_arguments("01_matmul_naive", {"--m", "2000000000", "--n", "2000000000", "--k", "1"},
                                "of device memory");
}

}  // TEST_SUITE
