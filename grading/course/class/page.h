// The class summary: one self-contained HTML page (inline SVG charts and CSS, no script, nothing
// fetched) with each lab's score distribution among the students who tried it (those who handed
// in its skeleton as given, or nothing for it, counted apart: a real zero is not an absence), the
// most common failing checks among those who tried, with hints, a per-lab leaderboard of the
// students who chose a nickname (on a GPU; a CPU class says once that nothing was timed), the
// pairs of students the similarity report flags, and every student's row with links to their
// report. Every student-controlled string on it is escaped.
#pragma once

#include <string>
#include <vector>

#include "common/labs.h"
#include "grading/course/class/gradebook.h"
#include "grading/course/class/similarity.h"

namespace grade {

struct ClassInfo {
  std::string date;     // "2026-11-25 15:02"
  std::string backend;  // "cpu" or "gpu"
  std::string device;   // the GPU model, or "the CPU backend"
  uint64_t class_seed = 0;
  Similarity similarity;  // the pairs flagged, and the report's link
};

std::string class_page(const std::vector<GradebookRow>& rows, const std::vector<lab::LabEntry>& labs, const ClassInfo& info);

}  // namespace grade
