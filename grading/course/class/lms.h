// The gradebook in the forms two LMSs import: Canvas's gradebook CSV (Grades > Import) and
// Moodle's CSV grade import (Grades > Import > CSV file). Each lab is a column of its points as
// they stand, an instructor's override and the late penalty applied; a student the grader could
// not grade, or who handed in nothing, gets an empty cell, which both leave as it was.
#pragma once

#include <string>
#include <vector>

#include "common/labs.h"
#include "grading/course/class/gradebook.h"

namespace grade {

// Canvas: the columns Student, ID, SIS User ID, SIS Login ID and Section, then a column per lab
// ("Lab 02 matmul_tiled": Canvas makes an assignment of a column it does not know), a "Points
// Possible" row first. The roster's id goes in SIS User ID, which Canvas matches students by, and
// Canvas's own user id, where the roster (canvas_id) or a Canvas download gives it, in ID (then a
// student known by that id alone has an empty SIS User ID).
std::string canvas_csv(const std::vector<GradebookRow>& rows, const std::vector<lab::LabEntry>& labs, const Deadlines& deadlines);

// Moodle: the columns ID number and Full name, a column of points per lab and one of feedback
// per lab (the instructor's comments on it); the import's "Map from" is then ID number, and each
// lab column is mapped to its grade item, each feedback column to that item's feedback.
std::string moodle_csv(const std::vector<GradebookRow>& rows, const std::vector<lab::LabEntry>& labs, const Deadlines& deadlines);

}  // namespace grade
