// A lab's program: checks and times the launcher of the student file it is linked with
// (labs/NN_stem/stem.cu, or the same file of another folder). The Makefile compiles this file
// once for each lab of labs.txt, naming the lab: LAB_NUMBER ("05") and LAB_STEM (dot_reduction,
// the launcher harness/launchers.h declares, whose signature says the problem).
#include "harness/lab_main.h"
#include "harness/launchers.h"

#define LAB_TEXT(x) #x
#define LAB_STRING(x) LAB_TEXT(x)

int main(int argc, char** argv) {
  const lab::Launcher launcher(LAB_STEM);
  return lab::lab_main({LAB_NUMBER, LAB_STRING(LAB_STEM), launcher.op()}, launcher, argc, argv);
}
