#include "cli.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "common/exit_codes.h"

namespace lab {

Cli::Cli(std::string program, std::string summary)
    : program_(std::move(program)), summary_(std::move(summary)) {
  const size_t slash = program_.rfind('/');
  if (slash != std::string::npos) program_ = program_.substr(slash + 1);
}

void Cli::add_int(const std::string& name, int64_t* value, int64_t min, int64_t max, const std::string& help) {
  // A negative default means "chosen at run time"; the help text says how.
  options_.push_back({name, Kind::kInt, value, min, max, help, *value < 0 ? "" : std::to_string(*value)});
}

void Cli::add_flag(const std::string& name, bool* value, const std::string& help) {
  options_.push_back({name, Kind::kFlag, value, 0, 0, help, ""});
}

void Cli::add_string(const std::string& name, std::string* value, const std::string& help) {
  options_.push_back({name, Kind::kString, value, 0, 0, help, *value});
}

void Cli::add_strings(const std::string& name, std::vector<std::string>* values, const std::string& help) {
  options_.push_back({name, Kind::kStrings, values, 0, 0, help, ""});
}

const Cli::Option* Cli::find(const std::string& name) const {
  for (const Option& option : options_) {
    if (option.name == name) return &option;
  }
  return nullptr;
}

std::string Cli::usage() const {
  std::string text = "usage: " + program_ + " [options]\n" + summary_ + "\n\noptions:\n";
  for (const Option& o : options_) {
    const char* value = o.kind == Kind::kFlag ? "" : o.kind == Kind::kInt ? " N" : o.kind == Kind::kStrings ? " TEXT..." : " TEXT";
    std::string flag = "--" + o.name + value;
    flag.resize(std::max<size_t>(flag.size(), 16), ' ');
    text += "  " + flag + " ";
    // A help of several lines continues under its first.
    for (const char ch : o.help) text += ch == '\n' ? "\n" + std::string(19, ' ') : std::string(1, ch);
    text += (o.default_text.empty() ? "" : " (default " + o.default_text + ")") + "\n";
  }
  text += "  --help           print this and exit\n";
  return text;
}

std::string Cli::try_parse(int argc, const char* const* argv) {
  const std::string hint = " (try --help)";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.size() < 3 || arg.compare(0, 2, "--") != 0) return "unexpected argument '" + arg + "'" + hint;
    std::string name = arg.substr(2), text;
    bool inline_value = false;
    const size_t eq = name.find('=');
    if (eq != std::string::npos) {
      text = name.substr(eq + 1);
      name = name.substr(0, eq);
      inline_value = true;
    }
    const Option* option = find(name);
    if (option == nullptr) return "unknown option --" + name + hint;
    if (option->kind == Kind::kFlag) {
      if (inline_value) return "--" + name + " takes no value" + hint;
      *static_cast<bool*>(option->value) = true;
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= argc) return "--" + name + " needs a value" + hint;
      text = argv[++i];
    }
    if (option->kind == Kind::kString) {
      *static_cast<std::string*>(option->value) = text;
      continue;
    }
    if (option->kind == Kind::kStrings) {
      static_cast<std::vector<std::string>*>(option->value)->push_back(text);
      continue;
    }
    const std::string range = "a whole number from " + std::to_string(option->min) + " to " + std::to_string(option->max);
    errno = 0;
    char* end = nullptr;
    const long long number = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || errno == ERANGE) {
      return "--" + name + " takes " + range + ", not '" + text + "'" + hint;
    }
    if (number < option->min || number > option->max) {
      return "--" + name + " takes " + range + ", not " + text + hint;
    }
    *static_cast<int64_t*>(option->value) = number;
  }
  return "";
}

void Cli::parse(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      std::fputs(usage().c_str(), stdout);
      std::exit(kExitPass);
    }
  }
  const std::string error = try_parse(argc, argv);
  if (!error.empty()) {
    std::fprintf(stderr, "%s: %s\n", program_.c_str(), error.c_str());
    std::exit(kExitCannotRun);
  }
}

}  // namespace lab
