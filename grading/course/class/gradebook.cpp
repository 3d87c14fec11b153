#include "grading/course/class/gradebook.h"

#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tools/text.h"
#include "grading/course/class/csv.h"
#include "grading/core/report.h"

namespace grade {

namespace {

// The first line of OUTPUT with a hint, else its first line.
std::string first_hint(const std::string& output) {
  std::istringstream lines(output);
  std::string first;
  for (std::string line; std::getline(lines, line);) {
    line = tools::trim(line);
    if (line.rfind("hint: ", 0) == 0) return line.substr(6);
    if (first.empty()) first = line;
  }
  return first;
}

// The launcher's median in a performance check's report ("your launcher 23.404 ms, ..."), or -1.
double launcher_ms(const std::string& output) {
  const size_t at = output.find("your launcher ");
  return at == std::string::npos ? -1 : std::strtod(output.c_str() + at + 14, nullptr);
}

// The device of the report's first line: "Score: X/Y (SRC on DEVICE, seed N: ...".
std::string device_of(const std::string& output, const std::string& src) {
  const std::string from = "(" + src + " on ";
  const size_t start = output.find(from), end = output.find(", seed ");
  if (start == std::string::npos || end == std::string::npos || end < start + from.size()) return "";
  return output.substr(start + from.size(), end - start - from.size());
}

using nlohmann::json;

// Whether OBJECT is an object whose members STRINGS are strings and NUMBERS numbers.
bool has(const json& object, std::initializer_list<const char*> strings, std::initializer_list<const char*> numbers = {}) {
  if (!object.is_object()) return false;
  for (const char* key : strings) {
    if (!object.contains(key) || !object[key].is_string()) return false;
  }
  for (const char* key : numbers) {
    if (!object.contains(key) || !object[key].is_number()) return false;
  }
  return true;
}

void add_test(const json& test, const std::vector<lab::LabEntry>& labs, GradebookRow* row) {
  if (!has(test, {"name", "status", "output"}, {"score", "max_score"})) return;
  const std::string& name = test["name"].get_ref<const std::string&>();
  const std::string& output = test["output"].get_ref<const std::string&>();
  for (size_t i = 0; i < labs.size(); ++i) {
    if (name.rfind("lab " + labs[i].number + " ", 0) != 0) continue;
    row->lab_points[i] += test["score"].get<double>();
    row->lab_max[i] += test["max_score"].get<double>();
    if (tools::contains(name, ": performance")) row->launcher_ms[i] = launcher_ms(output);
    if (test["status"] == "failed") row->failed.push_back({name, first_hint(output), i});
    // The grader's words for a lab file that is not there, and for the skeleton as handed out.
    const auto check_is = [&](const std::string& check) {
      return name.size() >= check.size() && name.compare(name.size() - check.size(), check.size(), check) == 0;
    };
    if (check_is(": build") && output.rfind("no file ", 0) == 0) row->attempts[i] = Attempt::none;
    if (check_is(": correctness") && output.rfind("not started: ", 0) == 0) row->attempts[i] = Attempt::not_started;
  }
}

bool has_due(const Deadlines& deadlines, size_t lab) { return lab < deadlines.due.size() && deadlines.due[lab] >= 0; }

int64_t days_late_of(const GradebookRow& r, size_t lab, const Deadlines& deadlines) {
  const int64_t submitted = lab < r.submitted.size() ? r.submitted[lab] : -1;
  return submitted < 0 || !has_due(deadlines, lab) ? 0 : days_late(submitted, deadlines.due[lab], deadlines.policy);
}

// The late columns of ROW: per lab due, when it was submitted, its days late and its points
// after the penalty; then the adjusted total.
std::vector<std::string> late_fields(const GradebookRow& r, size_t labs, const Deadlines& deadlines) {
  std::vector<std::string> fields;
  double total = 0;
  for (size_t i = 0; i < labs; ++i) {
    const double adjusted = final_points(r, i, deadlines);
    total += adjusted;
    if (!has_due(deadlines, i)) continue;
    const int64_t submitted = i < r.submitted.size() ? r.submitted[i] : -1;
    fields.insert(fields.end(), {submitted < 0 ? "" : utc_text(submitted), submitted < 0 ? "" : std::to_string(days_late_of(r, i, deadlines)),
                                 points_text(adjusted)});
  }
  fields.push_back(points_text(total));
  return fields;
}

}  // namespace

double final_points(const GradebookRow& row, size_t lab, const Deadlines& deadlines) {
  const double points = lab < row.lab_points.size() ? row.lab_points[lab] : 0;
  return late_points(points, days_late_of(row, lab, deadlines), deadlines.policy);
}

double GradebookRow::total() const {
  double sum = 0;
  for (double p : lab_points) sum += p;
  return sum;
}

double GradebookRow::max_total() const {
  double sum = 0;
  for (double p : lab_max) sum += p;
  return sum;
}

bool read_results(const std::string& path, const std::string& src, const std::vector<lab::LabEntry>& labs, GradebookRow* row) {
  row->lab_points.assign(labs.size(), 0);
  row->lab_max.assign(labs.size(), 0);
  row->launcher_ms.assign(labs.size(), -1);
  row->attempts.assign(labs.size(), Attempt::none);
  row->failed.clear();
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  // Parsed without exceptions: text that is not JSON is a discarded value.
  const json results = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!in || results.is_discarded()) return row->status = "could not grade: no results.json from the grader", false;
  if (!has(results, {"output"}) || !results.contains("tests") || !results["tests"].is_array()) {
    return row->status = "could not grade: the grader's results.json lacks its output or tests", false;
  }
  const std::string& output = results["output"].get_ref<const std::string&>();
  if (results["tests"].empty()) {
    // write_could_not_grade's: "make grade could not grade this submission: why"
    const size_t colon = output.find(": ");
    return row->status = "could not grade: " + output.substr(colon == std::string::npos ? 0 : colon + 2), false;
  }
  row->attempts.assign(labs.size(), Attempt::tried);
  for (const json& test : results["tests"]) add_test(test, labs, row);
  row->device = device_of(output, src);
  row->status = "graded";
  return true;
}

bool Deadlines::any() const {
  for (int64_t d : due) {
    if (d >= 0) return true;
  }
  return false;
}

std::string gradebook_csv(const std::vector<GradebookRow>& rows, const std::vector<lab::LabEntry>& labs, const Deadlines& deadlines) {
  std::vector<std::string> header = {"id", "name", "status"};
  for (const lab::LabEntry& l : labs) header.push_back(l.folder);
  header.insert(header.end(), {"total", "max", "seed", "gpu", "notes", "report"});
  if (deadlines.any()) {
    for (size_t i = 0; i < labs.size(); ++i) {
      if (has_due(deadlines, i)) header.insert(header.end(), {labs[i].folder + " submitted", labs[i].folder + " days late", labs[i].folder + " adjusted"});
    }
    header.push_back("adjusted total");
  }
  std::string csv = csv_record(header);
  for (const GradebookRow& r : rows) {
    std::vector<std::string> fields = {printable(r.student.id), printable(r.student.name), r.status};
    for (size_t i = 0; i < labs.size(); ++i) fields.push_back(i < r.lab_points.size() ? points_text(r.lab_points[i]) : "0");
    std::string notes;
    for (const std::string& n : r.notes) notes += (notes.empty() ? "" : "; ") + n;
    fields.insert(fields.end(), {points_text(r.total()), points_text(r.max_total()), std::to_string(r.seed), r.device, notes, r.report});
    if (deadlines.any()) {
      const std::vector<std::string> late = late_fields(r, labs.size(), deadlines);
      fields.insert(fields.end(), late.begin(), late.end());
    }
    csv += csv_record(fields);
  }
  return csv;
}

}  // namespace grade
