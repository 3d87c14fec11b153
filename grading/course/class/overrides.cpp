#include "grading/course/class/overrides.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "grading/core/report.h"
#include "grading/course/class/csv.h"

namespace grade {

namespace {

// The lab of LABS that NAME names ("02", "2" or "02_matmul_tiled"), or none.
std::optional<size_t> lab_named(const std::vector<lab::LabEntry>& labs, const std::string& name) {
  for (size_t i = 0; i < labs.size(); ++i) {
    if (labs[i].named(name) || (name.size() == 1 && labs[i].named("0" + name))) return i;
  }
  return std::nullopt;
}

// TEXT as points: a finite number from 0.
std::optional<double> points_of(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(value) || value < 0) return std::nullopt;
  return value;
}

}  // namespace

bool read_overrides(const std::string& path, const std::vector<lab::LabEntry>& labs, const std::vector<std::string>& student_ids,
                    std::vector<Override>* overrides, std::string* error) {
  CsvTable table;
  if (!read_csv_table(path, "the overrides", {{"sid", "id"}, {"student_id", "id"}}, &table, error)) return false;
  if (!table.has("id") || !table.has("lab") || (!table.has("points") && !table.has("comment"))) {
    return *error = path + ": its header must name the columns id, lab, and points or comment (or both)", false;
  }
  overrides->clear();
  for (size_t i = 0; i < table.records.size(); ++i) {
    const std::vector<std::string>& record = table.records[i];
    Override o;
    o.line = int(i) + 2;
    const std::string where = path + ":" + std::to_string(o.line) + ": ";
    o.id = table.field(record, "id");
    if (std::find(student_ids.begin(), student_ids.end(), o.id) == student_ids.end()) {
      return *error = where + "no student '" + o.id + "' in this class (its submissions and roster)", false;
    }
    const std::optional<size_t> lab = lab_named(labs, table.field(record, "lab"));
    if (!lab) return *error = where + "no lab '" + table.field(record, "lab") + "' in labs.txt (a lab is named by its number, 02, or its folder)", false;
    o.lab = labs[*lab].folder;
    const std::string points = table.field(record, "points");
    if (!points.empty()) {
      o.points = points_of(points);
      if (!o.points) return *error = where + "points '" + points + "' is not a number from 0", false;
    }
    o.comment = table.field(record, "comment");
    if (!o.points && o.comment.empty()) return *error = where + "it gives neither points nor a comment", false;
    overrides->push_back(o);
  }
  return true;
}

void apply_overrides(const std::vector<Override>& overrides, const std::vector<lab::LabEntry>& labs, std::vector<GradebookRow>* rows) {
  for (const Override& o : overrides) {
    const std::optional<size_t> lab = lab_named(labs, o.lab);
    if (!lab) continue;  // not graded in this run
    for (GradebookRow& row : *rows) {
      if (row.student.id != o.id) continue;
      if (row.lab_points.size() < labs.size()) row.lab_points.resize(labs.size(), 0);
      std::string line = "lab " + labs[*lab].number;
      if (o.points) {
        const double graded = row.lab_points[*lab];
        row.lab_points[*lab] = *o.points;
        const double max = *lab < row.lab_max.size() ? row.lab_max[*lab] : 0;
        line += ": " + points_text(*o.points) + (max > 0 ? " of " + points_text(max) : "") +
                " points, set by the instructor (the grader gave " + points_text(graded) + ")";
      }
      if (!o.comment.empty()) line += ": " + o.comment;
      row.adjustments.push_back(line);
      row.notes.push_back(line);
    }
  }
}

}  // namespace grade
