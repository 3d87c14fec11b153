#include "grading/course/class/lms.h"

#include <algorithm>

#include "grading/core/report.h"
#include "grading/course/class/csv.h"

namespace grade {

namespace {

std::string column_name(const lab::LabEntry& l) { return "Lab " + l.number + " " + l.stem; }

// Lab LAB's cell: its points, or empty for a student the grader did not grade.
std::string points_cell(const GradebookRow& r, size_t lab, const Deadlines& deadlines) {
  return r.status == "graded" ? points_text(final_points(r, lab, deadlines)) : "";
}

// The instructor's comments on lab L of R: its adjustments, without their "lab NN: " prefix.
std::string feedback(const GradebookRow& r, const lab::LabEntry& l) {
  const std::string prefix = "lab " + l.number + ": ";
  std::string text;
  for (const std::string& a : r.adjustments) {
    if (a.rfind(prefix, 0) == 0) text += (text.empty() ? "" : "; ") + a.substr(prefix.size());
  }
  return text;
}

}  // namespace

std::string canvas_csv(const std::vector<GradebookRow>& rows, const std::vector<lab::LabEntry>& labs, const Deadlines& deadlines) {
  std::vector<std::string> header = {"Student", "ID", "SIS User ID", "SIS Login ID", "Section"};
  std::vector<std::string> possible = {"Points Possible", "", "", "", ""};
  for (size_t i = 0; i < labs.size(); ++i) {
    header.push_back(column_name(labs[i]));
    double max = 0;
    for (const GradebookRow& r : rows) max = std::max(max, i < r.lab_max.size() ? r.lab_max[i] : 0);
    possible.push_back(points_text(max));
  }
  std::string csv = csv_record(header) + csv_record(possible);
  for (const GradebookRow& r : rows) {
    // ID is Canvas's own user id, when the roster or a Canvas download gives it: Canvas matches by it first.
    const std::string& canvas = r.student.canvas_id;
    std::vector<std::string> fields = {printable(r.student.name.empty() ? r.student.id : r.student.name), printable(canvas),
                                       canvas == r.student.id ? "" : printable(r.student.id), "", ""};
    for (size_t i = 0; i < labs.size(); ++i) fields.push_back(points_cell(r, i, deadlines));
    csv += csv_record(fields);
  }
  return csv;
}

std::string moodle_csv(const std::vector<GradebookRow>& rows, const std::vector<lab::LabEntry>& labs, const Deadlines& deadlines) {
  std::vector<std::string> header = {"ID number", "Full name"};
  for (const lab::LabEntry& l : labs) header.push_back(column_name(l));
  for (const lab::LabEntry& l : labs) header.push_back(column_name(l) + " feedback");
  std::string csv = csv_record(header);
  for (const GradebookRow& r : rows) {
    std::vector<std::string> fields = {printable(r.student.id), printable(r.student.name)};
    for (size_t i = 0; i < labs.size(); ++i) fields.push_back(points_cell(r, i, deadlines));
    for (const lab::LabEntry& l : labs) fields.push_back(printable(feedback(r, l)));
    csv += csv_record(fields);
  }
  return csv;
}

}  // namespace grade
