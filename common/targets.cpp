#include "common/targets.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace lab {

namespace {

std::vector<std::string> tab_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::istringstream in(line);
  for (std::string f; std::getline(in, f, '\t');) fields.push_back(f);
  if (!line.empty() && line.back() == '\t') fields.push_back("");
  return fields;
}

bool same_key(const Target& a, const Target& b) { return a.gpu == b.gpu && a.part == b.part && a.shape == b.shape; }

}  // namespace

bool parse_targets(const std::string& text, const std::string& path, std::vector<Target>* targets, std::string* error) {
  std::istringstream in(text);
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    auto fail = [&](const std::string& what) {
      *error = path + ":" + std::to_string(n) + ": " + what;
      return false;
    };
    const std::vector<std::string> f = tab_fields(line);
    if (f.size() != 8) return fail("a target has 8 fields separated by tabs (gpu, part, shape, ceiling, share, date, commit, source); this line has " + std::to_string(f.size()));
    Target t{f[0], f[1], f[2], f[3], 0, f[5], f[6], f[7]};
    char* end = nullptr;
    t.share = std::strtod(f[4].c_str(), &end);
    if (f[4].empty() || *end != '\0' || !std::isfinite(t.share) || t.share <= 0 || t.share > 10) {
      return fail("the share '" + f[4] + "' is not a number above 0 (the solution's speed over the ceiling's, 0.906 for 90.6%)");
    }
    if (t.gpu.empty() || t.part.empty() || t.shape.empty()) return fail("a target names its GPU, its part and its shape");
    for (const Target& other : *targets) {
      if (same_key(other, t)) return fail("a second target for " + t.part + " at " + t.shape + " on " + t.gpu);
    }
    targets->push_back(t);
  }
  return true;
}

std::string format_targets(const std::string& header, std::vector<Target> targets) {
  std::stable_sort(targets.begin(), targets.end(), [](const Target& a, const Target& b) {
    return a.gpu != b.gpu ? a.gpu < b.gpu : a.part < b.part;
  });
  std::ostringstream out;
  out << header;
  for (const Target& t : targets) {
    char share[32];
    std::snprintf(share, sizeof share, "%.4f", t.share);
    out << t.gpu << '\t' << t.part << '\t' << t.shape << '\t' << t.ceiling << '\t' << share << '\t' << t.date << '\t'
        << t.commit << '\t' << t.source << '\n';
  }
  return out.str();
}

const Target* find_target(const std::vector<Target>& targets, const std::string& gpu, const std::string& part,
                          const std::string& shape) {
  for (const Target& t : targets) {
    if (t.gpu == gpu && t.part == part && t.shape == shape) return &t;
  }
  return nullptr;
}

void put_target(std::vector<Target>* targets, const Target& t) {
  for (Target& old : *targets) {
    if (same_key(old, t)) {
      old = t;
      return;
    }
  }
  targets->push_back(t);
}

}  // namespace lab
