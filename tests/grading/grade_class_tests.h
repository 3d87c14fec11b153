// What the tests of make grade-class and of the tools built on its libraries share
// (test_grade_class, test_downloads, test_gradescope, test_prairielearn, test_similarity). mk/ defines GRADE_CLASS_MISSING for
// them where those libraries are missing: their tests are then reported skipped.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

#ifndef GRADE_CLASS_MISSING
#include <nlohmann/json.hpp>
#endif

#include "tools/subprocess.h"

namespace lab_test {

#ifdef GRADE_CLASS_MISSING
constexpr bool kNoGradeClass = true;
#else
constexpr bool kNoGradeClass = false;
#endif

// Writes TEXT to PATH, making its folders first.
inline void put(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

inline uint32_t crc32_of(const std::string& data) {
  uint32_t crc = 0xFFFFFFFF;
  for (unsigned char c : data) {
    crc ^= c;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
  }
  return ~crc;
}

// A zip of FILES (name, bytes), stored uncompressed: names are written as given, ../ included,
// which is what a hostile archive does. MODE is each entry's Unix type and mode (a link's bytes
// are its target), made on Unix (host 3: zip tools read the mode only then).
inline std::string make_zip(const std::vector<std::pair<std::string, std::string>>& files, uint32_t mode = 0100644) {
  auto le = [](uint32_t v, int bytes) {
    std::string s;
    for (int i = 0; i < bytes; ++i) s += char(v >> (8 * i) & 0xFF);
    return s;
  };
  std::string zip, directory;
  for (const auto& [name, data] : files) {
    const std::string common = le(0, 2) + le(0, 2) + le(0, 4) + le(crc32_of(data), 4) + le(uint32_t(data.size()), 4) +
                               le(uint32_t(data.size()), 4) + le(uint32_t(name.size()), 2) + le(0, 2);
    directory += le(0x02014b50, 4) + le(3 << 8 | 20, 2) + le(20, 2) + common + le(0, 2) + le(0, 2) + le(0, 2) + le(mode << 16, 4) +
                 le(uint32_t(zip.size()), 4) + name;
    zip += le(0x04034b50, 4) + le(20, 2) + common + name + data;
  }
  return zip + directory + le(0x06054b50, 4) + le(0, 4) + le(uint32_t(files.size()), 2) + le(uint32_t(files.size()), 2) +
         le(uint32_t(directory.size()), 4) + le(uint32_t(zip.size()), 4) + le(0, 2);
}

// Runs a course tool (make, a platform's autograder) with ENV added, in CWD ("" for here), for
// as long as a grading of a lab may take.
inline tools::RunResult run_tool(const std::vector<std::string>& argv, const std::vector<std::string>& env = {},
                                 const std::string& cwd = "") {
  tools::RunOptions options;
  options.timeout_s = 600;
  options.env = env;
  options.cwd = cwd;
  return tools::run_command(argv, options);
}

#ifndef GRADE_CLASS_MISSING
// The test named NAME in a platform's results (its KEY: "name" for Gradescope and PrairieLearn,
// "test-name" for Classroom 50); fails the test case when there is none.
inline const nlohmann::json& test_named(const nlohmann::json& results, const std::string& name, const char* key = "name") {
  for (const nlohmann::json& t : results["tests"]) {
    if (t[key] == name) return t;
  }
  FAIL("no test '" << name << "' in " << results.dump(2));
  static const nlohmann::json none;
  return none;
}
#endif

}  // namespace lab_test
