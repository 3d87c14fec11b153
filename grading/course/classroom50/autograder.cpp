// build/host/classroom50: what a Classroom 50 assignment's autograder.py runs (make classroom50
// writes it; docs/instructor/platforms.md, "Classroom 50"). Classroom 50 grades each push to a student's
// repository, a copy of the students' workbook, on a GitHub Actions runner without a GPU: this
// grades the lab files of its labs/ folder with the grader itself, on the CPU backend, and
// writes Classroom 50's result.json (grading/course/classroom50/results.h) and the Release's
// text (release-body.md: what make grade printed). Run from the workbook's root, the
// instructor's copy that autograder.py unpacked, never the student's own (whose grader they
// could have changed).
//
//   classroom50 --src DIR [--lab NN] [--rubric FILE] [--build-dir DIR] [--timeout S]
//               [--result FILE] [--release-body FILE]
//
// Exit status: 0 when result.json is written (whatever the score); 2 when it cannot be, or when
// the grader could not grade (an error of the autograder's, which Classroom 50 reports as one).
#include <cstdio>
#include <ctime>
#include <filesystem>

#include "common/cli.h"
#include "common/exit_codes.h"
#include "grading/core/isolation.h"
#include "grading/core/report.h"
#include "grading/course/classroom50/results.h"
#include "tools/subprocess.h"

namespace {

namespace fs = std::filesystem;

struct Options {
  std::string src, lab, rubric = "grading/rubric.txt", build_dir = "build/grade-build";
  std::string result = "result.json", release_body = "release-body.md";
  int64_t timeout = 540;
};

Options parse_options(int argc, char** argv) {
  Options o;
  lab::Cli cli(argv[0], "Grades a Classroom 50 submission (the labs/ folder of the student's repository) with the grader\n"
                        "on the CPU backend, into Classroom 50's result.json. Run from the workbook's root; autograder.py does.");
  cli.add_string("src", &o.src, "the student's labs/ folder");
  cli.add_string("lab", &o.lab, "the assignment's lab (01, or 01_matmul_naive); every lab without it");
  cli.add_string("rubric", &o.rubric, "the rubric file (default grading/rubric.txt)");
  cli.add_string("build-dir", &o.build_dir, "the grader's build folder (default build/grade-build)");
  cli.add_int("timeout", &o.timeout, 10, 3600, "seconds the grader may take (default 540)");
  cli.add_string("result", &o.result, "where result.json goes (default result.json: Classroom 50 reads it there)");
  cli.add_string("release-body", &o.release_body, "where the Release's text goes (default release-body.md)");
  cli.parse(argc, argv);
  return o;
}

// The variables Classroom 50's runner sets for an autograder.
grade::RunnerVariables runner_variables() {
  grade::RunnerVariables v;
  for (const char* name : {"CLASSROOM", "ASSIGNMENT", "SUBMISSION_TAG", "COMMIT_URL", "RELEASE_URL", "REVIEW_URL"}) {
    const char* value = std::getenv(name);
    if (value != nullptr) v[name] = value;
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  for (const char* name : {"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "SEED"}) unsetenv(name);
  const Options o = parse_options(argc, argv);
  if (o.src.empty()) {
    std::fprintf(stderr, "classroom50: say which labs/ folder to grade (--src)\n");
    return lab::kExitCannotRun;
  }
  const std::string work = grade::make_private_dir("/tmp/classroom50-");
  if (work.empty()) {
    std::fprintf(stderr, "classroom50: cannot make a scratch folder in /tmp\n");
    return lab::kExitCannotRun;
  }
  const std::string report = work + "/report";
  std::vector<std::string> argv_grade = {"build/host/grade", "--src", o.src, "--out", report, "--backend", "cpu",
                                         "--rubric", o.rubric, "--build-dir", o.build_dir};
  if (!o.lab.empty()) argv_grade.insert(argv_grade.end(), {"--lab", o.lab});
  tools::RunOptions options;
  options.timeout_s = double(o.timeout);
  const tools::RunResult r = tools::run_command(argv_grade, options);
  std::fwrite(r.output.data(), 1, r.output.size(), stdout);
  std::fflush(stdout);
  std::string why;
  const std::string json =
      r.timed_out ? "" : grade::classroom50_result(report + "/results.json", runner_variables(), std::time(nullptr), &why);
  // What make grade printed, each check's reasons and hints, cut to well under GitHub's limit on
  // a Release's text (125,000 characters).
  const size_t most = 60000;
  const std::string printed = r.output.size() > most ? r.output.substr(0, most) + "\n(cut here)\n" : r.output;
  const std::string body = "Graded on the CPU backend (GitHub's runners have no GPU): build, correctness, safety and technique "
                           "count; performance is waived here. `make grade` on a GPU machine times your kernels.\n\n```text\n" +
                           printed + "```\n";
  tools::run_command({"rm", "-rf", work});
  if (json.empty()) {
    std::fprintf(stderr, "classroom50: the grader %s, and wrote no grading: %s\n", r.describe().c_str(), why.c_str());
    return lab::kExitCannotRun;
  }
  if (!grade::write_atomically(o.result, json) || !grade::write_atomically(o.release_body, body)) {
    std::fprintf(stderr, "classroom50: cannot write %s or %s\n", o.result.c_str(), o.release_body.c_str());
    return lab::kExitCannotRun;
  }
  std::printf("(result: %s; the Release's text: %s)\n", o.result.c_str(), o.release_body.c_str());
  return lab::kExitPass;
}
