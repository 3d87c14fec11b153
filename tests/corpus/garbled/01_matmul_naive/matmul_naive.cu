// A hostile submission for the grader's tests: it prints bytes that are not UTF-8 (a stray
// 0xFF, a character cut in half, and many two- and three-byte characters, so that any cut of the
// quoted output by bytes would split one), then dies. The grader quotes what it printed in its
// reports; results.json must stay valid UTF-8 (Gradescope refuses the file otherwise).
#include <cstdio>
#include <cstdlib>

#include "harness/launchers.h"

void matmul_naive(const float*, const float*, float*, int, int, int) {
  std::fputs("bad bytes: \xFF\xFE and a cut character: \xC3 then text\n", stdout);
  for (int i = 0; i < 200; ++i) std::fputs("é数", stdout);
  std::fputs("\n", stdout);
  std::fflush(stdout);
  std::abort();
}
