// The lab program: everything around the student's launcher. It makes seeded inputs,
// poisons the output, calls the launcher, checks the result against the fp64 reference,
// and times it. The student writes none of this; the lab's main() (harness/lab_program.cpp)
// only names the lab and its launcher.
#pragma once

#include <string>
#include <vector>

#include "common/problems.h"

namespace lab {

struct LabInfo {
  const char* id;    // "01"
  const char* name;  // "matmul_naive"
  Op op;
};

// The launcher under test, of the lab's kind (one of the three is set).
struct Launcher {
  using Matmul = void (*)(const float*, const float*, float*, int, int, int);
  using Transpose = void (*)(const float*, float*, int, int);
  using Dot = void (*)(const float*, const float*, float*, int);
  Matmul matmul = nullptr;
  Transpose transpose = nullptr;
  Dot dot = nullptr;

  Launcher() = default;
  // The launcher's signature says its problem (harness/launchers.h).
  explicit Launcher(Matmul f) : matmul(f) {}
  explicit Launcher(Transpose f) : transpose(f) {}
  explicit Launcher(Dot f) : dot(f) {}
  Op op() const { return matmul != nullptr ? Op::kMatmul : transpose != nullptr ? Op::kTranspose : Op::kDot; }

  // Calls it on device buffers: inputs in Case::input_names() order.
  void operator()(const Case& c, const std::vector<const float*>& inputs, float* output) const;
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
