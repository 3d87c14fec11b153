// The launcher under test: the student's function that a lab program calls, of one of the three
// signatures of harness/launchers.h, and how a case's device buffers are handed to it.
#pragma once

#include <vector>

#include "common/problems.h"

namespace lab {

// The launcher under test, of the lab's kind (one of the three is set, unless the student's
// file leaves a step of a lab in steps out: harness/lab_program.cpp).
struct Launcher {
  using Matmul = void (*)(const float*, const float*, float*, int, int, int);
  using Transpose = void (*)(const float*, float*, int, int);
  using Dot = void (*)(const float*, const float*, float*, int);
  Matmul matmul = nullptr;
  Transpose transpose = nullptr;
  Dot dot = nullptr;

  Launcher() = default;
  // The launcher's signature says its problem (harness/launchers.h), defined or not.
  explicit Launcher(Matmul f) : matmul(f), op_(Op::kMatmul) {}
  explicit Launcher(Transpose f) : transpose(f), op_(Op::kTranspose) {}
  explicit Launcher(Dot f) : dot(f), op_(Op::kDot) {}
  Op op() const { return op_; }
  bool defined() const { return matmul != nullptr || transpose != nullptr || dot != nullptr; }

  // Calls it on device buffers: inputs in Case::input_names() order.
  void operator()(const Case& c, const std::vector<const float*>& inputs, float* output) const;

 private:
  Op op_ = Op::kMatmul;
};

}  // namespace lab
