#include "grading/course/autograde.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/exit_codes.h"
#include "tools/subprocess.h"
#include "grading/course/class/archive.h"
#include "grading/course/class/prepare.h"
#include "grading/core/report.h"

namespace grade {

namespace {

namespace fs = std::filesystem;

// What the student handed in: the upload folder, or the one archive in it (Gradescope unpacks
// a .zip upload itself, not a .tar.gz).
Student upload_of(const std::string& upload) {
  Student s;
  s.id = "submission";
  s.entry = upload;
  std::vector<fs::path> entries;
  std::error_code ec;
  for (fs::directory_iterator it(s.entry, ec), end; !ec && it != end && entries.size() < 2; it.increment(ec)) entries.push_back(it->path());
  if (entries.size() == 1 && fs::is_regular_file(fs::symlink_status(entries[0], ec)) && is_archive(entries[0].string())) {
    s.entry = entries[0].string();
  }
  return s;
}

// The grader's command for the prepared folder SRC, reporting into REPORT.
std::vector<std::string> grader_command(const AutogradeOptions& o, const std::string& src, const std::string& report) {
  // The build folder given even where the grader finds no namespaces (which, without one, builds
  // afresh for each run so that no student's program can plant a file for the next): the
  // platforms grade each upload in a fresh container of the image built once, so nothing a
  // student's program leaves there reaches another student.
  std::vector<std::string> argv = {"build/host/grade", "--src", src, "--out", report, "--backend", "cpu", "--rubric", o.rubric,
                                   "--build-dir", o.build_dir};
  if (!o.lab.empty()) argv.insert(argv.end(), {"--lab", o.lab});
  return argv;
}

}  // namespace

std::string labs_to_grade(const std::string& lab, std::vector<lab::LabEntry>* labs) {
  std::string error;
  if (!lab::read_labs("labs.txt", labs, &error)) return error;
  if (lab.empty()) return "";
  std::string unknown;
  std::vector<lab::LabEntry> named;
  for (const lab::LabEntry* l : lab::labs_named(*labs, lab, &unknown)) named.push_back(*l);
  if (named.empty()) return "no lab '" + unknown + "' in labs.txt";
  *labs = named;
  return "";
}

void autograde(const AutogradeOptions& o, const std::vector<lab::LabEntry>& labs, const std::string& upload, const std::string& work,
               const std::string& report, std::vector<std::string>* notes) {
  const Prepared p = prepare_submission(upload_of(upload), work + "/unpacked", labs);
  *notes = p.notes;
  if (!p.status.empty()) {
    write_could_not_grade(report, "your upload: " + p.status + ". Upload the lab files themselves (" + labs.front().file() +
                                      ", ...), your labs/ folder, or the lab folders (" + labs.front().folder + "/" +
                                      labs.front().file() + ", ...).");
    return;
  }
  tools::RunOptions options;
  options.timeout_s = double(o.timeout);
  const tools::RunResult r = tools::run_command(grader_command(o, p.root, report), options);
  std::fwrite(r.output.data(), 1, r.output.size(), stdout);
  std::fflush(stdout);
  std::error_code ec;
  if (r.exited(0) && fs::exists(report + "/results.json", ec)) return;
  if (!r.exited(lab::kExitCannotRun) || !fs::exists(report + "/results.json", ec)) {
    write_could_not_grade(report, "the autograder's grader " + r.describe() +
                                      " (not a verdict on your code: tell your instructor; its output is in the autograder's log)");
  }
}

std::string upload_preamble(const std::string& platform, const std::vector<std::string>& notes) {
  std::string text = "Graded on the CPU backend (" + platform +
                     "'s machines have no GPU): build, correctness, safety and technique count; performance is waived here "
                     "(0 points of 0). `make grade` on a GPU machine times your kernels.\n";
  for (const std::string& note : notes) text += "- " + note + "\n";
  return text + "\n";
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return in ? text.str() : "";
}

bool read_grader_results(const std::string& path, nlohmann::json* results, std::string* why) {
  *results = nlohmann::json::parse(file_text(path), nullptr, /*allow_exceptions=*/false);
  if (results->is_discarded()) return *why = "no results.json from the grader (" + path + ")", false;
  const nlohmann::json& r = *results;
  if (!r.is_object() || !r.contains("score") || !r["score"].is_number() || !r.contains("tests") || !r["tests"].is_array() ||
      !r.contains("output") || !r["output"].is_string()) {
    return *why = "the grader's results.json lacks its score, tests or output", false;
  }
  return true;
}

}  // namespace grade
