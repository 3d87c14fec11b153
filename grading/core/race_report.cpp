#include "grading/core/race_report.h"

#include <map>
#include <regex>
#include <sstream>

namespace grade {

namespace {

// One side of a race: what a thread did, where.
struct Access {
  std::string verb;    // "reads", "writes", ...
  std::string thread;  // "T3"
  std::string where;   // "dot_reduction.cu:119"
};

std::string basename_of(const std::string& path) { return path.substr(path.rfind('/') + 1); }

// "Read", "Previous write", "Atomic write"... as a verb: now, or before (the previous access).
std::string verb_of(std::string kind, bool previous) {
  for (char& c : kind) c = char(std::tolower(static_cast<unsigned char>(c)));
  const bool atomic = kind.find("atomic") != std::string::npos;
  const bool write = kind.find("write") != std::string::npos;
  std::string verb = previous ? (write ? "wrote" : "read") : (write ? "writes" : "reads");
  return atomic ? verb + " (atomically)" : verb;
}

// "CUDA block (1,0,0) thread (0,0,0)" -> "(1,0,0)"; "" for another name.
std::string block_of(const std::string& name) {
  static const std::regex block(R"(block (\([0-9]+,[0-9]+,[0-9]+\)))");
  std::smatch m;
  return std::regex_search(name, m, block) ? m[1].str() : "";
}

std::vector<std::string> one_race(const std::vector<std::string>& lines, const std::string& file) {
  static const std::regex access(R"(^  (Previous )?([A-Za-z ]*?)(read|write) of size ([0-9]+) at \S+ by (thread T[0-9]+|main thread))",
                                 std::regex::icase);
  static const std::regex frame(R"(^    #([0-9]+) .* ([^\s:]+):([0-9]+)(:[0-9]+)? \()");
  static const std::regex thread(R"(^  Thread (T[0-9]+) '([^']*)')");
  std::vector<Access> accesses;
  std::map<std::string, std::string> names;
  std::string size;
  for (const std::string& line : lines) {
    std::smatch m;
    if (std::regex_search(line, m, access)) {
      const bool previous = m[1].matched;
      accesses.push_back({verb_of(m[2].str() + m[3].str(), previous), m[5].str().substr(m[5].str().rfind(' ') + 1), ""});
      size = m[4].str();
    } else if (std::regex_search(line, m, frame) && !accesses.empty()) {
      const std::string where = basename_of(m[2].str()) + ":" + m[3].str();
      // The innermost frame in the student's file; failing that, the innermost.
      std::string& w = accesses.back().where;
      if (w.empty() || (basename_of(m[2].str()) == file && w.rfind(file + ":", 0) != 0)) w = where;
    } else if (std::regex_search(line, m, thread)) {
      names[m[1].str()] = m[2].str();
    }
  }
  if (accesses.size() < 2) return {};
  auto who = [&](const Access& a) {
    const auto it = names.find(a.thread);
    return it == names.end() ? "the host" : it->second;
  };
  const std::string now = who(accesses[0]), before = who(accesses[1]);
  std::vector<std::string> text = {"a race on " + size + " bytes: " + now + " " + accesses[0].verb + " them at " +
                                   accesses[0].where + " while " + before + " " + accesses[1].verb + " them at " +
                                   accesses[1].where + ", and nothing orders the two"};
  const std::string b0 = block_of(now), b1 = block_of(before);
  if (!b0.empty() && !b1.empty() && b0 != b1) {
    text.push_back("hint: threads of different blocks run at the same time on a GPU, and only atomics (atomicAdd) "
                   "or the end of the launch order them: add into shared results with an atomic");
  } else if (!b0.empty() && b0 == b1) {
    text.push_back("hint: threads of one block are ordered by __syncthreads(): a barrier is missing between these "
                   "two accesses, or the two threads should not touch the same element");
  }
  return text;
}

}  // namespace

std::vector<std::string> races_in_plain_words(const std::string& report, const std::string& file, size_t max) {
  std::vector<std::string> out;
  std::vector<std::string> race;
  bool in_race = false;
  size_t found = 0;
  auto finish = [&] {
    if (in_race && found < max) {
      const std::vector<std::string> text = one_race(race, file);
      if (!text.empty()) ++found;
      out.insert(out.end(), text.begin(), text.end());
    }
    race.clear();
    in_race = false;
  };
  std::istringstream in(report);
  for (std::string line; std::getline(in, line);) {
    if (line.find("WARNING: ThreadSanitizer: data race") != std::string::npos) {
      finish();
      in_race = true;
    } else if (line.rfind("SUMMARY: ThreadSanitizer", 0) == 0) {
      finish();
    } else if (in_race) {
      race.push_back(line);
    }
  }
  finish();
  return out;
}

}  // namespace grade
