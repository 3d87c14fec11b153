#include "grading/rubric.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/text.h"

namespace grade {

namespace {

bool parse_number(const std::string& text, double* value) {
  char* end = nullptr;
  *value = std::strtod(text.c_str(), &end);
  return !text.empty() && *end == '\0' && *value >= 0;
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
  auto fail = [&](const std::string& what) {
    *error = path + ":" + std::to_string(number) + ": " + what;
    return false;
  };
  for (std::string line; std::getline(in, line);) {
    ++number;
    line = text::trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    if (line.front() == '[') {
      if (line.back() != ']') return fail("a section is written [NN_name]");
      const std::string name = line.substr(1, line.size() - 2);
      const lab::LabEntry* known = lab::find_lab(labs, name);
      if (known == nullptr || known->folder != name) return fail("no lab named '" + name + "' in labs.txt");
      rubric->labs.emplace_back();
      current = &rubric->labs.back();
      static_cast<lab::LabEntry&>(*current) = *known;
      continue;
    }
    const size_t eq = line.find('=');
    if (eq == std::string::npos) return fail("expected 'key = value'");
    const std::string key = text::trim(line.substr(0, eq)), value = text::trim(line.substr(eq + 1));
    double number_value = 0;
    const bool numeric = parse_number(value, &number_value);
    if (current == nullptr) {
      if (!numeric) return fail(key + " takes a number of seconds");
      if (key == "timeout.build") rubric->timeout_build = number_value;
      else if (key == "timeout.run") rubric->timeout_run = number_value;
      else return fail("unknown setting '" + key + "'");
      continue;
    }
    LabRubric& l = *current;
    double* points = key == "points.build"         ? &l.points_build
                     : key == "points.correctness" ? &l.points_correctness
                     : key == "points.safety"      ? &l.points_safety
                     : key == "points.technique"   ? &l.points_technique
                     : key == "points.performance" ? &l.points_performance
                     : key == "performance.full_at" ? &l.full_at
                                                    : nullptr;
    if (points != nullptr) {
      if (!numeric) return fail(key + " takes a number >= 0, not '" + value + "'");
      if (points == &l.full_at && (number_value <= 0 || number_value > 1)) return fail("performance.full_at is a share in (0, 1]");
      *points = number_value;
    } else if (key == "shapes") {
      std::istringstream words(value);
      for (std::string word; words >> word;) {
        lab::Case c;
        if (!parse_shape(l.op, word, &c)) return fail("'" + word + "' is not a shape of this lab");
        l.shapes.push_back(c);
      }
    } else if (key == "main_shapes") {
      std::istringstream words(value);
      for (std::string word; words >> word;) {
        lab::Case c;
        if (!parse_shape(l.op, word, &c)) return fail("'" + word + "' is not a shape of this lab");
        size_t i = 0;
        while (i < l.shapes.size() && l.shapes[i].describe() != c.describe()) ++i;
        if (i == l.shapes.size()) return fail("main shape '" + word + "' is not one of the shapes listed above it");
        l.main_shapes.push_back(i);
      }
    } else if (key == "safety_shape" || key == "technique_shape" || key == "performance_shape") {
      lab::Case* target = key == "safety_shape" ? &l.safety_shape : key == "technique_shape" ? &l.technique_shape : &l.performance_shape;
      if (!parse_shape(l.op, value, target) || target->empty()) return fail("'" + value + "' is not a non-empty shape of this lab");
    } else if (key == "technique") {
      // none and one_pass stand alone; the others take a number (grading/technique.h).
      const size_t eq = value.find('=');
      const std::string name = value.substr(0, eq);
      const bool numbered = name == "reuse" || name == "outputs_per_thread" || name == "coalesced";
      if (eq == std::string::npos ? !(name == "none" || name == "one_pass")
                                  : !numbered || !parse_number(value.substr(eq + 1), &l.technique_limit)) {
        return fail("technique is none, reuse=BYTES_PER_FMA, outputs_per_thread=N, coalesced=SHARE or one_pass");
      }
      l.technique = name;
    } else {
      return fail("unknown setting '" + key + "'");
    }
  }
  for (LabRubric& l : rubric->labs) {
    if (l.shapes.empty()) return fail(l.folder + " has no shapes");
    if (l.main_shapes.empty()) {
      for (size_t i = 0; i < l.shapes.size(); ++i) {
        if (!l.shapes[i].empty()) l.main_shapes.push_back(i);
      }
    }
    if (l.safety_shape.empty() || l.technique_shape.empty() || l.performance_shape.empty()) {
      return fail(l.folder + " needs safety_shape, technique_shape and performance_shape");
    }
  }
  return true;
}

}  // namespace grade
