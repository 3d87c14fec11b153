// Command-line options for lab programs: `--name value` or `--name=value`, `--help`.
// Bad input never crashes a program: it gets one line saying what is wrong and exit code 2.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lab {

class Cli {
 public:
  Cli(std::string program, std::string summary);

  // Options, each with the variable it sets; the variable's value is the default.
  void add_int(const std::string& name, int64_t* value, int64_t min, int64_t max, const std::string& help);
  void add_flag(const std::string& name, bool* value, const std::string& help);
  void add_string(const std::string& name, std::string* value, const std::string& help);
  // An option that may be given more than once: each value is added to VALUES.
  void add_strings(const std::string& name, std::vector<std::string>* values, const std::string& help);

  // Sets the variables from argv. --help prints the usage and exits 0; anything wrong prints
  // one line and exits with kExitCannotRun.
  void parse(int argc, const char* const* argv);
  // The same without exiting (and without --help): returns what is wrong, or "".
  std::string try_parse(int argc, const char* const* argv);

  std::string usage() const;

 private:
  enum class Kind { kInt, kFlag, kString, kStrings };
  struct Option {
    std::string name;
    Kind kind;
    void* value;
    int64_t min, max;
    std::string help;
    std::string default_text;
  };
  const Option* find(const std::string& name) const;

  std::string program_, summary_;
  std::vector<Option> options_;
};

}  // namespace lab
