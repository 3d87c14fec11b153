#include "grading/core/rubric.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tools/text.h"

namespace grade {

namespace {

bool parse_number(const std::string& text, double* value) {
  char* end = nullptr;
  *value = std::strtod(text.c_str(), &end);
  return !text.empty() && *end == '\0' && *value >= 0;
}

// A section header, "[NN_name]", or "[NN_name.step]" for a step of a lab in steps (labs.txt):
// a step of a lab of LABS, whose settings follow until the next header.
std::string read_section(const std::string& line, const std::vector<lab::LabEntry>& labs, Rubric* rubric,
                         LabRubric** current) {
  if (line.back() != ']') return "a section is written [NN_name] or [NN_name.step]";
  const std::string name = line.substr(1, line.size() - 2);
  const std::string folder = name.substr(0, name.find('.'));
  const lab::LabEntry* known = lab::find_lab(labs, folder);
  if (known == nullptr || known->folder != folder) return "no lab named '" + folder + "' in labs.txt";
  const std::vector<lab::LabStep> steps = known->step_list();
  const auto step = std::find_if(steps.begin(), steps.end(), [&](const lab::LabStep& s) { return s.id == name; });
  if (step == steps.end()) return "lab " + folder + " has no step '" + name.substr(folder.size() + 1) + "' in labs.txt";
  for (const LabRubric& l : rubric->labs) {
    if (l.step.id == name) return "section [" + name + "] comes twice";
  }
  rubric->labs.emplace_back();
  *current = &rubric->labs.back();
  static_cast<lab::LabEntry&>(**current) = *known;
  (*current)->step = *step;
  return "";
}

// A setting before the first section: a timeout of every lab, or the late policy's rule.
std::string read_class_setting(const std::string& key, const std::string& value, Rubric* rubric) {
  double number = 0;
  if (key.rfind("late.", 0) == 0) {
    if (!parse_number(value, &number)) return key + " takes a number >= 0";
    if (key == "late.per_day") rubric->late.per_day = number;
    else if (key == "late.max") rubric->late.max = number;
    else if (key == "late.grace_minutes") rubric->late.grace_minutes = number;
    else return "unknown setting '" + key + "' (late.per_day, late.max, late.grace_minutes)";
    if ((key == "late.per_day" || key == "late.max") && number > 100) return key + " is a percent, at most 100";
    return "";
  }
  if (key == "memory.run") {
    if (!parse_number(value, &number) || number < 64) return key + " takes a number of MiB, at least 64";
    rubric->memory_run = number;
    return "";
  }
  if (!parse_number(value, &number)) return key + " takes a number of seconds";
  if (key == "timeout.build") rubric->timeout_build = number;
  else if (key == "timeout.run") rubric->timeout_run = number;
  else if (key == "timeout.student") rubric->timeout_student = number;
  else return "unknown setting '" + key + "'";
  return "";
}

// Each word of VALUE as a shape of the lab's op, handed to TAKE, which says what is wrong with
// it, if anything.
template <typename Take>
std::string read_shapes(lab::Op op, const std::string& value, Take take) {
  std::istringstream words(value);
  for (std::string word; words >> word;) {
    lab::Case c;
    if (!parse_shape(op, word, &c)) return "'" + word + "' is not a shape of this lab";
    if (const std::string what = take(word, c); !what.empty()) return what;
  }
  return "";
}

// A main, once or watched shape names one of the shapes listed above it; it is kept as that
// shape's index in *INDICES.
std::string read_named_shapes(const std::string& what, const std::string& value, LabRubric* l, std::vector<size_t>* indices) {
  return read_shapes(l->op, value, [&](const std::string& word, const lab::Case& c) {
    size_t i = 0;
    while (i < l->shapes.size() && l->shapes[i].describe() != c.describe()) ++i;
    if (i == l->shapes.size()) return what + " '" + word + "' is not one of the shapes listed above it";
    indices->push_back(i);
    return std::string();
  });
}

// none, or rules separated by blanks: one_pass stands alone, the others take a number
// (grading/core/technique.h).
std::string read_technique(const std::string& value, LabRubric* l) {
  l->technique.clear();
  std::istringstream words(value);
  for (std::string word; words >> word;) {
    const size_t eq = word.find('=');
    TechniqueRule rule{word.substr(0, eq)};
    const bool numbered = rule.name == "reuse" || rule.name == "outputs_per_thread" || rule.name == "coalesced" ||
                          rule.name == "bank_conflicts";
    const bool alone = rule.name == "none" || rule.name == "one_pass";
    if (eq == std::string::npos ? !alone : !numbered || !parse_number(word.substr(eq + 1), &rule.limit)) {
      return "technique is none, or one or more of reuse=BYTES_PER_FMA, outputs_per_thread=N, coalesced=SHARE, "
             "bank_conflicts=WAYS and one_pass";
    }
    if (rule.name == "none") return l->technique.empty() && !(words >> word) ? "" : "technique none stands alone";
    l->technique.push_back(rule);
  }
  if (l->technique.empty()) return "technique is none, or one or more rules (grading/core/technique.h)";
  return "";
}

// A setting of the lab of the section it stands in.
std::string read_lab_setting(const std::string& key, const std::string& value, LabRubric* l) {
  double* points = key == "points.build"         ? &l->points_build
                   : key == "points.correctness" ? &l->points_correctness
                   : key == "points.safety"      ? &l->points_safety
                   : key == "points.technique"   ? &l->points_technique
                   : key == "points.performance" ? &l->points_performance
                   : key == "performance.full_at" ? &l->full_at
                                                  : nullptr;
  if (points != nullptr) {
    double number = 0;
    if (!parse_number(value, &number)) return key + " takes a number >= 0, not '" + value + "'";
    if (points == &l->full_at && (number <= 0 || number > 1)) return "performance.full_at is a share in (0, 1]";
    *points = number;
    return "";
  }
  if (key == "shapes") {
    return read_shapes(l->op, value, [&](const std::string&, const lab::Case& c) {
      l->shapes.push_back(c);
      return std::string();
    });
  }
  if (key == "main_shapes") return read_named_shapes("main shape", value, l, &l->main_shapes);
  if (key == "once_shapes") return read_named_shapes("once shape", value, l, &l->once_shapes);
  if (key == "watched_shapes") return read_named_shapes("watched shape", value, l, &l->watched_shapes);
  if (key == "safety_shape" || key == "technique_shape" || key == "performance_shape" || key == "race_shape") {
    lab::Case* target = key == "safety_shape"      ? &l->safety_shape
                        : key == "technique_shape" ? &l->technique_shape
                        : key == "race_shape"      ? &l->race_shape
                                                   : &l->performance_shape;
    if (!parse_shape(l->op, value, target) || target->empty()) return "'" + value + "' is not a non-empty shape of this lab";
    return "";
  }
  if (key == "technique") return read_technique(value, l);
  if (key == "due") {
    if (!parse_time(value, &l->due)) return "due takes a date, a time and its zone: 2026-12-01 23:59 +01:00 (or Z for UTC)";
    return "";
  }
  return "unknown setting '" + key + "'";
}

// A "key = value" line: a timeout before the first section, a setting of LAB in one.
std::string read_setting(const std::string& line, Rubric* rubric, LabRubric* lab) {
  const size_t eq = line.find('=');
  if (eq == std::string::npos) return "expected 'key = value'";
  const std::string key = tools::trim(line.substr(0, eq)), value = tools::trim(line.substr(eq + 1));
  return lab == nullptr ? read_class_setting(key, value, rubric) : read_lab_setting(key, value, lab);
}

// What holds once every section is read: each lab has its shapes (main shapes by default every
// non-empty one) and the shapes of its later checks.
// A lab in steps is built once, its build's points given in its first step's section; its steps
// are graded in their order, whatever the order of the sections.
std::string complete_labs(Rubric* rubric) {
  std::stable_sort(rubric->labs.begin(), rubric->labs.end(), [](const LabRubric& a, const LabRubric& b) {
    return a.folder == b.folder ? a.step.number < b.step.number : a.number < b.number;
  });
  for (LabRubric& l : rubric->labs) {
    if (l.step.number > 1 && l.points_build > 0) {
      return "[" + l.step.id + "]: a lab is built once, its build's points given with its first step: points.build is 0 here";
    }
    if (l.shapes.empty()) return l.step.id + " has no shapes";
    if (l.main_shapes.empty()) {
      for (size_t i = 0; i < l.shapes.size(); ++i) {
        if (!l.shapes[i].empty()) l.main_shapes.push_back(i);
      }
    }
    if (l.safety_shape.empty() || l.technique_shape.empty() || l.performance_shape.empty()) {
      return l.step.id + " needs safety_shape, technique_shape and performance_shape";
    }
  }
  // A lab is handed in once: its steps are due together. The due time may be given in any one.
  for (LabRubric& l : rubric->labs) {
    for (LabRubric& other : rubric->labs) {
      if (other.folder != l.folder || other.due == l.due) continue;
      if (l.due >= 0 && other.due >= 0) return "lab " + l.folder + "'s steps give different due times: a lab is due once";
      l.due = other.due = std::max(l.due, other.due);
    }
  }
  return "";
}

}  // namespace

bool parse_shape(lab::Op op, const std::string& text_in, lab::Case* c) {
  // "1025@1": the shape 1025 with its arrays one float past an aligned address.
  std::string text = text_in;
  int64_t offset = 0;
  const size_t at = text.find('@');
  if (at != std::string::npos) {
    char* end = nullptr;
    offset = std::strtoll(text.c_str() + at + 1, &end, 10);
    if (at + 1 == text.size() || *end != '\0' || offset < 0 || offset > 1024) return false;
    text = text.substr(0, at);
  }
  std::vector<int64_t> dims;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, 'x');) {
    char* end = nullptr;
    const long long v = std::strtoll(part.c_str(), &end, 10);
    if (part.empty() || *end != '\0' || v < 0 || v > 2147483647LL) return false;
    dims.push_back(v);
  }
  const size_t want = op == lab::Op::kMatmul ? 3 : op == lab::Op::kTranspose ? 2 : 1;
  if (dims.size() != want) return false;
  *c = op == lab::Op::kMatmul      ? lab::Case::matmul(dims[0], dims[1], dims[2])
       : op == lab::Op::kTranspose ? lab::Case::transpose(dims[0], dims[1])
                                   : lab::Case::dot(dims[0]);
  c->offset = offset;
  return true;
}

bool read_rubric(const std::string& path, const std::vector<lab::LabEntry>& labs, Rubric* rubric, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = path + ": cannot read the rubric";
    return false;
  }
  *rubric = Rubric();
  LabRubric* current = nullptr;
  int number = 0;
  std::string what;
  for (std::string line; what.empty() && std::getline(in, line);) {
    ++number;
    line = tools::trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    what = line.front() == '[' ? read_section(line, labs, rubric, &current) : read_setting(line, rubric, current);
  }
  // An error found after the last section is reported at the file's last line.
  if (what.empty()) what = complete_labs(rubric);
  if (what.empty()) return true;
  *error = path + ":" + std::to_string(number) + ": " + what;
  return false;
}

}  // namespace grade
