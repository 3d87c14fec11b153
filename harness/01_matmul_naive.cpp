// Lab 01's program: checks and times matmul_naive from the student file it is linked with
// (labs/01_matmul_naive/matmul_naive.cu, or the same file of another folder).
#include "harness/launchers.h"
#include "harness/lab_main.h"

int main(int argc, char** argv) {
  lab::Launcher launcher;
  launcher.matmul = matmul_naive;
  return lab::lab_main({"01", "matmul_naive", lab::Op::kMatmul}, launcher, argc, argv);
}
