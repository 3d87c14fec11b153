#include "grading/class/gradebook.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/text.h"
#include "grading/class/csv.h"
#include "grading/class/json.h"
#include "grading/report.h"

namespace grade {

namespace {

// The first line of OUTPUT with a hint, else its first line.
std::string first_hint(const std::string& output) {
  std::istringstream lines(output);
  std::string first;
  for (std::string line; std::getline(lines, line);) {
    line = text::trim(line);
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

void add_test(const JsonValue& test, const std::vector<lab::LabEntry>& labs, GradebookRow* row) {
  const JsonValue *name = test.get("name"), *score = test.get("score"), *max = test.get("max_score");
  const JsonValue *status = test.get("status"), *output = test.get("output");
  if (!name || !score || !max || !status || !output) return;
  for (size_t i = 0; i < labs.size(); ++i) {
    if (name->string.rfind("lab " + labs[i].number + " ", 0) != 0) continue;
    row->lab_points[i] += score->number;
    row->lab_max[i] += max->number;
    if (text::contains(name->string, ": performance")) row->launcher_ms[i] = launcher_ms(output->string);
    if (status->string == "failed") row->failed.push_back({name->string, first_hint(output->string)});
  }
}

}  // namespace

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
  row->failed.clear();
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  JsonValue results;
  std::string error;
  if (!in || !parse_json(text.str(), &results, &error)) return row->status = "could not grade: no results.json from the grader", false;
  const JsonValue *output = results.get("output"), *tests = results.get("tests");
  if (!output || !tests) return row->status = "could not grade: the grader's results.json lacks its output or tests", false;
  if (tests->items.empty()) {
    // write_could_not_grade's: "make grade could not grade this submission: why"
    const size_t colon = output->string.find(": ");
    return row->status = "could not grade: " + output->string.substr(colon == std::string::npos ? 0 : colon + 2), false;
  }
  for (const JsonValue& test : tests->items) add_test(test, labs, row);
  row->device = device_of(output->string, src);
  row->status = "graded";
  return true;
}

std::string gradebook_csv(const std::vector<GradebookRow>& rows, const std::vector<lab::LabEntry>& labs) {
  std::vector<std::string> header = {"id", "name", "status"};
  for (const lab::LabEntry& l : labs) header.push_back(l.folder);
  header.insert(header.end(), {"total", "max", "seed", "gpu", "notes", "report"});
  std::string csv = csv_record(header);
  for (const GradebookRow& r : rows) {
    std::vector<std::string> fields = {printable(r.student.id), printable(r.student.name), r.status};
    for (size_t i = 0; i < labs.size(); ++i) fields.push_back(i < r.lab_points.size() ? points_text(r.lab_points[i]) : "0");
    std::string notes;
    for (const std::string& n : r.notes) notes += (notes.empty() ? "" : "; ") + n;
    fields.insert(fields.end(), {points_text(r.total()), points_text(r.max_total()), std::to_string(r.seed), r.device, notes, r.report});
    csv += csv_record(fields);
  }
  return csv;
}

}  // namespace grade
