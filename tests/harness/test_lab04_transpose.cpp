// Lab 04's solution is bit-exact on every shape (1-wide, around the 64×64 tile and half of it,
// the seed's 1111×113, more than 1024 on a side); its skeleton fails cleanly; swapped indices are caught.
#include <doctest/doctest.h>

#include "tests/lab_programs.h"

using lab_test::transpose;

TEST_SUITE("lab04") {

TEST_CASE("the solution passes every shape" * doctest::skip(lab_test::kNoSolutions)) {
  lab_test::check_solution_passes("04_transpose", {
      transpose(1, 1), transpose(1, 1000), transpose(1000, 1), transpose(31, 33), transpose(32, 32),
      transpose(33, 31), transpose(63, 65), transpose(64, 64), transpose(65, 63), transpose(1111, 113), transpose(1024, 1025), transpose(0, 4),
      transpose(4200, 3),
      // The loop over tile rows runs only past 65535 tile rows (rows > 4,194,240): the grader's
      // tests grade the solution on such a shape (grading/rubric.txt).
  });
}

TEST_CASE("the skeleton fails cleanly" * doctest::skip(lab_test::kNoSolutions)) {
  lab_test::check_skeleton_fails("04_transpose", {transpose(1, 1), transpose(1111, 113)});
}

TEST_CASE("swapped output indices are caught" * doctest::skip(lab_test::kNoSolutions)) {
  lab_test::check_mutant_caught("swapped_indices_04", "04_transpose", transpose(100, 70), {""});
  lab_test::check_mutant_caught("swapped_indices_04", "04_transpose", transpose(64, 64), {""});
}

}  // TEST_SUITE
