// The lab program: everything around the student's launcher. It makes seeded inputs,
// poisons the output, calls the launcher, checks the result against the fp64 reference,
// and times it. The student writes none of this; the lab's main() (harness/lab_program.cpp)
// only names the lab and its launcher.
#pragma once

#include <string>
#include <vector>

#include "harness/launcher.h"

namespace lab {

struct LabInfo {
  const char* id;    // "01"
  const char* name;  // "matmul_naive"
  Op op;
};

// A step of a lab (labs.txt): its launcher, and its name, the suffix of the launcher's name
// ("1d": matmul_register_1d); "" for the last step, the lab's launcher itself.
struct Step {
  std::string suffix;
  Launcher launcher;
};

// Runs one of the lab's STEPS (its last by default; --step picks another), in order.
int lab_main(const LabInfo& info, const std::vector<Step>& steps, int argc, char** argv);

}  // namespace lab
