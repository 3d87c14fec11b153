// `make status`: how far a folder of labs has got, from the history of its make grade and make
// check runs (grading/core/progress.h): each lab's best make grade run and its latest run, the checks
// that still fail with the first lines of the grader's report and its hint, and the lab to do
// next. A lab that a make grade run passed stays done, whatever ran after it.
//
//   status [--src DIR]        (make status; make status SRC=solutions)
//
// Exit status: 0, with or without a history (a bad line of it is named and left out); 2 when
// the arguments or the table of labs are wrong, or there is neither the folder nor a history.
// A C++ program, not a script: it reads the history with the code that writes it.
#include <sys/stat.h>

#include <cctype>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "common/cli.h"
#include "common/exit_codes.h"
#include "common/labs.h"
#include "grading/core/progress.h"
#include "grading/core/skeletons.h"
#include "tools/subprocess.h"

namespace {

using grade::HistoryLine;

// What the history says of one lab, or of one step of a lab in steps (labs.txt): each step is
// graded, and done, on its own.
struct LabProgress {
  lab::LabEntry lab;
  lab::LabStep step;
  const HistoryLine* done = nullptr;    // the first make grade run that passed every check
  const HistoryLine* best = nullptr;    // the make grade run with the best score (the first of equals)
  const HistoryLine* latest = nullptr;  // the last run, make grade or make check
};

double share(const HistoryLine& l) { return l.max_points > 0 ? l.points / l.max_points : l.passed() ? 1 : 0; }

LabProgress progress_of(const std::vector<HistoryLine>& history, const lab::LabEntry& lab, const lab::LabStep& step) {
  LabProgress p{lab, step};
  for (const HistoryLine& l : history) {
    if (l.lab != step.id) continue;
    p.latest = &l;
    if (l.quick()) continue;
    if (p.done == nullptr && l.passed()) p.done = &l;
    if (p.best == nullptr || share(l) > share(*p.best)) p.best = &l;
  }
  if (p.done != nullptr) p.best = p.done;
  return p;
}

// "8/8 on 2026-11-25 11:20", and what ran when it was make check.
std::string describe(const HistoryLine& l) {
  return grade::points_text(l.points) + "/" + grade::points_text(l.max_points) + " on " + l.date.substr(0, 16) +
         (l.quick() ? " by make check (build, correctness and safety only)" : "");
}

std::string state_of(const LabProgress& p) {
  std::string text = p.done                ? "done (best " + describe(*p.done) + ")"
                     : p.best == p.latest ? "graded " + describe(*p.best)
                     : p.best             ? "best " + describe(*p.best)
                                          : "";
  if (p.latest != p.best) text += (text.empty() ? "" : "; ") + std::string("last run: ") + describe(*p.latest);
  if (p.best == nullptr) text += "; no make grade run yet";
  return text;
}

// What still fails in a run: each failing check with its first lines of report, the grader's
// hint, and the checks that waited.
void print_whats_left(const HistoryLine& l) {
  std::string skipped;
  for (const auto& [name, verdict] : l.checks) {
    if (verdict == "SKIP") skipped += (skipped.empty() ? "" : ", ") + name;
    if (verdict != "FAIL") continue;
    std::string why;
    for (const std::string& note : l.notes) {
      if (note.rfind(name + ": ", 0) == 0) why = note.substr(name.size() + 2);
    }
    std::printf("      failing: %s%s\n", name.c_str(), why.empty() ? "" : (": " + why).c_str());
  }
  for (const std::string& note : l.notes) {
    if (note.rfind("hint: ", 0) == 0) std::printf("      %s\n", note.c_str());
  }
  if (!skipped.empty()) std::printf("      not run yet: %s (they wait for the build and the main shapes)\n", skipped.c_str());
}


// SRC as a make argument: " SRC=solutions", quoted when it must be; nothing for labs/.
std::string src_argument(const std::string& src) {
  if (grade::submission_key(src) == grade::submission_key("labs")) return "";
  bool plain = !src.empty();
  for (char ch : src) plain &= std::isalnum((unsigned char)ch) || std::string("_./-").find(ch) != std::string::npos;
  if (plain) return " SRC=" + src;
  std::string quoted = "'";
  for (char ch : src) quoted += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return " SRC=" + quoted + "'";
}

void print_next(const std::vector<LabProgress>& progress, const std::string& src) {
  const std::string more = src_argument(src);
  for (const LabProgress& p : progress) {
    if (p.done != nullptr) continue;
    const std::string n = p.lab.number;
    // "03", or "03, step 2 (2d)"
    const std::string what = n + (p.step.count > 1 ? p.step.title.substr(p.step.title.find(',')) : "");
    if (p.latest != nullptr && p.latest->passed()) {
      std::printf("Next: lab %s passes make check; make grade LAB=%s%s grades it in full, technique included.\n", what.c_str(),
                  n.c_str(), more.c_str());
    } else {
      const std::string run = p.step.count > 1 ? "make run LAB=" + n + " STEP=" + std::to_string(p.step.number) + more + " and " : "";
      std::printf("Next: lab %s (labs/%s/README.md): %smake check LAB=%s%s after each edit, make grade LAB=%s%s once it passes.\n",
                  what.c_str(), p.lab.folder.c_str(), run.c_str(), n.c_str(), more.c_str(), n.c_str(), more.c_str());
    }
    return;
  }
  bool waived = false;
  for (const LabProgress& p : progress) {
    for (const auto& [name, verdict] : p.done->checks) waived |= name == "performance" && verdict == "WAIVED";
  }
  std::printf("Every lab is done.%s\n", waived ? " Speed was waived where a lab was graded on the CPU backend: make grade on a GPU grades it." : "");
}

}  // namespace

int main(int argc, char** argv) {
  std::string src = "labs";
  lab::Cli cli(argv[0], "Shows how far a folder of labs has got: each lab's best and latest make grade or make check\n"
                        "run, what still fails, and the lab to do next. Run from the repository root; `make status` does.");
  cli.add_string("src", &src, "the folder whose progress to show (make status SRC=...)");
  cli.parse(argc, argv);
  std::vector<lab::LabEntry> labs;
  std::string error;
  if (!lab::read_labs("labs.txt", &labs, &error)) {
    std::fprintf(stderr, "make status: %s\n", error.c_str());
    return lab::kExitCannotRun;
  }
  const std::string path = grade::history_path(grade::kProgressRoot, src);
  const grade::History history = grade::read_history(path);
  for (const std::string& problem : history.problems) std::fprintf(stderr, "make status: %s\n", problem.c_str());
  struct stat st;
  const bool is_folder = stat(src.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  if (!history.found && !is_folder) {
    std::fprintf(stderr, "make status: no folder '%s', and no history of one\n", src.c_str());
    return lab::kExitCannotRun;
  }
  std::vector<LabProgress> progress;
  for (const lab::LabEntry& lab : labs) {
    for (const lab::LabStep& step : lab.step_list()) progress.push_back(progress_of(history.lines, lab, step));
  }
  if (history.lines.empty()) {
    std::printf("No make grade or make check run of %s is recorded yet.\n", src.c_str());
    print_next(progress, src);
    return lab::kExitPass;
  }
  std::set<std::string> runs;
  for (const HistoryLine& l : history.lines) runs.insert(l.report);
  std::printf("Progress of %s (%zu run%s of make grade and make check, %s):\n", src.c_str(), runs.size(),
              runs.size() == 1 ? "" : "s", path.c_str());
  for (const LabProgress& p : progress) {
    const bool not_started = grade::untouched_skeleton(src + "/" + p.lab.folder + "/" + p.lab.file(), p.lab);
    const std::string state = p.latest ? state_of(p) : not_started ? "not started" : "not graded yet";
    if (p.step.count == 1) {
      std::printf("  lab %s  %-18s %s\n", p.lab.number.c_str(), p.lab.stem.c_str(), state.c_str());
    } else {
      // A lab in steps: its name once, then a line per step.
      if (p.step.number == 1) std::printf("  lab %s  %s, in %d steps:\n", p.lab.number.c_str(), p.lab.stem.c_str(), p.step.count);
      const std::string name = "step " + std::to_string(p.step.number) + (p.step.suffix.empty() ? "" : " (" + p.step.suffix + ")");
      std::printf("    %-24s %s\n", name.c_str(), state.c_str());
    }
    if (p.latest != nullptr && !p.latest->passed()) print_whats_left(*p.latest);
  }
  print_next(progress, src);
  return lab::kExitPass;
}
