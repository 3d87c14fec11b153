#include "common/labs.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/exit_codes.h"

namespace lab {

std::vector<LabStep> LabEntry::step_list() const {
  std::vector<LabStep> list;
  const int count = int(steps.size()) + 1;
  for (int i = 0; i < count; ++i) {
    LabStep s;
    s.number = i + 1;
    s.count = count;
    s.suffix = i < int(steps.size()) ? steps[i] : "";
    s.id = folder + (s.suffix.empty() ? "" : "." + s.suffix);
    s.launcher = stem + (s.suffix.empty() ? "" : "_" + s.suffix);
    s.title = "lab " + number + " " + stem;
    if (count > 1) s.title += ", step " + std::to_string(s.number) + (s.suffix.empty() ? "" : " (" + s.suffix + ")");
    list.push_back(s);
  }
  return list;
}

namespace {

// "1d,2d" -> {"1d", "2d"}: each a launcher's suffix (letters, digits), none twice, none a number
// (STEP=2 names the second step by its number). The error, or "".
std::string parse_steps(const std::string& text, std::vector<std::string>* steps) {
  std::istringstream in(text);
  for (std::string step; std::getline(in, step, ',');) {
    bool word = !step.empty();
    bool number = true;
    for (char ch : step) {
      word &= std::islower((unsigned char)ch) || std::isdigit((unsigned char)ch);
      number &= std::isdigit((unsigned char)ch) != 0;
    }
    if (!word || number) return "a step is a launcher's suffix of lower-case letters and digits, not a number: '" + step + "'";
    for (const std::string& s : *steps) {
      if (s == step) return "step '" + step + "' comes twice";
    }
    steps->push_back(step);
  }
  return "";
}

}  // namespace

bool read_labs(const std::string& path, std::vector<LabEntry>* labs, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = "cannot read " + path + ", the table of labs";
    return false;
  }
  labs->clear();
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    std::istringstream words(line.substr(0, line.find('#')));
    std::string folder, problem, steps, extra;
    if (!(words >> folder)) continue;  // a blank line or a comment
    words >> problem >> steps >> extra;
    auto fail = [&](const std::string& what) {
      *error = path + ":" + std::to_string(number) + ": " + what;
      return false;
    };
    const bool named = folder.size() > 3 && std::isdigit((unsigned char)folder[0]) &&
                       std::isdigit((unsigned char)folder[1]) && folder[2] == '_';
    if (!named || problem.empty() || !extra.empty()) return fail("a row is a folder NN_stem, a problem and maybe its steps, not '" + line + "'");
    LabEntry e;
    e.folder = folder;
    e.number = folder.substr(0, 2);
    e.stem = folder.substr(3);
    if (!parse_op(problem, &e.op)) return fail("no problem '" + problem + "' (matmul, transpose or dot)");
    if (const std::string what = parse_steps(steps, &e.steps); !what.empty()) return fail(what);
    if (find_lab(*labs, e.number) != nullptr) return fail("lab " + e.number + " comes twice");
    labs->push_back(e);
  }
  if (labs->empty()) {
    *error = path + " lists no lab";
    return false;
  }
  return true;
}

const std::vector<LabEntry>& labs() {
  static const std::vector<LabEntry> table = [] {
    std::vector<LabEntry> read;
    std::string error;
    if (!read_labs("labs.txt", &read, &error)) {
      std::fprintf(stderr, "%s (run from the checkout's root)\n", error.c_str());
      std::exit(kExitCannotRun);
    }
    return read;
  }();
  return table;
}

}  // namespace lab
