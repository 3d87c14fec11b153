// Lab 05's program: checks and times dot from the student file it is linked with
// (labs/05_dot_reduction/dot.cu, or the same file of another folder).
#include "harness/launchers.h"
#include "harness/lab_main.h"

int main(int argc, char** argv) {
  lab::Launcher launcher;
  launcher.dot = dot;
  return lab::lab_main({"05", "dot_reduction", lab::Op::kDot}, launcher, argc, argv);
}
