// The table of labs (labs.txt, at the checkout's root): which labs there are, and for each the
// names that follow from its folder's, and its problem. Everything that lists the labs reads it.
#pragma once

#include <string>
#include <vector>

#include "common/problems.h"

namespace lab {

struct LabEntry {
  std::string folder;  // "05_dot_reduction"
  std::string number;  // "05"
  std::string stem;    // "dot_reduction": the student's file is stem.cu, its launcher stem()
  Op op = Op::kMatmul;
  std::string file() const { return stem + ".cu"; }
  bool named(const std::string& name) const { return name == number || name == folder; }
};

// Reads the table at PATH. False, with "PATH:LINE: what" in *error, when it cannot be read or
// a row is not "NN_stem problem", or a number comes twice.
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

}  // namespace lab
