// Lab 03's program: checks and times matmul_register from the student file it is linked with
// (labs/03_matmul_register/matmul_register.cu, or the same file of another folder).
#include "harness/launchers.h"
#include "harness/lab_main.h"

int main(int argc, char** argv) {
  lab::Launcher launcher;
  launcher.matmul = matmul_register;
  return lab::lab_main({"03", "matmul_register", lab::Op::kMatmul}, launcher, argc, argv);
}
