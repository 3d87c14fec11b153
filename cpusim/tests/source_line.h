// For the CPU backend's tests: where a marker stands in a test program's source, so that an
// expected report follows the source when it is edited.
#pragma once

#include <fstream>
#include <string>

namespace cpusim_test {

// "file:N" for the first line of `file` that contains `marker`.
inline std::string line_of(const std::string& file, const std::string& marker) {
  std::ifstream in(file);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(marker) != std::string::npos) return file + ":" + std::to_string(n);
  return file + ": marker '" + marker + "' not found";
}

}  // namespace cpusim_test
