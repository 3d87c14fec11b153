// build/host/gradescope: what run_autograder runs on Gradescope (make gradescope builds the zip;
// docs/instructor.md, "Gradescope"). It grades ROOT/submission with the grader itself
// (build/host/grade, as a subprocess, on the CPU backend: Gradescope's machines have no GPU),
// and writes ROOT/results/results.json in Gradescope's format from the grader's own
// (grading/course/gradescope/results.h). Run from the workbook's root (ROOT/source on Gradescope).
//
//   gradescope [--root DIR] [--lab NN] [--rubric FILE] [--build-dir DIR] [--visibility V]
//              [--stdout-visibility V] [--timeout S]
//
// Whatever happens to the submission or the grader, a results.json says it: a wrong layout, a
// grader that could not grade or ran out of time. Exit status: 0 when results.json is written
// (whatever the score), 2 when it cannot be.
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "common/cli.h"
#include "common/exit_codes.h"
#include "common/labs.h"
#include "common/subprocess.h"
#include "grading/course/class/archive.h"
#include "grading/course/class/prepare.h"
#include "grading/course/gradescope/results.h"
#include "grading/core/isolation.h"
#include "grading/core/report.h"

namespace {

namespace fs = std::filesystem;

struct Options {
  std::string root = "/autograder", lab, rubric = "grading/rubric.txt", build_dir = "build/grade-build";
  std::string visibility = "visible", stdout_visibility = "hidden";
  int64_t timeout = 540;
};

Options parse_options(int argc, char** argv) {
  Options o;
  lab::Cli cli(argv[0], "Grades a Gradescope submission (ROOT/submission) with the grader on the CPU backend, into\n"
                        "ROOT/results/results.json. Run from the workbook's root; run_autograder does.");
  cli.add_string("root", &o.root, "Gradescope's folder, /autograder: submission/ is read, results/results.json written");
  cli.add_string("lab", &o.lab, "only this lab (01, or 01_matmul_naive): an assignment per lab");
  cli.add_string("rubric", &o.rubric, "the rubric file (default grading/rubric.txt)");
  cli.add_string("build-dir", &o.build_dir, "the grader's build folder, built once by setup.sh (default build/grade-build)");
  cli.add_string("visibility", &o.visibility, "who sees the tests and when: visible, hidden, after_due_date, after_published");
  cli.add_string("stdout-visibility", &o.stdout_visibility, "the same for the console, the grader's own lines (default hidden)");
  cli.add_int("timeout", &o.timeout, 10, 86400, "seconds the grader may take (default 540: Gradescope stops an autograder\n"
                                                "at 10 minutes unless told otherwise, and a stopped one writes no results)");
  cli.parse(argc, argv);
  return o;
}

// The labs graded: the table's, or the one --lab names. "" when they are known, else why not.
std::string labs_to_grade(const Options& o, std::vector<lab::LabEntry>* labs) {
  std::string error;
  if (!lab::read_labs("labs.txt", labs, &error)) return error;
  if (o.lab.empty()) return "";
  const lab::LabEntry* l = lab::find_lab(*labs, o.lab);
  if (l == nullptr) return "no lab '" + o.lab + "' in labs.txt";
  *labs = {*l};
  return "";
}

// What the student handed in: the submission folder, or the one archive in it (Gradescope
// unpacks a .zip upload itself, not a .tar.gz).
grade::Student submission(const std::string& root) {
  grade::Student s;
  s.id = "submission";
  s.entry = root + "/submission";
  std::vector<fs::path> entries;
  std::error_code ec;
  for (fs::directory_iterator it(s.entry, ec), end; !ec && it != end && entries.size() < 2; it.increment(ec)) entries.push_back(it->path());
  if (entries.size() == 1 && fs::is_regular_file(fs::symlink_status(entries[0], ec)) && grade::is_archive(entries[0].string())) {
    s.entry = entries[0].string();
  }
  return s;
}

// The grader's command for the prepared folder SRC, reporting into REPORT.
std::vector<std::string> grader_command(const Options& o, const std::string& src, const std::string& report) {
  // The build folder given even where the grader finds no namespaces (which, without one, builds
  // afresh for each run so that no student's program can plant a file for the next): Gradescope
  // grades each submission in a fresh container of the image setup.sh built, so nothing a
  // student's program leaves there reaches another student.
  std::vector<std::string> argv = {"build/host/grade", "--src", src, "--out", report, "--backend", "cpu", "--rubric", o.rubric,
                                   "--build-dir", o.build_dir};
  if (!o.lab.empty()) argv.insert(argv.end(), {"--lab", o.lab});
  return argv;
}

// Grades what was handed in, into REPORT/results.json: the grader's, or, where there is nothing
// to grade or the grader wrote nothing, one that says why (report.h's write_could_not_grade).
void grade_submission(const Options& o, const std::vector<lab::LabEntry>& labs, const std::string& work, const std::string& report,
                      grade::GradescopeRun* run) {
  const grade::Prepared p = grade::prepare_submission(submission(o.root), work + "/unpacked", labs);
  run->notes = p.notes;
  if (!p.status.empty()) {
    grade::write_could_not_grade(report, "your upload: " + p.status +
                                             ". Upload the lab files themselves (" + labs.front().file() +
                                             ", ...), your labs/ folder, or the lab folders (" + labs.front().folder + "/" +
                                             labs.front().file() + ", ...).");
    return;
  }
  lab::RunOptions options;
  options.timeout_s = double(o.timeout);
  const lab::RunResult r = lab::run_command(grader_command(o, p.root, report), options);
  // The grader's console is Gradescope's stdout, which the instructor sees (--stdout-visibility).
  std::fwrite(r.output.data(), 1, r.output.size(), stdout);
  std::fflush(stdout);
  std::error_code ec;
  if (r.exited(0) && fs::exists(report + "/results.json", ec)) return;
  if (!r.exited(lab::kExitCannotRun) || !fs::exists(report + "/results.json", ec)) {
    grade::write_could_not_grade(report, "the autograder's grader " + r.describe() +
                                             " (not a verdict on your code: tell your instructor; its output is in the autograder's log)");
  }
}

}  // namespace

int main(int argc, char** argv) {
  const auto start = std::chrono::steady_clock::now();
  for (const char* name : {"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "SEED"}) unsetenv(name);
  const Options o = parse_options(argc, argv);
  const std::string results = o.root + "/results/results.json";
  const std::string work = grade::make_private_dir("/tmp/gradescope-");
  if (work.empty()) {
    std::fprintf(stderr, "gradescope: cannot make a scratch folder in /tmp\n");
    return lab::kExitCannotRun;
  }
  const std::string report = work + "/report";
  grade::GradescopeRun run;
  run.visibility = {o.visibility, o.stdout_visibility};
  std::vector<lab::LabEntry> labs;
  std::string setup_error = labs_to_grade(o, &labs);
  if (setup_error.empty() && !(grade::legal_visibility(o.visibility) && grade::legal_visibility(o.stdout_visibility))) {
    setup_error = "a visibility that Gradescope does not know (visible, hidden, after_due_date, after_published)";
  }
  if (!setup_error.empty()) {
    run.visibility = {};
    grade::write_could_not_grade(report, "the autograder is set up wrongly (tell your instructor): " + setup_error);
  } else {
    grade_submission(o, labs, work, report, &run);
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string why;
  const std::string json = grade::gradescope_results(report + "/results.json", labs, run, &why);
  const bool written = !json.empty() && grade::write_atomically(results, json);
  lab::run_command({"rm", "-rf", work});
  if (!written) {
    std::fprintf(stderr, "gradescope: cannot write %s: %s\n", results.c_str(), json.empty() ? why.c_str() : "cannot write the file");
    return lab::kExitCannotRun;
  }
  std::printf("(results: %s)\n", results.c_str());
  return lab::kExitPass;
}
