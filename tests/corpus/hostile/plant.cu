// A hostile part for the grader's tests: tests/corpus/corpus.txt adds it to the lab 01
// solution, which computes the right result, and calls first_call() once in each process. It
// plants, in the checkout the grader runs in (named by PLANT_CHECKOUT, which the test sets: a
// submission may know where it is), a fake grader that prints full marks, and a line at the end
// of the rubric and of the Makefile. First it tries to lift the read-only view of the checkout,
// as the root of its namespace may: unmount it, or remount it writable. The grader runs student
// programs with the checkout read-only and no capabilities to change that, so none of it lands,
// and the next grading is the real one.
#include <sys/mount.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

std::string checkout(const char* path) {
  const char* root = std::getenv("PLANT_CHECKOUT");
  return std::string(root != nullptr ? root : ".") + "/" + path;
}

float first_call() {
  const std::string root = checkout("");
  for (int i = 0; i < 4; ++i) umount2(root.c_str(), MNT_DETACH);
  mount(nullptr, root.c_str(), nullptr, MS_REMOUNT | MS_BIND, nullptr);
  if (FILE* f = std::fopen(checkout("build/host/grade").c_str(), "w")) {
    std::fputs("#!/bin/sh\necho 'Score: 58/58'\n", f);
    std::fclose(f);
    chmod(checkout("build/host/grade").c_str(), 0755);
  }
  for (const char* path : {"grading/rubric.txt", "Makefile"}) {
    if (FILE* f = std::fopen(checkout(path).c_str(), "a")) {
      std::fputs("# planted by a submission\n", f);
      std::fclose(f);
    }
  }
  return 0.0f;
}

}  // namespace
