// A lab's program: checks and times a launcher of the student file it is linked with
// (labs/NN_stem/stem.cu, or the same file of another folder). The Makefile compiles this file
// once for each lab of labs.txt, naming the lab: LAB_NUMBER ("05"), LAB_STEM (dot_reduction,
// the launcher harness/launchers.h declares, whose signature says the problem) and, for a lab
// in steps, LAB_STEPS: LAB_STEP(1d) LAB_STEP(2d), the launchers stem_1d() and stem_2d() of the
// steps before the last, which is stem() (empty for a lab without steps).
#include "harness/lab_main.h"
#include "harness/launchers.h"

#define LAB_TEXT(x) #x
#define LAB_STRING(x) LAB_TEXT(x)
#define LAB_PASTE(stem, suffix) stem##_##suffix
#define LAB_LAUNCHER(stem, suffix) LAB_PASTE(stem, suffix)

// A lab in steps is done step by step: its file may define some of the steps' launchers and not
// yet the others, which are weak here (null when missing; lab_main says the step is not done).
// A lab without steps has no LAB_STEP, and its file must define its one launcher to link.
#define LAB_STEP(suffix) \
  decltype(LAB_LAUNCHER(LAB_STEM, suffix)) LAB_LAUNCHER(LAB_STEM, suffix) __attribute__((weak)); \
  decltype(LAB_STEM) LAB_STEM __attribute__((weak));
LAB_STEPS
#undef LAB_STEP

#define LAB_STEP(suffix) lab::Step{LAB_TEXT(suffix), lab::Launcher(LAB_LAUNCHER(LAB_STEM, suffix))},

int main(int argc, char** argv) {
  const std::vector<lab::Step> steps = {LAB_STEPS lab::Step{"", lab::Launcher(LAB_STEM)}};
  return lab::lab_main({LAB_NUMBER, LAB_STRING(LAB_STEM), steps.back().launcher.op()}, steps, argc, argv);
}
