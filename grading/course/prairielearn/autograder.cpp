// build/host/prairielearn: what run_autograder runs in PrairieLearn's grading container (make
// prairielearn builds the image's folder and the questions; docs/instructor/platforms.md, "PrairieLearn").
// It grades ROOT/student, the files the student submitted, with the grader itself on the CPU
// backend (PrairieLearn's graders have no GPU), and writes ROOT/results/results.json in
// PrairieLearn's format (grading/course/prairielearn/results.h). Run from the workbook's root.
//
//   prairielearn [--root DIR] [--lab NN] [--rubric FILE] [--build-dir DIR] [--timeout S]
//
// Whatever happens to the submission or the grader, a results.json says it. Exit status: 0
// when results.json is written (whatever the score), 2 when it cannot be.
#include <cstdio>
#include <filesystem>

#include "common/cli.h"
#include "common/exit_codes.h"
#include "common/labs.h"
#include "grading/core/isolation.h"
#include "grading/core/report.h"
#include "grading/course/autograde.h"
#include "grading/course/prairielearn/results.h"
#include "tools/subprocess.h"

namespace {

struct Options {
  std::string root = "/grade";
  grade::AutogradeOptions grading;
};

Options parse_options(int argc, char** argv) {
  Options o;
  lab::Cli cli(argv[0], "Grades a PrairieLearn submission (ROOT/student) with the grader on the CPU backend, into\n"
                        "ROOT/results/results.json. Run from the workbook's root; run_autograder does.");
  cli.add_string("root", &o.root, "PrairieLearn's folder, /grade: student/ is read, results/results.json written");
  cli.add_string("lab", &o.grading.lab, "the question's lab (01, or 01_matmul_naive); every lab without it");
  cli.add_string("rubric", &o.grading.rubric, "the rubric file (default grading/rubric.txt)");
  cli.add_string("build-dir", &o.grading.build_dir, "the grader's build folder, built with the image (default build/grade-build)");
  cli.add_int("timeout", &o.grading.timeout, 10, 600, "seconds the grader may take (default 540: PrairieLearn stops a grading job\n"
                                                      "at the question's timeout, at most 600, and a stopped one writes no results)");
  cli.parse(argc, argv);
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  for (const char* name : {"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "SEED"}) unsetenv(name);
  const Options o = parse_options(argc, argv);
  const std::string results = o.root + "/results/results.json";
  const std::string work = grade::make_private_dir("/tmp/prairielearn-");
  if (work.empty()) {
    std::fprintf(stderr, "prairielearn: cannot make a scratch folder in /tmp\n");
    return lab::kExitCannotRun;
  }
  const std::string report = work + "/report";
  std::vector<lab::LabEntry> labs;
  std::vector<std::string> notes;
  const std::string setup_error = grade::labs_to_grade(o.grading.lab, &labs);
  if (!setup_error.empty()) {
    grade::write_could_not_grade(report, "the autograder is set up wrongly (tell your instructor): " + setup_error);
  } else {
    grade::autograde(o.grading, labs, o.root + "/student", work, report, &notes);
  }
  std::string why;
  const std::string json = grade::prairielearn_results(report + "/results.json", notes, &why);
  // PrairieLearn does not make the results folder.
  std::error_code ec;
  std::filesystem::create_directories(o.root + "/results", ec);
  const bool written = !json.empty() && grade::write_atomically(results, json);
  tools::run_command({"rm", "-rf", work});
  if (!written) {
    std::fprintf(stderr, "prairielearn: cannot write %s: %s\n", results.c_str(), json.empty() ? why.c_str() : "cannot write the file");
    return lab::kExitCannotRun;
  }
  std::printf("(results: %s)\n", results.c_str());
  return lab::kExitPass;
}
