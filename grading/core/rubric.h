// The grading rubric (grading/rubric.txt): per lab, the points of each check, the shapes, the
// technique required and the performance target. Read once, before any student code runs.
#pragma once

#include <string>
#include <vector>

#include "common/labs.h"
#include "common/problems.h"
#include "grading/core/late.h"

namespace grade {

// One rule of a lab's technique check: reuse, outputs_per_thread, coalesced, bank_conflicts (each
// with its number) or one_pass (grading/core/technique.h says what each measures).
struct TechniqueRule {
  std::string name;
  double limit = 0;
};

// A lab's row of labs.txt (its folder, file and problem), and how one of its steps is graded
// (a lab without steps has one, its launcher stem(): section [NN_stem]; a lab in steps a
// section per step, [NN_stem.1d] for the launcher stem_1d(), in the order of its steps).
struct LabRubric : lab::LabEntry {
  lab::LabStep step;
  double points_build = 0, points_correctness = 0, points_safety = 0, points_technique = 0, points_performance = 0;
  std::vector<lab::Case> shapes;      // the correctness shapes, the same on every backend
  std::vector<size_t> main_shapes;    // indices into shapes: the ones safety, technique and
                                      // performance wait for (default: every non-empty shape)
  std::vector<size_t> once_shapes;    // indices into shapes: those the CPU backend runs in its
                                      // first pass only (grading/core/check_correctness.cpp)
  std::vector<size_t> watched_shapes;  // indices into shapes: the CPU backend's watched pass's
                                       // (empty: the main shapes)
  lab::Case safety_shape, technique_shape, performance_shape;
  lab::Case race_shape;               // on a GPU, racecheck's second shape; empty: none
  std::vector<TechniqueRule> technique;  // every rule must hold; empty: none (grading/core/technique.h)
  double full_at = 1.0;               // performance: full marks at this share of the solution's speed
  int64_t due = -1;                   // make grade-class: when the lab is due (grading/core/late.h); -1 never
};

struct Rubric {
  double timeout_build = 600, timeout_run = 300;
  double timeout_student = 3600;      // make grade-class: one student's whole grading, every lab
  double memory_run = 8192;           // MiB a student's program may take (grading/core/sandbox.h)
  LatePolicy late;                    // make grade-class: what a lab handed in after its due time loses
  std::vector<LabRubric> labs;
};

// Reads a rubric file, whose sections name labs of LABS (labs.txt). On an error returns false
// with "file:line: what" in *error.
bool read_rubric(const std::string& path, const std::vector<lab::LabEntry>& labs, Rubric* rubric, std::string* error);

// "17x31x13" (or "17x31x13@1": its arrays 1 float off alignment) as a case of the lab's op.
bool parse_shape(lab::Op op, const std::string& text, lab::Case* c);

}  // namespace grade
