// The history behind `make status`: every `make grade` and `make check` run appends one line
// per lab it graded to the history of the folder it graded, build/progress/<key>/history.tsv,
// and `make status` (grading/student/status.cpp) reads it back. The writer and the reader of the format
// are both here, so they cannot drift apart.
//
// A line, tab-separated:
//   date  lab  command  backend  points  max  checks  report  [notes...]
//   2026-11-25 11:08:06  01_matmul_naive  grade  cpu  0  8
//   build=FAIL correctness=FAIL safety=SKIP technique=SKIP performance=WAIVED  build/grade/20261125-110806-25161
//   correctness: 0 of 3 shapes correct, seed 4242  hint: nothing was written: ...
// command is "grade", or "check" for make check's quick pass (build, correctness and safety);
// each note is a failing check's first two lines of report ("check: line; line") or the
// grader's first hint ("hint: text"). Lines starting with # are comments.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "grading/core/report.h"

namespace grade {

// Where every submission folder's history lies: build/progress/<key>/history.tsv.
inline constexpr char kProgressRoot[] = "build/progress";

struct HistoryLine {
  std::string date;     // "2026-11-25 11:08:06", local time
  std::string lab;      // "01_matmul_naive"
  std::string command;  // "grade", or "check": make check's quick pass
  std::string backend;  // "cpu" or "gpu"
  double points = 0, max_points = 0;
  std::vector<std::pair<std::string, std::string>> checks;  // each check's name and verdict: OK FAIL SKIP WAIVED
  std::string report;                                       // the run's report folder
  std::vector<std::string> notes;                           // "correctness: 0 of 3 shapes correct, ...", "hint: ..."

  bool quick() const { return command == "check"; }
  // Every check OK or waived: the lab is done when a make grade run passed.
  bool passed() const;
};

// The name of SRC's history folder: its path (from the checkout's root when inside it, else
// absolute; after symbolic links) made readable, and a hash of that path, so that two folders
// never share a history and one folder named two ways ("labs", "./labs/") has one:
// "labs-5f1c9e2a", "tmp-alice-sub-0b7d41c3".
std::string submission_key(const std::string& src);
// ROOT/<submission_key(src)>/history.tsv.
std::string history_path(const std::string& root, const std::string& src);

// The history line of one lab's result, graded at DATE by COMMAND on BACKEND, reported in REPORT.
HistoryLine history_line(const LabResult& result, const std::string& date, const std::string& command,
                         const std::string& backend, const std::string& report);

std::string format_line(const HistoryLine& line);
// False, with what is wrong in *error, for a line that is not a history line.
bool parse_line(const std::string& text, HistoryLine* line, std::string* error);

// Appends LINES, in one write under a lock, to SRC's history under ROOT (made, with a header,
// the first time). Returns "" or what went wrong.
std::string append_history(const std::string& root, const std::string& src, const std::vector<HistoryLine>& lines);

struct History {
  bool found = false;                  // the file exists
  std::vector<HistoryLine> lines;      // the good lines, oldest first
  std::vector<std::string> problems;   // "PATH:LINE: what is wrong; the line is left out"
};
History read_history(const std::string& path);

}  // namespace grade
