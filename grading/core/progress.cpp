#include "grading/core/progress.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "grading/core/utf8.h"

namespace grade {

namespace {

namespace fs = std::filesystem;

bool is_verdict(const std::string& word) { return word == "OK" || word == "FAIL" || word == "SKIP" || word == "WAIVED"; }

// A field of one line: no tab, no newline, no other control character (a student's output can
// reach a check's report), valid UTF-8, and not too long to read.
std::string field(const std::string& text) {
  std::string out;
  for (unsigned char ch : text) out += ch < 0x20 || ch == 0x7f ? ' ' : char(ch);
  const size_t start = out.find_first_not_of(' ');
  out = start == std::string::npos ? "" : out.substr(start);
  const std::string cut = utf8_prefix(valid_utf8(out), 300);
  return cut.size() < out.size() ? cut + "..." : cut;
}

// FNV-1a: a hash that is the same on every machine and compiler (std::hash is not).
uint32_t fnv1a(const std::string& text) {
  uint32_t h = 2166136261u;
  for (unsigned char ch : text) h = (h ^ ch) * 16777619u;
  return h;
}

// SRC after symbolic links: from the checkout's root when inside it, else absolute.
std::string resolved(const std::string& src) {
  std::error_code ec;
  const fs::path root = fs::weakly_canonical(fs::current_path(), ec);
  fs::path path = fs::weakly_canonical(fs::absolute(src), ec);
  if (ec) path = fs::absolute(src).lexically_normal();
  std::string text = path.generic_string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  const fs::path inside = fs::path(text).lexically_relative(root);
  if (!inside.empty() && *inside.begin() != "..") return inside.generic_string();
  return text;
}

// "2026-11-25 11:08:06"
bool is_date(const std::string& s) {
  const std::string pattern = "dddd-dd-dd dd:dd:dd";
  if (s.size() != pattern.size()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (pattern[i] == 'd' ? !std::isdigit((unsigned char)s[i]) : s[i] != pattern[i]) return false;
  }
  return true;
}

bool parse_number(const std::string& text, double* value) {
  if (text.empty()) return false;
  char* end = nullptr;
  *value = std::strtod(text.c_str(), &end);
  return *end == '\0' && std::isfinite(*value) && *value >= 0;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, sep)) parts.push_back(part);
  if (!text.empty() && text.back() == sep) parts.push_back("");
  return parts;
}

}  // namespace

bool HistoryLine::passed() const {
  if (checks.empty()) return false;
  for (const auto& [name, verdict] : checks) {
    if (verdict != "OK" && verdict != "WAIVED") return false;
  }
  return true;
}

std::string submission_key(const std::string& src) {
  const std::string path = resolved(src);
  std::string name;
  for (char ch : path) {
    const bool plain = std::isalnum((unsigned char)ch) || ch == '_' || ch == '.';
    if (plain) {
      name += ch;
    } else if (!name.empty() && name.back() != '-') {
      name += '-';
    }
  }
  while (!name.empty() && (name.back() == '-' || name.back() == '.')) name.pop_back();
  while (!name.empty() && (name.front() == '-' || name.front() == '.')) name.erase(0, 1);
  if (name.size() > 40) name = name.substr(name.size() - 40);
  char hash[16];
  std::snprintf(hash, sizeof hash, "%08x", fnv1a(path));
  return (name.empty() ? "folder" : name) + "-" + hash;
}

std::string history_path(const std::string& root, const std::string& src) {
  return root + "/" + submission_key(src) + "/history.tsv";
}

HistoryLine history_line(const LabResult& result, const std::string& date, const std::string& command,
                         const std::string& backend, const std::string& report) {
  HistoryLine line{date, result.lab, command, backend, result.points(), result.max_points(), {}, report, {}};
  std::string hint;
  for (const CheckResult& c : result.checks) {
    line.checks.push_back({c.name, status_word(c.status)});
    if (c.status != Status::kFail) continue;
    // The first two lines of the check's report: what failed, and its first instance (a
    // shape, the compiler's first error, the sanitizer's first finding).
    // Blank lines skipped: a compiler's quoted output may start with one.
    std::string note = c.name + ":";
    int taken = 0;
    for (size_t i = 0; i < c.details.size() && taken < 2; ++i) {
      const std::string text = field(c.details[i]);
      if (text.find_first_not_of(' ') == std::string::npos || text.rfind("hint: ", 0) == 0) continue;
      note += (taken++ == 0 || note.back() == ':' ? " " : "; ") + text;
    }
    line.notes.push_back(field(note));
    for (const std::string& detail : c.details) {
      const std::string text = field(detail);
      if (hint.empty() && text.rfind("hint: ", 0) == 0) hint = text;
    }
  }
  if (!hint.empty()) line.notes.push_back(hint);
  return line;
}

std::string format_line(const HistoryLine& l) {
  char points[64];
  std::snprintf(points, sizeof points, "%.6g\t%.6g", l.points, l.max_points);
  std::string checks;
  for (const auto& [name, verdict] : l.checks) checks += (checks.empty() ? "" : " ") + field(name) + "=" + verdict;
  std::string text = field(l.date) + "\t" + field(l.lab) + "\t" + l.command + "\t" + l.backend + "\t" + points + "\t" +
                     checks + "\t" + field(l.report);
  for (const std::string& note : l.notes) text += "\t" + field(note);
  return text + "\n";
}

bool parse_line(const std::string& text, HistoryLine* l, std::string* error) {
  const std::vector<std::string> f = split(text, '\t');
  auto bad = [&](const std::string& why) {
    *error = why;
    return false;
  };
  if (f.size() < 8) {
    return bad("expected 8 or more fields separated by tabs (date, lab, command, backend, points, max, checks, report), found " +
               std::to_string(f.size()));
  }
  *l = HistoryLine{};
  l->date = f[0];
  l->lab = f[1];
  l->command = f[2];
  l->backend = f[3];
  l->report = f[7];
  if (!is_date(l->date)) return bad("the date '" + field(f[0]) + "' is not YYYY-MM-DD HH:MM:SS");
  if (l->lab.size() < 4 || !std::isdigit((unsigned char)l->lab[0]) || !std::isdigit((unsigned char)l->lab[1]) || l->lab[2] != '_') {
    return bad("the lab '" + field(f[1]) + "' is not a lab's folder (NN_stem)");
  }
  if (l->command != "grade" && l->command != "check") return bad("the command '" + field(f[2]) + "' is neither grade nor check");
  if (l->backend != "cpu" && l->backend != "gpu") return bad("the backend '" + field(f[3]) + "' is neither cpu nor gpu");
  if (!parse_number(f[4], &l->points) || !parse_number(f[5], &l->max_points) || l->points > l->max_points + 1e-9) {
    return bad("the points '" + field(f[4]) + "' of '" + field(f[5]) + "' are not a score");
  }
  for (const std::string& check : split(f[6], ' ')) {
    const size_t eq = check.find('=');
    if (eq == std::string::npos || eq == 0 || !is_verdict(check.substr(eq + 1))) {
      return bad("the check '" + field(check) + "' is not name=OK, FAIL, SKIP or WAIVED");
    }
    l->checks.push_back({check.substr(0, eq), check.substr(eq + 1)});
  }
  if (l->checks.empty()) return bad("no check's verdict");
  for (size_t i = 8; i < f.size(); ++i) {
    if (!f[i].empty()) l->notes.push_back(f[i]);
  }
  return true;
}

std::string append_history(const std::string& root, const std::string& src, const std::vector<HistoryLine>& lines) {
  const std::string path = history_path(root, src);
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  if (ec) return "cannot make " + fs::path(path).parent_path().string() + ": " + ec.message();
  // Not through a link, and never a FIFO or a device that would hold the grader up: where
  // student code runs as the grader's user (no namespaces), it could have put one there.
  const int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (fd < 0) return "cannot open " + path + ": " + std::strerror(errno);
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return path + " is not a plain file: remove it (make status starts a new history)";
  }
  // One writer at a time, each run's lines in one piece.
  flock(fd, LOCK_EX);
  std::string text;
  if (fstat(fd, &st) == 0 && st.st_size == 0) {
    text = "# make grade and make check of " + field(resolved(src)) + ": one line per lab graded, tab-separated\n"
           "# date\tlab\tcommand\tbackend\tpoints\tmax\tchecks\treport\tnotes (grading/core/progress.h)\n";
  }
  for (const HistoryLine& l : lines) text += format_line(l);
  std::string error;
  for (size_t done = 0; done < text.size() && error.empty();) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno != EINTR) error = "cannot write " + path + ": " + std::strerror(errno);
    if (n > 0) done += size_t(n);
  }
  close(fd);
  return error;
}

History read_history(const std::string& path) {
  History h;
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return h;
  h.found = true;
  if (!fs::is_regular_file(fs::symlink_status(path, ec))) {
    h.problems.push_back(path + ": not a plain file (a link, a FIFO?); remove it to start a new history");
    return h;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    h.problems.push_back(path + ": cannot be read");
    return h;
  }
  std::ostringstream all;
  all << in.rdbuf();
  const std::string text = all.str();
  std::istringstream lines(text);
  int number = 0;
  size_t consumed = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    consumed += line.size() + 1;
    if (line.empty() || line[0] == '#') continue;
    HistoryLine l;
    std::string error;
    if (parse_line(line, &l, &error)) {
      h.lines.push_back(std::move(l));
    } else {
      const bool cut = consumed > text.size();  // the file ends inside this line
      h.problems.push_back(path + ":" + std::to_string(number) + ": " + error + "; the line is left out" +
                           (cut ? " (the file ends in the middle of it: a run was cut short)" : ""));
    }
  }
  return h;
}

}  // namespace grade
