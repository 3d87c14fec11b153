// What a grading run reports: the console lines (the xv6 labs' `make grade` style), the
// Gradescope results.json and a one-line-per-lab summary to paste into a question. (What
// `make status` reads is the history of grading/core/progress.h.)
#pragma once

#include <string>
#include <vector>

#include "grading/core/atomic_file.h"
#include "grading/core/types.h"

namespace grade {

struct LabResult {
  std::string lab, file;  // a lab's folder, or its step's id (03_matmul_register.1d: lab::LabStep)
  std::vector<CheckResult> checks;
  std::string title;      // "lab 03 matmul_register, step 1 (1d)"; empty: "lab NN stem" from `lab`
  double points() const;
  double max_points() const;
  const CheckResult* find(const std::string& check) const;
};

struct RunInfo {
  std::string src, backend, device;
  uint64_t seed = 0;
  double seconds = 0;
  std::string sandbox;  // which fences held around the student's processes (Sandbox::describe)
  std::string counts;   // on a GPU, where the technique check's counts came from (counts_source)
};

// Points as people write them: "5", "3.5".
std::string points_text(double points);

// A verdict as the reports and the history write it: OK, FAIL, SKIP, WAIVED.
const char* status_word(Status s);

// "  correctness: FAIL (2.1s)  3.6/5\n" and the check's details, indented under it.
std::string check_text(const CheckResult& c);

// Writes results.json and summary.txt into `dir`, each atomically (a temporary
// file renamed over the old one). Returns false when one could not be written.
bool write_reports(const std::string& dir, const RunInfo& run, const std::vector<LabResult>& labs);

// For a run that could not grade (exit 2): results.json with a score of 0, no tests and `why`
// as its output, and summary.txt saying so, in place of an earlier run's reports, which would
// otherwise pass for this one's. A run that could not grade adds nothing to make status's history.
bool write_could_not_grade(const std::string& dir, const std::string& why);

// A folder of its own for this run's reports, under PARENT: "<parent>/20261125-101502-4242"
// (the time, and this process's id, so that two runs never share one). Made; "" when it cannot be.
std::string new_run_folder(const std::string& parent);

// Points PARENT/latest at RUN (a folder in PARENT), replacing the link atomically.
bool point_latest(const std::string& parent, const std::string& run);

// The one-line summary of a lab or a step: "lab 03 matmul_register, step 3: 7/13 (correctness OK, ...)".
std::string summary_line(const LabResult& lab);

}  // namespace grade
