// A JSON reader, enough for the grader's own results.json (report.h writes it): the class grader
// builds its gradebook from each student's results.json rather than grading anything itself.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace grade {

struct JsonValue {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject } type = Type::kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<JsonValue> items;                             // an array's
  std::vector<std::pair<std::string, JsonValue>> members;  // an object's, in order

  // The member NAME of an object, or nullptr.
  const JsonValue* get(const std::string& name) const;
};

// Parses TEXT (one value, blanks around it); false, with where and why in *error, when it is not JSON.
bool parse_json(const std::string& text, JsonValue* value, std::string* error);

}  // namespace grade
