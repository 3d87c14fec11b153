// Lab 02's program: checks and times matmul_tiled from the student file it is linked with
// (labs/02_matmul_tiled/matmul_tiled.cu, or the same file of another folder).
#include "harness/launchers.h"
#include "harness/lab_main.h"

int main(int argc, char** argv) {
  lab::Launcher launcher;
  launcher.matmul = matmul_tiled;
  return lab::lab_main({"02", "matmul_tiled", lab::Op::kMatmul}, launcher, argc, argv);
}
