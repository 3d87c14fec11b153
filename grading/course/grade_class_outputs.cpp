// What a run of grade-class writes into OUT: gradebook.csv, the LMSs' CSVs (canvas.csv,
// moodle.csv) and the summary page, class.html, with the instructor's overrides applied; each
// student's adjustments beside their report; and the similarity report.
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>

#include "grading/course/class/lms.h"
#include "grading/course/class/page.h"
#include "grading/course/class/prepare.h"
#include "grading/course/grade_class.h"
#include "grading/core/atomic_file.h"

namespace class_grading {

namespace fs = std::filesystem;

namespace {

// A row that was not graded gets the lab's maximum of the graded rows, so that its total reads
// 0/48, not 0/0.
void fill_maxima(std::vector<grade::GradebookRow>& rows, size_t labs) {
  std::vector<double> max(labs, 0);
  for (const grade::GradebookRow& r : rows) {
    for (size_t i = 0; i < r.lab_max.size() && i < labs; ++i) max[i] = std::max(max[i], r.lab_max[i]);
  }
  for (grade::GradebookRow& r : rows) {
    if (r.lab_max.size() == labs) continue;
    r.lab_points.assign(labs, 0);
    r.lab_max = max;
    r.launcher_ms.assign(labs, -1);
    r.attempts.assign(labs, grade::Attempt::none);
  }
}

// The device the summary page names: the GPU the graded students' reports name (a Slurm merge job
// runs where there may be none), else this machine's.
std::string class_device(const Class& c, const std::vector<grade::GradebookRow>& rows) {
  if (c.backend == "cpu") return "the CPU backend";
  for (const grade::GradebookRow& r : rows) {
    if (r.status == "graded" && !r.device.empty()) return r.device;
  }
  return c.gpus.empty() ? "GPUs" : c.gpus.front();
}

// Each student's adjustments (the instructor's overrides) in their report folder, where they
// read their results: adjustments.txt, removed once no override names them.
void write_adjustments(const Class& c, const std::vector<grade::GradebookRow>& rows) {
  for (const grade::GradebookRow& r : rows) {
    if (r.report.empty()) continue;
    const std::string path = c.o.out + "/" + r.report + "/adjustments.txt";
    std::error_code ec;
    if (r.adjustments.empty()) {
      fs::remove(path, ec);
      continue;
    }
    std::string text = "Your instructor adjusted your grade:\n";
    for (const std::string& a : r.adjustments) text += "  " + a + "\n";
    if (!grade::write_atomically(path, text)) cannot_run("cannot write " + path);
  }
}

}  // namespace

grade::Similarity class_similarity(const Options& o, const std::vector<lab::LabEntry>& labs, const std::vector<grade::Student>& students) {
  std::vector<grade::StudentFolder> folders;
  std::error_code ec;
  for (const grade::Student& s : students) {
    const std::string dir = o.out + "/students/" + s.slug;
    std::filesystem::create_directories(dir, ec);
    const grade::Prepared p = grade::prepare_submission(s, dir + "/unpacked", labs);
    if (p.status.empty()) folders.push_back({s.id, p.root});
  }
  grade::Similarity similarity = grade::similarity_report(o.out, folders, labs, int(o.similarity_threshold));
  std::printf("(%s)\n", similarity.line.c_str());
  std::fflush(stdout);
  return similarity;
}

void write_outputs(const Class& c, std::vector<grade::GradebookRow>& rows, const grade::Similarity& similarity) {
  fill_maxima(rows, c.labs.size());
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M", std::localtime(&now));
  grade::ClassInfo info{date, c.backend, class_device(c, rows), c.seed, similarity};
  for (grade::GradebookRow& r : rows) {
    if (r.device.empty() && r.status != "graded") continue;
    if (r.device.empty()) r.device = info.device;
  }
  // The overrides on a copy: this runs twice a class (before and after the similarity report).
  std::vector<grade::GradebookRow> shown = rows;
  grade::apply_overrides(c.overrides, c.labs, &shown);
  if (!grade::write_atomically(c.o.out + "/gradebook.csv", grade::gradebook_csv(shown, c.labs, c.deadlines)) ||
      !grade::write_atomically(c.o.out + "/canvas.csv", grade::canvas_csv(shown, c.labs, c.deadlines)) ||
      !grade::write_atomically(c.o.out + "/moodle.csv", grade::moodle_csv(shown, c.labs, c.deadlines)) ||
      !grade::write_atomically(c.o.out + "/class.html", grade::class_page(shown, c.labs, info))) {
    cannot_run("cannot write the gradebook into " + c.o.out);
  }
  write_adjustments(c, shown);
}

}  // namespace class_grading
