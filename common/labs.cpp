#include "common/labs.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/exit_codes.h"

namespace lab {

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
    std::string folder, problem, extra;
    if (!(words >> folder)) continue;  // a blank line or a comment
    words >> problem >> extra;
    auto fail = [&](const std::string& what) {
      *error = path + ":" + std::to_string(number) + ": " + what;
      return false;
    };
    const bool named = folder.size() > 3 && std::isdigit((unsigned char)folder[0]) &&
                       std::isdigit((unsigned char)folder[1]) && folder[2] == '_';
    if (!named || problem.empty() || !extra.empty()) return fail("a row is a folder NN_stem and a problem, not '" + line + "'");
    LabEntry e;
    e.folder = folder;
    e.number = folder.substr(0, 2);
    e.stem = folder.substr(3);
    if (!parse_op(problem, &e.op)) return fail("no problem '" + problem + "' (matmul, transpose or dot)");
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
