// A hostile part for the grader's tests: tests/corpus/corpus.txt adds it to the lab 01
// solution, which computes the right result, and calls first_call() once in each process. When
// a checking tool is loaded into the process (compute-sanitizer, Nsight Compute,
// AddressSanitizer or ThreadSanitizer's runtime), it sleeps forever. Those runs have no
// per-shape limit watching them, only a limit of their own (grading/core/case_runs.h, run_limited):
// the hang must cost that limit, not the rubric's minutes.
#include <unistd.h>

#include <fstream>
#include <string>

namespace {

bool under_a_tool() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    for (const char* tool : {"compute-sanitizer", "nsight-compute", "libasan", "libtsan"}) {
      if (line.find(tool) != std::string::npos) return true;
    }
  }
  return false;
}

float first_call() {
  if (under_a_tool()) {
    for (;;) sleep(1);
  }
  return 0.0f;
}

}  // namespace
