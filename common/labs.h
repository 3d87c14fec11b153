// The table of labs (labs.txt, at the checkout's root): which labs there are, and for each the
// names that follow from its folder's, and its problem. Everything that lists the labs reads it.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "common/problems.h"

namespace lab {

// One step of a lab, graded on its own: a launcher of the lab's one student file. A lab
// without steps has one step, its launcher stem().
struct LabStep {
  int number = 1;        // 1, 2, ...: the order to do them in; STEP=2 names the second
  int count = 1;         // how many steps the lab has
  std::string suffix;    // "1d": the launcher stem_1d(); "" for the last step, stem() itself
  std::string id;        // "03_matmul_register.1d", its rubric section; the lab's folder for the last step
  std::string launcher;  // "matmul_register_1d"
  std::string title;     // "lab 03 matmul_register, step 1 (1d)"; "lab 01 matmul_naive" for a lab without steps
  // "2", or "2d" for a step before the last
  bool named(const std::string& name) const { return name == std::to_string(number) || (!suffix.empty() && name == suffix); }
};

struct LabEntry {
  std::string folder;  // "05_dot_reduction"
  std::string number;  // "05"
  std::string stem;    // "dot_reduction": the student's file is stem.cu, its launcher stem()
  Op op = Op::kMatmul;
  std::vector<std::string> steps;  // {"1d", "2d"}: the steps before the last, which is stem()
  std::string file() const { return stem + ".cu"; }
  std::vector<LabStep> step_list() const;  // every step, the last one stem() itself
  bool named(const std::string& name) const { return name == number || name == folder; }
};

// Reads the table at PATH. False, with "PATH:LINE: what" in *error, when it cannot be read or
// a row is not "NN_stem problem [steps]", or a number or a step comes twice.
bool read_labs(const std::string& path, std::vector<LabEntry>* labs, std::string* error);

// The checkout's table, labs.txt, read from the working folder; exits 2 with the reason when
// it cannot be read (the programs that use this run from the checkout's root).
const std::vector<LabEntry>& labs();

// The entry of lab "05" or "05_dot_reduction" in LABS (of LabEntry, or of a type that holds
// one, such as a lab's rubric); nullptr when there is none.
template <class Entry>
const Entry* find_lab(const std::vector<Entry>& labs, const std::string& name) {
  for (const Entry& e : labs) {
    if (e.named(name)) return &e;
  }
  return nullptr;
}

// The labs a LAB list names ("01", "01,04", "02_matmul_tiled,05"), in LABS's order, each once
// (a lab in steps has an entry per step: all of them). Empty, with the first name that names no
// lab in *unknown, when one does not; an empty LIST names none.
template <class Entry>
std::vector<const Entry*> labs_named(const std::vector<Entry>& labs, const std::string& list, std::string* unknown) {
  std::vector<std::string> names;
  for (size_t start = 0; start <= list.size();) {
    const size_t comma = std::min(list.find(',', start), list.size());
    names.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  for (const std::string& name : names) {
    if (find_lab(labs, name) == nullptr) return *unknown = name, std::vector<const Entry*>{};
  }
  std::vector<const Entry*> named;
  for (const Entry& e : labs) {
    for (const std::string& name : names) {
      if (e.named(name)) {
        named.push_back(&e);
        break;
      }
    }
  }
  return named;
}

}  // namespace lab
