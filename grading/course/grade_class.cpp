// `make grade-class`: grades a class, one student per entry of a submissions folder (a folder
// with the labs' layout, or a .zip or .tar of one), or a Canvas or Gradescope download of the
// class's submissions, imported first into such a folder, OUT/download/students
// (grading/course/class/download.h), by running the grader (build/host/grade) on
// each as a subprocess with its own report folder and a seed derived from the student's id and
// the class's seed; it grades nothing itself. It writes gradebook.csv, class.html (the summary)
// and, under students/, each student's report. A rerun grades only students whose lab files,
// seed or rubric changed: an interrupted run goes on where it stopped. With --scheduler slurm it
// grades nothing here either: it submits the students still to grade to Slurm as a job array
// whose tasks run grade-class on their own students (--slurm-task), and a job that merges
// their results into the gradebook (--slurm-merge) once the array has ended.
//
//   grade-class --submissions DIR [--out DIR] [--roster FILE] [--jobs N] [--lab NN] [--backend gpu|cpu]
//               [--seed N] [--rubric FILE] [--build-dir DIR] [--similarity-threshold PCT] [--no-similarity]
//               [--similarity-only] [--scheduler local|slurm] [--partition P] [--account A] [--batch N]
//
// After grading, the similarity report (grading/course/class/similarity.h) ranks each lab's pairs of
// students by the code they share; --similarity-only makes only that report, grading nothing.
//
// Exit status: 0 when every student has a row (whatever the scores), 2 when it could not run,
// 130 when interrupted (the rows so far are written; a rerun goes on).
//
// The class it grades is made in grade_class_setup.cpp, graded here in grade_class_local.cpp
// (a student at a time per worker) or sent to Slurm by grade_class_slurm.cpp, and written out by
// grade_class_outputs.cpp; grade_class.h holds what the files share.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "common/cli.h"
#include "tools/descendants.h"
#include "common/exit_codes.h"
#include "grading/course/class/download.h"
#include "grading/course/grade_class.h"

namespace class_grading {

namespace fs = std::filesystem;

namespace {

Options parse_options(int argc, char** argv) {
  Options o;
  lab::Cli cli(argv[0], "Grades a class: each entry of a submissions folder (a folder with the labs' layout, or a .zip or\n"
                        ".tar of one) with the grader, into a gradebook. Run from the repository root; `make grade-class` does.");
  cli.add_string("submissions", &o.submissions, "the folder of submissions, one entry per student; or a Canvas or Gradescope\n"
                                                "download of them (its .zip, or the folder it unzips to)");
  cli.add_string("out", &o.out, "where gradebook.csv, class.html and students/ go (default build/class); a rerun into\n"
                                "the same folder grades only what changed");
  cli.add_string("regrade", &o.regrade, "grade these students again (their ids, alice or a list, alice,bob) though nothing\n"
                                        "they hand in changed: after a fix to the grader or the rubric, a disputed result");
  cli.add_string("overrides", &o.overrides, "the instructor's overrides: a CSV of id, lab, points, comment, applied to the\n"
                                            "gradebook every run (default OUT/overrides.csv where it exists)");
  cli.add_string("roster", &o.roster, "a CSV with an id column (and name, nickname): its students get a row, handed in or not");
  cli.add_int("jobs", &o.jobs, 1, 256, "students graded at once (default: on the CPU backend one per core, on a GPU machine one per GPU)");
  cli.add_string("lab", &o.lab, "only these labs: 01, or 01_matmul_naive, or a list, 01,04");
  cli.add_string("backend", &o.backend, "gpu or cpu (default: gpu when nvidia-smi sees one)");
  cli.add_int("seed", &o.seed, -1, INT64_MAX, "the class's seed (default: the one OUT holds, else a new one); each student's\n"
                                              "is derived from it and the id");
  cli.add_string("rubric", &o.rubric, "the rubric file");
  cli.add_string("build-dir", &o.build_dir, "the grader's build folder, shared by every student (default OUT/build)");
  cli.add_int("similarity-threshold", &o.similarity_threshold, 1, 100, "the similarity score (percent) from which a pair of\n"
                                                                       "students is flagged (default 80)");
  cli.add_flag("no-similarity", &o.no_similarity, "no similarity report");
  cli.add_flag("trace-runs", &o.trace_runs, "each student's grader writes a line per lab program run into runs.tsv in its folder\n"
                                            "of OUT/students: its wait for the GPU, its run (grading/core/run_trace.h)");
  cli.add_string("counts", &o.counts, "on a GPU, where the technique check's counts come from: model (the CPU backend's counting\n"
                                     "build, the default: the same verdicts as Nsight Compute's, and the GPU free of profiled runs)\n"
                                     "or ncu (Nsight Compute, the GPU's counters)");
  cli.add_flag("similarity-only", &o.similarity_only, "only the similarity report, into OUT/similarity: nothing is graded");
  cli.add_string("scheduler", &o.scheduler, "local (grade here) or slurm (submit a job array and a job that merges its results)");
  cli.add_string("partition", &o.partition, "Slurm: the partition (default the cluster's)");
  cli.add_string("account", &o.account, "Slurm: the account (default the cluster's)");
  cli.add_int("batch", &o.batch, 1, 100000, "Slurm: students graded by each task of the array, one after another (JOBS at once on the CPU backend)");
  cli.add_int("slurm-task", &o.slurm_task, -1, 1000000, "(the Slurm tasks' own) grades the students of OUT/slurm/tasks/N only");
  cli.add_flag("slurm-merge", &o.slurm_merge, "(the Slurm merge job's own) grades no one: writes the gradebook from what the tasks left");
  cli.add_string("imported-from", &o.imported_from, "(the Slurm jobs' own) the download SUBMISSIONS was imported from: hidden from\n"
                                                    "student code, not imported again");
  cli.parse(argc, argv);
  if (o.submissions.empty()) cannot_run("say which folder to grade: --submissions DIR (make grade-class SUBMISSIONS=dir)");
  if (o.scheduler != "local" && o.scheduler != "slurm") cannot_run("SCHEDULER must be local or slurm, not '" + o.scheduler + "'");
  return o;
}

// SUBMISSIONS given as a Canvas or Gradescope download: imported into OUT/download/students,
// which is graded from then on, like a class folder. Every run imports it again, under the
// class's lock (another run may be reading the folder): the same download gives the same
// folders and files, so a rerun keeps every student whose files did not change. The Slurm jobs
// are given the folder, not the download (--imported-from).
void import_download(Options* o) {
  if (!o->imported_from.empty() || o->slurm_task >= 0 || o->slurm_merge) return;
  grade::DownloadKind kind;
  std::string error;
  if (!grade::download_kind(o->submissions, &kind, &error)) cannot_run(error);
  if (kind == grade::DownloadKind::none) return;
  std::error_code ec;
  fs::create_directories(o->out, ec);
  if (ec) cannot_run("cannot make " + o->out + ": " + ec.message());
  if (o->scheduler == "local") hold_class_lock(o->out);
  else refuse_while_queued(*o);
  std::vector<grade::Student> roster;
  if (!o->roster.empty() && !grade::read_roster(o->roster, &roster, &error)) cannot_run(error);
  grade::Imported in;
  if (!grade::import_download(o->submissions, kind, roster, table_labs(), o->out + "/download", &in, &error)) cannot_run(error);
  auto count = [](size_t n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); };
  const bool canvas = kind == grade::DownloadKind::canvas;
  std::printf("make grade-class: the %s %s: %s, %s%s, into %s\n", canvas ? "Canvas download" : "Gradescope export", o->submissions.c_str(),
              count(in.students, "student").c_str(), count(in.files, "file").c_str(),
              canvas ? (", " + std::to_string(in.late) + " marked late (Canvas gives no times)").c_str() : "", in.folder.c_str());
  for (const std::string& note : in.notes) std::printf("  %s\n", note.c_str());
  if (!in.not_on_roster.empty()) {
    std::string ids;
    for (const std::string& id : in.not_on_roster) ids += (ids.empty() ? "" : ", ") + grade::printable(id);
    std::printf("  not on the roster, each given a row all the same: %s\n", ids.c_str());
  }
  std::fflush(stdout);
  o->imported_from = o->submissions;
  o->submissions = in.folder;
}

// --regrade: each named student's earlier result is forgotten (its stamp, OUT/students/SLUG/done),
// so that this run grades them whatever they hand in; a name that is no student of the class
// stops the run before anything is graded.
void forget_results(const Options& o, const std::vector<grade::Student>& students) {
  std::vector<const grade::Student*> named;
  for (size_t start = 0; start <= o.regrade.size();) {
    const size_t comma = std::min(o.regrade.find(',', start), o.regrade.size());
    const std::string id = o.regrade.substr(start, comma - start);
    start = comma + 1;
    const auto it = std::find_if(students.begin(), students.end(), [&](const grade::Student& s) { return s.id == id; });
    if (it == students.end()) cannot_run("REGRADE: no student '" + id + "' in " + o.submissions + (o.roster.empty() ? "" : " or the roster"));
    named.push_back(&*it);
  }
  std::string ids;
  for (const grade::Student* s : named) {
    std::error_code ec;
    fs::remove(o.out + "/students/" + s->slug + "/done", ec);
    ids += (ids.empty() ? "" : ", ") + s->id;
  }
  std::printf("make grade-class: grading %s again (their earlier results forgotten)\n", ids.c_str());
}

// The instructor's overrides: O's file, else OUT/overrides.csv where it exists; refused, before
// anything is graded, when a line does not name a student of STUDENTS and a lab.
std::vector<grade::Override> class_overrides(const Options& o, const std::vector<grade::Student>& students) {
  std::error_code ec;
  const std::string path = !o.overrides.empty() ? o.overrides : o.out + "/overrides.csv";
  if (o.overrides.empty() && !fs::exists(path, ec)) return {};
  std::vector<std::string> ids;
  for (const grade::Student& s : students) ids.push_back(s.id);
  std::vector<grade::Override> overrides;
  std::string error;
  if (!grade::read_overrides(path, table_labs(), ids, &overrides, &error)) cannot_run(error);
  std::printf("make grade-class: %zu override%s from %s, applied to the gradebook\n", overrides.size(),
              overrides.size() == 1 ? "" : "s", path.c_str());
  return overrides;
}

}  // namespace

// ---- grade_class.h's, which the other grade_class_*.cpp use too ----

[[noreturn]] void cannot_run(const std::string& why) {
  std::fprintf(stderr, "make grade-class: %s\n", why.c_str());
  std::exit(lab::kExitCannotRun);
}

}  // namespace class_grading

int main(int argc, char** argv) {
  using namespace class_grading;
  const auto start = std::chrono::steady_clock::now();
  tools::adopt_orphans();
  for (const char* name : {"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "SEED"}) unsetenv(name);
  Options o = parse_options(argc, argv);
  import_download(&o);
  const std::vector<grade::Student> students = class_list(o);
  if (o.similarity_only) return class_similarity(o, class_labs(o), students).report.empty() ? lab::kExitCannotRun : lab::kExitPass;
  Class c = make_class(o);
  c.overrides = class_overrides(o, students);
  if (!o.regrade.empty() && o.slurm_task < 0 && !o.slurm_merge) forget_results(o, students);
  if (o.scheduler == "slurm") return submit_to_slurm(c, students);
  const bool task = o.slurm_task >= 0;
  std::vector<grade::GradebookRow> rows;
  if (o.slurm_merge) {
    rows = merged_rows(c, students);
    const size_t graded = size_t(std::count_if(rows.begin(), rows.end(), [](const grade::GradebookRow& r) { return r.status == "graded"; }));
    std::printf("make grade-class: the Slurm tasks' results merged: %zu students, %zu graded (the others' status says why)\n", rows.size(),
                graded);
  } else {
    const std::vector<grade::Student> graded = task ? task_students(c, students) : students;
    rows = grade_here(c, graded);
  }
  if (task) {
    // A task's rows are the merge job's to write, with every other task's.
    leave_statuses(c, rows);
  } else {
    // The gradebook first, the similarity report then (minutes for a large class: it compares
    // every pair), and the summary page again with its pairs.
    const bool compare = !interrupted && !o.no_similarity;
    grade::Similarity similarity;
    similarity.line = compare ? "similarity: being made"
                              : "similarity: not made (" + std::string(interrupted ? "interrupted" : "--no-similarity") + ")";
    write_outputs(c, rows, similarity);
    if (compare) write_outputs(c, rows, class_similarity(o, c.labs, students));
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!task) std::printf("(gradebook: %s/gradebook.csv; summary: %s/class.html; %.0f s)\n", o.out.c_str(), o.out.c_str(), seconds);
  if (interrupted) std::printf("interrupted: run the same command again to go on\n");
  return interrupted ? 130 : lab::kExitPass;
}
