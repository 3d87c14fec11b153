// A hostile part for the grader's tests: tests/corpus/corpus.txt adds it to the lab 01
// solution. The lab program is one link, so a function the lab file defines can stand in for
// the library's. This one defines getrandom, from which the harness draws the positions it
// samples after each timed call: with them fixed, a launcher could compute only the elements
// that are checked. The grader refuses the build, whatever the kernel.
#include <sys/types.h>

#include <cstring>

extern "C" ssize_t getrandom(void* buffer, size_t length, unsigned int) {
  std::memset(buffer, 0, length);
  return ssize_t(length);
}

namespace {

float first_call() { return 0.0f; }

}  // namespace
