// Lab 01's solution is right on every shape (edges, 1-wide, sizes of 0), its skeleton fails without crashing, and bad input exits 2.
#include <doctest/doctest.h>

#include <cstdint>
#include <sstream>
#include <string>

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

// Lab 01's TODOs ask for one launch and int indices; the rubric's shapes must not need more.
TEST_CASE("the rubric's lab 01 shapes fit one launch and int indices") {
  std::istringstream rubric(lab_test::read_file("grading/rubric.txt"));
  std::string line, section, shapes;
  while (std::getline(rubric, line)) {
    if (line.rfind("[", 0) == 0) section = line;
    if (section == "[01_matmul_naive]" && line.rfind("shapes =", 0) == 0) shapes = line.substr(8);
  }
  REQUIRE_MESSAGE(!shapes.empty(), "no shapes line in grading/rubric.txt's [01_matmul_naive]");
  // 65535 blocks of 8 along y, whichever of M and N the student puts there (kBlockY = 8).
  const int64_t kOneLaunch = 65535 * 8, kIntIndex = int64_t(1) << 31;
  std::istringstream words(shapes);
  for (std::string shape; words >> shape;) {
    CAPTURE(shape);
    int64_t M = 0, N = 0, K = 0;
    char x1 = 0, x2 = 0;
    std::istringstream(shape) >> M >> x1 >> N >> x2 >> K;
    REQUIRE(x1 == 'x');
    REQUIRE(x2 == 'x');
    CHECK(M <= kOneLaunch);
    CHECK(N <= kOneLaunch);
    CHECK(M * K < kIntIndex);
    CHECK(K * N < kIntIndex);
    CHECK(M * N < kIntIndex);
  }
}

TEST_CASE("bad input exits 2 with a message" * doctest::skip(lab_test::kNoSolutions)) {
  lab_test::check_bad_arguments("01_matmul_naive", {"--m", "abc"}, "--m takes a whole number");
  lab_test::check_bad_arguments("01_matmul_naive", {"--n", "-3"}, "--n takes a whole number");
  lab_test::check_bad_arguments("01_matmul_naive", {"--size", "3"}, "unknown option --size");
  lab_test::check_bad_arguments("01_matmul_naive", {"--m", "2000000000", "--n", "2000000000", "--k", "1"},
                                "of device memory");
}

}  // TEST_SUITE
