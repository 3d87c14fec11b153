// build/host/gradescope: what run_autograder runs on Gradescope (make gradescope builds the zip;
// docs/instructor/platforms.md, "Gradescope"). It grades ROOT/submission with the grader itself
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
#include <chrono>
#include <cstdio>

#include "common/cli.h"
#include "common/exit_codes.h"
#include "common/labs.h"
#include "tools/subprocess.h"
#include "grading/course/autograde.h"
#include "grading/course/gradescope/results.h"
#include "grading/core/isolation.h"
#include "grading/core/report.h"

namespace {

struct Options {
  std::string root = "/autograder";
  grade::AutogradeOptions grading;
  std::string visibility = "visible", stdout_visibility = "hidden";
};

Options parse_options(int argc, char** argv) {
  Options o;
  lab::Cli cli(argv[0], "Grades a Gradescope submission (ROOT/submission) with the grader on the CPU backend, into\n"
                        "ROOT/results/results.json. Run from the workbook's root; run_autograder does.");
  cli.add_string("root", &o.root, "Gradescope's folder, /autograder: submission/ is read, results/results.json written");
  cli.add_string("lab", &o.grading.lab, "only this lab (01, or 01_matmul_naive): an assignment per lab");
  cli.add_string("rubric", &o.grading.rubric, "the rubric file (default grading/rubric.txt)");
  cli.add_string("build-dir", &o.grading.build_dir, "the grader's build folder, built once by setup.sh (default build/grade-build)");
  cli.add_string("visibility", &o.visibility, "who sees the tests and when: visible, hidden, after_due_date, after_published");
  cli.add_string("stdout-visibility", &o.stdout_visibility, "the same for the console, the grader's own lines (default hidden)");
  cli.add_int("timeout", &o.grading.timeout, 10, 86400, "seconds the grader may take (default 540: Gradescope stops an autograder\n"
                                                        "at 10 minutes unless told otherwise, and a stopped one writes no results)");
  cli.parse(argc, argv);
  return o;
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
  std::string setup_error = grade::labs_to_grade(o.grading.lab, &labs);
  if (setup_error.empty() && !(grade::legal_visibility(o.visibility) && grade::legal_visibility(o.stdout_visibility))) {
    setup_error = "a visibility that Gradescope does not know (visible, hidden, after_due_date, after_published)";
  }
  if (!setup_error.empty()) {
    run.visibility = {};
    grade::write_could_not_grade(report, "the autograder is set up wrongly (tell your instructor): " + setup_error);
  } else {
    grade::autograde(o.grading, labs, o.root + "/submission", work, report, &run.notes);
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string why;
  const std::string json = grade::gradescope_results(report + "/results.json", labs, run, &why);
  const bool written = !json.empty() && grade::write_atomically(results, json);
  tools::run_command({"rm", "-rf", work});
  if (!written) {
    std::fprintf(stderr, "gradescope: cannot write %s: %s\n", results.c_str(), json.empty() ? why.c_str() : "cannot write the file");
    return lab::kExitCannotRun;
  }
  std::printf("(results: %s)\n", results.c_str());
  return lab::kExitPass;
}
