// Lab 04's program: checks and times transpose from the student file it is linked with
// (labs/04_transpose/transpose.cu, or the same file of another folder).
#include "harness/launchers.h"
#include "harness/lab_main.h"

int main(int argc, char** argv) {
  lab::Launcher launcher;
  launcher.transpose = transpose;
  return lab::lab_main({"04", "transpose", lab::Op::kTranspose}, launcher, argc, argv);
}
