// Lab 04's solution is bit-exact on every shape (1-wide, around the 64×64 tile and half of it,
// the seed's 1111×113, more than 1024 on a side); its skeleton fails cleanly; the README's
// mistakes are caught (docs/results/lab04-mistakes-cpu.log): swapped indices, a tile stored
// untransposed, no store guard, a grid rounded down, a missing first barrier, and no load
// guard (by the AddressSanitizer build only: the stray values are never stored).
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

TEST_CASE("a tile stored untransposed, no store guard, a grid rounded down and a missing first barrier are caught" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  for (const char* name : {"untransposed_04", "no_store_guard_04", "grid_floor_04", "no_first_sync_04"}) {
    CAPTURE(name);
    lab_test::check_mutant_caught(name, "04_transpose", transpose(1111, 113));
  }
}

TEST_CASE("without the load guard the plain run passes, and the AddressSanitizer build names the read" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  const std::vector<std::string> args = {"--rows", "1111", "--cols", "113", "--no-time"};
  const tools::RunResult plain = lab_test::run(lab_test::corpus_program("cpu", "no_load_guard_04", "04_transpose"), args);
  CAPTURE(plain.output);
  CHECK(plain.exited(0));
  const tools::RunResult asan = lab_test::run(lab_test::corpus_program("cpu-asan", "no_load_guard_04", "04_transpose"), args);
  CAPTURE(asan.output);
  CHECK_FALSE(asan.exited(0));
  CHECK(lab_test::contains(asan.output, "AddressSanitizer: heap-buffer-overflow"));
  CHECK(lab_test::contains(asan.output, "transpose_kernel"));
}

}  // TEST_SUITE
