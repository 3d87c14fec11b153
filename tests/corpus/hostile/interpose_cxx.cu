// A hostile part for the grader's tests: tests/corpus/corpus.txt adds it to the lab 01
// solution. Like interpose, but through the C++ library: it defines the member of
// std::random_device that the harness's draws end in, which the shared library exports, and so
// replaces it for the whole program. The grader refuses the build.
#include <random>

unsigned int std::random_device::_M_getval() { return 4; }

namespace {

float first_call() { return 0.0f; }

}  // namespace
