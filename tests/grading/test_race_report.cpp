// ThreadSanitizer's race reports in the lab's words (grading/core/race_report.h), on reports as
// the CPU backend's ThreadSanitizer build prints them (cut to the lines that matter; the whole
// check runs in test_grade_corpus.cpp).
#include <doctest/doctest.h>

#include <string>

#include "grading/core/race_report.h"
#include "tools/text.h"

namespace {

// Two blocks adding into *result without an atomic (the corpus's no_atomics_05), as graded from a
// private copy in the build folder.
const char kBlocks[] = R"(==================
WARNING: ThreadSanitizer: data race (pid=10287)
  Read of size 4 at 0x7bb400004400 by thread T3:
    #0 void dot_kernel<true>(float const*, float const*, float*, int) build/grade-build/submission/1f2e/05_dot_reduction/dot_reduction.cu:119 (05_dot_reduction+0x83aef)
    #1 operator() build/grade-build/submission/1f2e/05_dot_reduction/dot_reduction.cu:156 (05_dot_reduction+0x82eb4)
    #2 operator() /work/main/cpusim/include/cpusim/launch.h:42 (05_dot_reduction+0x82eb4)

  Previous write of size 4 at 0x7bb400004400 by thread T4:
    #0 void dot_kernel<true>(float const*, float const*, float*, int) build/grade-build/submission/1f2e/05_dot_reduction/dot_reduction.cu:119 (05_dot_reduction+0x83b06)
    #1 operator() /work/main/cpusim/include/cpusim/launch.h:42 (05_dot_reduction+0x82eb4)

  Location is heap block of size 34820 at 0x7bb400000000 allocated by main thread:
    #0 posix_memalign ../../../../src/libsanitizer/tsan/tsan_interceptors_posix.cpp:839 (libtsan.so.2+0x3ef28)

  Thread T3 'CUDA block (0,0,0) thread (0,0,0)' (tid=0, running) created by main thread at:
    #0 start_fiber /work/main/cpusim/src/scheduler.cpp:100 (05_dot_reduction+0x8f2e4)

  Thread T4 'CUDA block (1,0,0) thread (0,0,0)' (tid=0, running) created by thread T2 at:
    #0 start_fiber /work/main/cpusim/src/scheduler.cpp:100 (05_dot_reduction+0x8f2e4)

SUMMARY: ThreadSanitizer: data race build/grade-build/submission/1f2e/05_dot_reduction/dot_reduction.cu:119 in void dot_kernel<true>(float const*, float const*, float*, int)
==================
ThreadSanitizer: reported 1 warnings
)";

// A missing barrier: two threads of one block, the write inside an inlined helper of the runtime's
// headers and the student's line one frame out.
const char kOneBlock[] = R"(WARNING: ThreadSanitizer: data race (pid=4242)
  Write of size 4 at 0x7f0000001000 by thread T7:
    #0 store /work/main/cpusim/include/cpusim/device_functions.h:80 (02_matmul_tiled+0x1000)
    #1 void matmul_tiled_kernel<32>(float const*, float const*, float*, int, int, int) labs/02_matmul_tiled/matmul_tiled.cu:88:7 (02_matmul_tiled+0x2000)

  Previous read of size 4 at 0x7f0000001000 by thread T9:
    #0 void matmul_tiled_kernel<32>(float const*, float const*, float*, int, int, int) labs/02_matmul_tiled/matmul_tiled.cu:95 (02_matmul_tiled+0x3000)

  Thread T7 'CUDA block (2,1,0) thread (5,0,0)' (tid=0, running) created by main thread at:
  Thread T9 'CUDA block (2,1,0) thread (6,3,0)' (tid=0, running) created by main thread at:
SUMMARY: ThreadSanitizer: data race labs/02_matmul_tiled/matmul_tiled.cu:88 in void matmul_tiled_kernel<32>
)";

}  // namespace

TEST_SUITE("race report") {

TEST_CASE("a race between blocks: both threads, both lines of the student's file, and the atomic that orders them") {
  const std::string text = tools::joined(grade::races_in_plain_words(kBlocks, "dot_reduction.cu"));
  CAPTURE(text);
  CHECK(tools::contains(text, "a race on 4 bytes: CUDA block (0,0,0) thread (0,0,0) reads them at dot_reduction.cu:119 "
                             "while CUDA block (1,0,0) thread (0,0,0) wrote them at dot_reduction.cu:119"));
  CHECK(tools::contains(text, "atomicAdd"));
  CHECK_FALSE(tools::contains(text, "build/"));
  CHECK_FALSE(tools::contains(text, "scheduler.cpp"));
}

TEST_CASE("a race inside one block: the student's line, not the runtime's, and the barrier that orders them") {
  const std::string text = tools::joined(grade::races_in_plain_words(kOneBlock, "matmul_tiled.cu"));
  CAPTURE(text);
  CHECK(tools::contains(text, "CUDA block (2,1,0) thread (5,0,0) writes them at matmul_tiled.cu:88 while "
                             "CUDA block (2,1,0) thread (6,3,0) read them at matmul_tiled.cu:95"));
  CHECK(tools::contains(text, "__syncthreads()"));
}

TEST_CASE("a report with no race it can read gives nothing, so that the raw lines are shown instead") {
  CHECK(grade::races_in_plain_words("==ERROR: AddressSanitizer: heap-buffer-overflow\n", "dot_reduction.cu").empty());
  CHECK(grade::races_in_plain_words("WARNING: ThreadSanitizer: data race\n  garbled\n", "dot_reduction.cu").empty());
}

TEST_CASE("at most MAX races are told") {
  const std::string two = std::string(kBlocks) + kOneBlock;
  CHECK(grade::races_in_plain_words(two, "x.cu", 1).size() == 2);  // one race: its sentence and its hint
  CHECK(grade::races_in_plain_words(two, "x.cu", 2).size() == 4);
}

}  // TEST_SUITE
