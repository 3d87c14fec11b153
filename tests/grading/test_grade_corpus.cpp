// The grader against other routes and wrong turns: every variant of the solutions that keeps a
// lab's lesson gets full marks, one that skips it loses exactly the lesson's points, and each
// wrong submission of the corpus (tests/corpus/corpus.txt) is caught by the check that should
// catch it. On the CPU backend, in the build folder the grader's tests share
// (tests/grading/grade_runs.h).
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/labs.h"
#include "grading/core/progress.h"
#include "grading/core/student_uid.h"
#include "grading/core/utf8.h"
#include "tests/grading/grade_runs.h"
#include "tests/lab_programs.h"
#include "tools/subprocess.h"

using namespace grade_test;

TEST_SUITE("grade") {

TEST_CASE("every variant of the solutions that keeps the lesson grades full marks" * doctest::skip(lab_test::kNoCpuSolutions)) {
  // Other block shapes, tile sizes, thread layouts, tile layouts and reductions: other routes to a
  // right answer that still coalesce, reuse, avoid bank conflicts and add once.
  const std::pair<const char*, const char*> variants[] = {
      {"build/variants/block16x16", "01"},      {"build/variants/block32x4", "01"},      {"solutions/variants/coarsened", "02"},
      {"build/variants/tile16", "02"},          {"build/variants/tile128", "03"},        {"build/variants/wide", "03"},
      {"build/variants/row_1d", "03"},          {"build/variants/tile32", "04"},         {"build/variants/swizzled", "04"},
      {"build/variants/no_launch_bounds", "04"}, {"solutions/variants/reduction_ladder", "05"}, {"build/variants/shuffle_atomic", "05"},
  };
  std::vector<Graded> graded(std::size(variants));
  at_once(graded.size(), [&](size_t i) {
    graded[i] = grade_fast(variants[i].first, variants[i].second, {}, {}, "build/grade-test-reports/variant-" + std::to_string(i));
  });
  for (size_t i = 0; i < graded.size(); ++i) {
    CAPTURE(variants[i].first);
    const std::string& output = graded[i].run.output;
    CAPTURE(output);
    CHECK(graded[i].run.exited(0));
    const std::string score = last_line(output);
    const size_t slash = score.find('/');
    CHECK(score.rfind("Score: ", 0) == 0);
    CHECK((slash != std::string::npos && score.substr(7, slash - 7) == score.substr(slash + 1)));
  }
}

// The variants that skip a lab's lesson on purpose are right, and lose that lesson's points and
// nothing else: threadIdx.x down a column of C (lab 01: uncoalesced), and the transpose's tile
// without padding (lab 04: 32-way bank conflicts, its coalescing intact).
TEST_CASE("a variant that skips the lesson loses exactly the lesson's points" * doctest::skip(lab_test::kNoCpuSolutions)) {
  struct Skips {
    const char* src;
    const char* lab;
    const char* technique;  // the technique line's points
    const char* says;
  };
  const Skips variants[] = {
      {"solutions/variants/rows_on_x", "01", "0/2", "global loads use 12% of the bytes in the sectors they move, their stores 12%"},
      {"build/variants/unpadded", "04", "1/2", "shared-memory loads take 32.00 times the wavefronts a conflict-free access would"},
  };
  std::vector<Graded> graded(std::size(variants));
  at_once(graded.size(), [&](size_t i) {
    graded[i] = grade_fast(variants[i].src, variants[i].lab, {}, {}, "build/grade-test-reports/skips-" + std::to_string(i));
  });
  for (size_t i = 0; i < graded.size(); ++i) {
    const Skips& v = variants[i];
    CAPTURE(v.src);
    const std::string& output = graded[i].run.output;
    CAPTURE(output);
    CHECK(graded[i].run.exited(0));
    for (const char* check : {"build", "correctness", "safety"}) CHECK(contains(check_line(output, check), ": OK"));
    const std::string technique = check_line(output, "technique");
    CHECK(contains(technique, ": FAIL"));
    CHECK(contains(technique, std::string("  ") + v.technique));
    CHECK(contains(output, v.says));
    // The estimate beside the solution's (grading/estimates.txt), not the same.
    CHECK(contains(output, "on an H200; the solution's "));
  }
}

TEST_CASE("each wrong submission is caught by its check, and by make check where it runs that check" * doctest::skip(lab_test::kNoCpuSolutions)) {
  struct Wrong {
    const char* src;
    const char* lab;
    const char* check;  // the check that must fail ('|': one of them)
    const char* says;   // and what its report must say ('|': one of them)
    const char* never = nullptr;  // and what it must not say: another mistake's hint
    bool quick = false;           // make check's pass is tried on it too
  };
  const Wrong corpus[] = {
      {"build/corpus/no_guard_01", "01", "correctness", "wrote outside the output"},
      // One float past the end of the output's allocation: AddressSanitizer names it, unless
      // the plain build's heap already broke over it (glibc aborts at the free).
      {"build/corpus/oob_write_01", "01", "safety|correctness", "AddressSanitizer|killed by SIGABRT", nullptr, true},
      {"build/corpus/infinite_loop_01", "01", "correctness", "timed out after"},
      {"build/corpus/reads_output_01", "01", "correctness", "reads the output before writing it", nullptr, true},
      {"build/corpus/scaled_01", "01", "correctness", "every element is 2 times the expected value"},
      // The launch counts x along the rows while the kernel puts threadIdx.x along the columns:
      // the grid is rounded up, so "round it up" would be no help.
      {"build/corpus/swapped_grid_01", "01", "correctness", "corner of the", "ceil_div"},
      {"build/corpus/no_store_guard_02", "02", "correctness", "wrote outside the output"},
      {"build/corpus/off_by_one_tiles_02", "02", "correctness", "every wrong element is 0"},
      {"build/corpus/no_first_sync_02", "02", "correctness", "differs between two runs", nullptr, true},
      {"build/corpus/no_second_sync_02", "02", "correctness", "differs between two runs"},
      {"build/corpus/compile_error_02", "02", "build", "matmul_tiled.cu", nullptr, true},
      {"build/corpus/naive_as_02", "02", "technique", "loaded 4.12 bytes from global memory per multiply-add"},
      {"build/corpus/decoy_shared_02", "02", "technique", "loaded 4.12 bytes from global memory per multiply-add"},
      {"build/corpus/naive_as_03", "03", "technique", "per thread"},
      // A ladder's classic mistakes: lab 02's one output per thread handed in as step 1 (right,
      // but no register tile), and step 2's store without its column guard.
      {"build/corpus/one_output_1d_03", "03", "technique", "1.00 per thread"},
      {"build/corpus/no_col_guard_2d_03", "03", "correctness", "wrote outside the output"},
      {"build/corpus/naive_as_04", "04", "technique", "their stores 12%"},
      {"build/corpus/host_sum_05", "05", "technique", "copied between host and device memory 2 times"},
      {"build/corpus/swapped_indices_04", "04", "correctness", "copied, not transposed"},
      {"build/corpus/no_second_sync_04", "04", "correctness", "differs between two runs"},
      // Blocks adding with a plain +=: a GPU loses updates, and the CPU backend loses them as a GPU
      // would and names the line.
      {"build/corpus/no_atomics_05", "05", "correctness", "lost update: block (", nullptr, true},
      {"build/corpus/no_sync_05", "05", "correctness", "differs between two runs"},
      // A dot's atomics add in another order in each run, so its last bits differ between the two
      // runs: a result that is wrong in both is not called a race for that, nor is a dot's
      // missing zeroing a matrix's C += ....
      {"build/corpus/no_memset_05", "05", "correctness", "which nobody set to 0 first", "C += "},
      {"build/corpus/no_tail_05", "05", "correctness", "exactly once", "differs between two runs"},
      // float4 loads from a + 1: a GPU faults, and the CPU backend faults as it does.
      {"build/corpus/misaligned_05", "05", "correctness", "cudaErrorMisalignedAddress"},
      {"tests/corpus/fake_success", "01", "correctness", "exit 0 before finishing this shape"},
      {"tests/corpus/cublas_call", "01", "build", "uses cuBLAS (cublas_v2.h)"},
      {"build/corpus/interpose", "01", "build", "defines getrandom, which another part of the lab program"},
      {"build/corpus/interpose_cxx", "01", "build", "defines std::random_device::_M_getval(), which another part"},
      // The assembler's .incbin of the solution: on a GPU the fenced build does not see it
      // (tests/grading/test_sandbox.cpp tries the fence with g++); the CPU backend refuses any asm.
      {"build/corpus/incbin", "01", "build", "file not found|needs a GPU"},
  };
  // Each entry graded, as many at once as there are cores: one's builds use the cores while
  // another's programs wait on the checks in the grader. make check (the command for after each
  // edit) runs the same build, correctness and safety checks, the same code, and must catch what
  // they catch with the same words: tried on one mistake that each kind of check catches (a
  // compile error, a wrong result with its hint, a race, a lost update, a sanitizer's finding).
  const size_t count = std::size(corpus);
  std::vector<Graded> full(count), quick(count);
  at_once(count, [&](size_t i) {
    const Wrong& w = corpus[i];
    const std::string out = "build/grade-test-reports/corpus-" + std::to_string(i);
    full[i] = grade_fast(w.src, w.lab, {}, {}, out);
    if (w.quick) quick[i] = grade_fast(w.src, w.lab, {"--quick"}, {}, out + "-quick");
  });
  // A loop, not subcases, so that one entry's failure leaves the others checked.
  for (size_t i = 0; i < count; ++i) {
    const Wrong& w = corpus[i];
    CAPTURE(w.src);
    const std::string& output = full[i].run.output;
    CAPTURE(output);
    CHECK(full[i].run.exited(0));
    CHECK(any_of(w.check, [&](const std::string& check) { return contains(check_line(output, check), ": FAIL"); }));
    CHECK(any_of(w.says, [&](const std::string& says) { return contains(output, says); }));
    if (w.never != nullptr) CHECK_FALSE(contains(output, w.never));
    CHECK(below_full_marks(last_line(output)));
    if (w.quick) {
      const std::string& quick_output = quick[i].run.output;
      CAPTURE(quick_output);
      CHECK(quick[i].run.exited(0));
      CHECK(any_of(w.check, [&](const std::string& check) { return contains(check_line(quick_output, check), ": FAIL"); }));
      CHECK(any_of(w.says, [&](const std::string& says) { return contains(quick_output, says); }));
    }
  }
}

}  // TEST_SUITE
