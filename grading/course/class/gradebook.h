// The class's gradebook: one row per student, built from the grader's own results.json (the
// class grader grades nothing itself), and written as gradebook.csv for a spreadsheet or an LMS.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/labs.h"
#include "grading/course/class/roster.h"
#include "grading/core/late.h"

namespace grade {

struct FailedCheck {
  std::string check;  // "lab 02 matmul_tiled: correctness"
  std::string hint;   // its report's first hint, else its first line
  size_t lab = 0;     // its lab's place in the gradebook
};

// How far a student got with a lab, for the class page: no file for it (or nothing graded),
// the skeleton as handed out, or a file of their own, whatever its score.
enum class Attempt { none, not_started, tried };

struct GradebookRow {
  Student student;
  std::string status;              // "graded", "could not grade: ...", "missing: ...", "refused: ..."
  std::vector<double> lab_points;  // per lab graded, in the rubric's order
  std::vector<double> lab_max;
  std::vector<double> launcher_ms;  // the performance check's median, or -1 (no GPU timing)
  std::vector<Attempt> attempts;    // per lab
  std::vector<FailedCheck> failed;
  uint64_t seed = 0;
  std::string device;             // "NVIDIA H100 80GB HBM3", "the CPU backend"
  std::vector<std::string> notes;
  std::vector<std::string> adjustments;  // the instructor's overrides of this row (grading/course/class/overrides.h)
  std::string report;             // the student's report folder, relative to the class's OUT
  std::vector<int64_t> submitted;  // per lab: when it was handed in (grading/course/class/submitted.h), -1 unknown
  double total() const;
  double max_total() const;
};

// Fills ROW's points, checks, device and status from the results.json at PATH of a grading of
// folder SRC. False, with row->status saying why, when the file is not a grader's results.json.
bool read_results(const std::string& path, const std::string& src, const std::vector<lab::LabEntry>& labs, GradebookRow* row);

// The late policy as the gradebook applies it: each lab's due time (-1: none) and the rule.
struct Deadlines {
  std::vector<int64_t> due;  // per lab, in the gradebook's order
  LatePolicy policy;
  bool any() const;
};

// Lab LAB's points in ROW after the late penalty (the points as they stand: an instructor's
// override is penalized like the grader's points).
double final_points(const GradebookRow& row, size_t lab, const Deadlines& deadlines);

// The gradebook as CSV: a header (id, name, status, a column per lab, total, max, seed, gpu,
// notes, report), then a row per student. With DEADLINES, each lab that has a due time adds
// three columns, when it was submitted, its days late and its points after the penalty, and
// the row ends with its adjusted total; the raw points stay where they were.
std::string gradebook_csv(const std::vector<GradebookRow>& rows, const std::vector<lab::LabEntry>& labs, const Deadlines& deadlines = {});

}  // namespace grade
