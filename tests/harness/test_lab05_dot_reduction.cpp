// Lab 05's solution is right for every n (a partial warp, a partial float4, one block or
// thousands); its skeleton fails cleanly; a missing barrier, a race between blocks, a result
// never zeroed and a forgotten tail are caught (the race by the ThreadSanitizer build: a plain
// run rarely loses an update); float4 loads from a misaligned start fault on a GPU, and the CPU
// backend does not see them (the README's mistakes, docs/results/lab05-mistakes-*.log).
#include <doctest/doctest.h>

#include "tests/lab_programs.h"

using lab_test::dot;

TEST_SUITE("lab05") {

TEST_CASE("the solution passes every size" * doctest::skip(lab_test::kNoSolutions)) {
  lab_test::check_solution_passes("05_dot_reduction", {
      dot(1), dot(2), dot(31), dot(32), dot(33), dot(1023), dot(1025), dot((1 << 20) + 3),
      dot((1 << 24) + 3), dot(0),
  });
}

TEST_CASE("the skeleton fails cleanly" * doctest::skip(lab_test::kNoSolutions)) {
  lab_test::check_skeleton_fails("05_dot_reduction", {dot(1), dot(100003)});
}

TEST_CASE("a missing __syncthreads in the block's reduction is caught" * doctest::skip(lab_test::kNoSolutions)) {
  lab_test::check_mutant_caught("no_sync_05", "05_dot_reduction", dot(100003));
}

TEST_CASE("a result never zeroed is caught: the blocks add into the NaN poison" * doctest::skip(lab_test::kNoCpuSolutions)) {
  lab_test::check_mutant_caught("no_memset_05", "05_dot_reduction", dot(100003));
}

TEST_CASE("float4 loads without the last n % 4 elements are caught" * doctest::skip(lab_test::kNoCpuSolutions)) {
  lab_test::check_mutant_caught("no_tail_05", "05_dot_reduction", dot(100003));
}

TEST_CASE("float4 loads from a start one float past alignment fault, on a GPU and on the CPU backend" *
          doctest::skip(lab_test::kNoSolutions)) {
  // A CPU itself loads 16 bytes from any address: cpusim checks the alignment as a GPU does.
  for (const std::string& backend : lab_test::backends()) {
    CAPTURE(backend);
    const tools::RunResult r = lab_test::run(lab_test::corpus_program(backend, "misaligned_05", "05_dot_reduction"),
                                             {"--n", "1025", "--offset", "1", "--no-time"});
    CAPTURE(r.output);
    CHECK(r.exited(1));
    CHECK(lab_test::contains(r.output, "cudaErrorMisalignedAddress"));
  }
}

TEST_CASE("block sums added without atomics are a race the ThreadSanitizer build reports" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  const tools::RunResult r = lab_test::run(lab_test::corpus_program("cpu-tsan", "no_atomics_05", "05_dot_reduction"),
                                           {"--n", "100003", "--no-time", "--no-edges"});
  CAPTURE(r.output);
  CHECK_FALSE(r.exited(0));
  CHECK(lab_test::contains(r.output, "ThreadSanitizer: data race"));
  CHECK(lab_test::contains(r.output, "dot_kernel"));
}

}  // TEST_SUITE
