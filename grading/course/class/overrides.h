// The instructor's word over the grader's: per student and lab, points set by hand, a comment for
// the student, or both, from a CSV the instructor keeps beside the class's outputs (columns id,
// lab, points, comment; OUT/overrides.csv, or make grade-class OVERRIDES=file). It is read on
// every run of make grade-class and applied to the gradebook's rows as they are written, never
// to what the grader stored: a regrade of the student keeps it, and deleting a line takes it back.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/labs.h"
#include "grading/course/class/gradebook.h"

namespace grade {

struct Override {
  std::string id;                // the student's
  std::string lab;               // the lab's folder, "02_matmul_tiled"
  std::optional<double> points;  // the lab's points instead of the grader's
  std::string comment;           // for the student, in their report and the gradebook
  int line = 0;                  // in the file, for messages
};

// Reads the overrides at PATH. A line names a student of STUDENT_IDS and a lab of LABS (labs.txt:
// its number, 02, or its folder), and gives points (a number from 0), a comment, or both. False,
// with the file, the line and what is wrong in *error, when a line does not: an override that
// would be silently dropped is refused before anything is graded. (A lab this run does not grade
// keeps its lines for the run that does.)
bool read_overrides(const std::string& path, const std::vector<lab::LabEntry>& labs, const std::vector<std::string>& student_ids,
                    std::vector<Override>* overrides, std::string* error);

// Applies OVERRIDES to the ROWS of their students, whose labs are LABS (those graded): a lab's
// points replaced, and for each override a line in the row's adjustments and notes, such as
// "lab 02: 7 of 8 points, set by the instructor (the grader gave 5.5): reviewed by hand".
void apply_overrides(const std::vector<Override>& overrides, const std::vector<lab::LabEntry>& labs, std::vector<GradebookRow>* rows);

}  // namespace grade
