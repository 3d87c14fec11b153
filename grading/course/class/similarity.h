// The class's similarity report: per lab, every pair of students ranked by how much of their own
// code (the skeleton's excluded) they share, by copydetect, a maintained detector from PyPI run by
// scripts/similarity (scripts/install-deps similarity installs it, pinned, into
// build/similarity-env). It writes OUT/similarity/similarity.html, one self-contained page with
// the matching code side by side; the pairs it flags go on the class summary. make grade-class
// runs it after grading, make similarity alone. Without the detector it says so in one line, and
// grading goes on.
#pragma once

#include <string>
#include <vector>

#include "common/labs.h"

namespace grade {

struct SimilarPair {
  std::string lab, a, b;  // the lab's folder and the two students' ids (printable)
  double score = 0;       // the larger share of one's own code found in the other's, 0 to 1
  int overlap = 0;        // characters of tokenized code in common
};

// A student most of whose own code is the instructor's solution (where the checkout has it).
struct SolutionCopy {
  std::string lab, id;  // the lab's folder and the student's id (printable)
  double share = 0;     // of the student's own code, the part found in the solution, 0 to 1
};

struct Similarity {
  std::string report;                  // the page, relative to OUT; "" when none was made
  std::string line;                    // what happened, in one line: for the console and the summary page
  std::vector<SimilarPair> flagged;    // best first, per lab
  std::vector<SolutionCopy> handed_in_solution;  // per lab, by share: listed apart, their pairs not ranked
  std::vector<std::string> lab_notes;  // labs whose pairs are listed but not flagged, and why
};

// A student's lab files: ROOT holds the lab folders (NN_stem/stem.cu), as the grader gets them.
struct StudentFolder {
  std::string id, root;
};

// Runs the detector over STUDENTS' files of LABS (each lab's skeleton, labs/NN_stem/stem.cu,
// excluded; each student also compared with the lab's solution, solutions/NN_stem/stem.cu, where
// this checkout has it), into OUT/similarity; THRESHOLD_PERCENT: the score from which a pair is
// flagged, and the share of a student's own code found in the solution from which the student
// handed in the solution.
Similarity similarity_report(const std::string& out, const std::vector<StudentFolder>& students, const std::vector<lab::LabEntry>& labs,
                             int threshold_percent);

// The class page's section: the flagged pairs, the students who handed in the solution, a link to
// the report, or why there is none.
std::string similarity_section(const Similarity& s);

}  // namespace grade
