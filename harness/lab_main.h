// The lab program: everything around the student's launcher. It makes seeded inputs,
// poisons the output, calls the launcher, checks the result against the fp64 reference,
// and times it. The student writes none of this; each lab's main() (harness/NN_name.cpp)
// only names the lab and its launcher.
#pragma once

#include <string>
#include <vector>

#include "harness/problems.h"

namespace lab {

struct LabInfo {
  const char* id;    // "01"
  const char* name;  // "matmul_naive"
  Op op;
};

// The launcher under test, of the lab's kind (one of the three is set).
struct Launcher {
  void (*matmul)(const float*, const float*, float*, int, int, int) = nullptr;
  void (*transpose)(const float*, float*, int, int) = nullptr;
  void (*dot)(const float*, const float*, float*, int) = nullptr;

  // Calls it on device buffers: inputs in Case::input_names() order.
  void operator()(const Case& c, const std::vector<const float*>& inputs, float* output) const;
};

int lab_main(const LabInfo& info, const Launcher& launcher, int argc, char** argv);

}  // namespace lab
