#include "cpusim/launch_log.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace cpusim::log {

namespace {

// "key=value" words; from " object=" on, the rest of the line is the object's path.
Words words_of(const std::string& line) {
  Words w;
  const size_t object = line.find(" object=");
  std::istringstream words(line.substr(0, object));
  for (std::string word; words >> word;) {
    const size_t eq = word.find('=');
    if (eq != std::string::npos) w.values[word.substr(0, eq)] = word.substr(eq + 1);
  }
  if (object != std::string::npos) w.values["object"] = line.substr(object + 8);
  return w;
}

}  // namespace

std::string Words::text(const std::string& key) const {
  const auto it = values.find(key);
  return it == values.end() ? "" : it->second;
}

double Words::number(const std::string& key) const {
  const auto it = values.find(key);
  return it == values.end() ? 0 : std::atof(it->second.c_str());
}

std::vector<Launch> read_launch_log(const std::string& path) {
  std::vector<Launch> launches;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("access ", 0) == 0) {
      if (!launches.empty()) launches.back().instructions.push_back(Instruction{words_of(line)});
      continue;
    }
    Words w = words_of(line);
    if (w.values.count("kernel") == 0) continue;
    launches.push_back(Launch{std::move(w), {}});
  }
  return launches;
}

}  // namespace cpusim::log
