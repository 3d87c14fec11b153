// A hostile part for the grader's tests: tests/corpus/corpus.txt adds it to the lab 01
// solution, which computes the right result, and calls first_call() once in each process. In
// ThreadSanitizer's build only, it takes memory and touches it, 64 MiB at a time up to 3 GiB,
// and keeps it: a sanitizer's build has no data limit (its shadow memory would break it), and
// ThreadSanitizer does not hold its own RSS limit, so only the grader's watch of the run's
// resident memory stops it. It spoils nothing: left to run, it passes.
#include <cstdlib>
#include <cstring>

namespace {

float first_call() {
#if defined(__SANITIZE_THREAD__)
  static char* kept[48];
  for (char*& chunk : kept) {
    chunk = static_cast<char*>(std::malloc(size_t(64) << 20));
    if (chunk != nullptr) std::memset(chunk, 1, size_t(64) << 20);
  }
#endif
  return 0.0f;
}

}  // namespace
