// A hostile submission for the grader's tests: it computes nothing, prints what passing
// output looks like, and exits with status 0 from inside the launcher. The grader must score
// it 0: the verdict comes from the results the grader reads back, not from what the program
// prints or its exit status.
#include <cstdio>
#include <cstdlib>

#include "harness/launchers.h"

void matmul_naive(const float*, const float*, float*, int, int, int) {
  std::printf("  check    PASS: 1 of 1 elements within the bound\n"
              "  correctness: OK (0.1s)  5/5\n  safety: OK (0.1s)  2/2\nlab 01: 10/10\nScore: 48/48\n");
  std::fflush(stdout);
  std::exit(0);
}
