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
// The Slurm part is grade_class_slurm.cpp; grade_class.h holds what the two files share.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include "common/cli.h"
#include "tools/descendants.h"
#include "common/exit_codes.h"
#include "tools/subprocess.h"
#include "grading/core/machine.h"
#include "grading/course/class/download.h"
#include "grading/course/class/gradebook.h"
#include "grading/course/class/hash.h"
#include "grading/course/class/lms.h"
#include "grading/course/class/page.h"
#include "grading/course/class/prepare.h"
#include "grading/course/class/similarity.h"
#include "grading/course/class/submitted.h"
#include "grading/course/class/time_left.h"
#include "grading/course/grade_class.h"
#include "grading/core/isolation.h"
#include "grading/core/report.h"
#include "grading/core/rubric.h"
#include "grading/core/sandbox.h"

namespace class_grading {

namespace fs = std::filesystem;

namespace {

std::atomic<bool> interrupted{false};

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

// The class's seed: asked for, else the one OUT was graded with, else a new one (kept in OUT).
uint64_t class_seed(const Options& o) {
  const std::string path = o.out + "/class-seed";
  uint64_t seed = o.seed >= 0 ? uint64_t(o.seed) : 0;
  if (o.seed < 0) {
    std::istringstream kept(read_text(path));
    if (!(kept >> seed)) seed = std::random_device{}() % 1000000000;
  }
  if (!grade::write_atomically(path, std::to_string(seed) + "\n")) cannot_run("cannot write " + path);
  return seed;
}

// A student's seed: the same for the same class seed and id, on any machine (FNV-1a).
uint64_t student_seed(uint64_t class_seed, const std::string& id) { return grade::fnv1a(std::to_string(class_seed) + "\n" + id) % 1000000000; }

// The GPUs this process may use: those CUDA_VISIBLE_DEVICES names when it is set (a Slurm task's
// own, which nvidia-smi does not heed), else each that nvidia-smi lists.
std::vector<std::string> usable_gpus(size_t listed) {
  std::vector<std::string> ids;
  if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES")) {
    std::istringstream list(visible);
    for (std::string id; std::getline(list, id, ',');) {
      if (!id.empty()) ids.push_back(id);
    }
    return ids;
  }
  for (size_t i = 0; i < listed; ++i) ids.push_back(std::to_string(i));
  return ids;
}

std::vector<std::string> gpu_names() {
  const tools::RunResult r = tools::run_command({"nvidia-smi", "--query-gpu=name", "--format=csv,noheader"});
  std::vector<std::string> names;
  std::istringstream lines(r.exited(0) ? r.output : "");
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) names.push_back(line);
  }
  return names;
}

// The grader's command for student S's folder ROOT, reporting into REPORT.
std::vector<std::string> grader_command(const Class& c, const std::string& root, const std::string& report, uint64_t seed) {
  std::vector<std::string> argv = {c.grader, "--src", root, "--out", report, "--seed", std::to_string(seed),
                                   "--backend", c.backend, "--rubric", c.o.rubric};
  if (!c.o.lab.empty()) argv.insert(argv.end(), {"--lab", c.o.lab});
  if (!c.build_dir.empty()) argv.insert(argv.end(), {"--build-dir", c.build_dir});
  if (c.grader_jobs > 0) argv.insert(argv.end(), {"--jobs", std::to_string(c.grader_jobs)});
  if (c.grader_cores > 0) argv.insert(argv.end(), {"--cores", std::to_string(c.grader_cores)});
  if (c.backend == "gpu") argv.insert(argv.end(), {"--class-run", c.class_run});
  // What student code must not read: the class's submissions (and the download they came from),
  // and every student's folder and the similarity report's copies in OUT (the grader reads its own
  // student's outside the fences).
  for (const std::string& dir : {c.o.submissions, c.o.out + "/students", c.o.out + "/similarity", c.o.out + "/download"}) {
    argv.insert(argv.end(), {"--hide", dir});
  }
  if (!c.o.imported_from.empty()) argv.insert(argv.end(), {"--hide", c.o.imported_from});
  return argv;
}

// Grades student S, or keeps the result of an earlier run when nothing it depends on changed
// (*KEPT). WORKER picks the GPU on a GPU machine.
grade::GradebookRow grade_student(const Class& c, const grade::Student& s, int worker, bool* kept) {
  Standing st = standing(c, s);
  grade::GradebookRow& row = st.row;
  *kept = st.done;
  if (st.done || st.root.empty()) return row;
  const std::string report = st.dir + "/report";
  std::error_code ec;
  fs::remove(st.dir + "/done", ec);
  fs::create_directories(report, ec);
  tools::RunOptions options;
  options.timeout_s = c.rubric.timeout_student;
  options.stop_early = [] { return interrupted.load(); };
  // One GPU per worker (see main): the grader and its student programs see only that one.
  if (c.backend == "gpu") options.env = {"CUDA_VISIBLE_DEVICES=" + c.gpu_ids[worker % c.gpu_ids.size()]};
  const tools::RunResult r = tools::run_command(grader_command(c, st.root, report, row.seed), options);
  // A grader stopped at timeout.student leaves its student programs (process groups of their
  // own) to this process: they go now, not beside the next grader's runs.
  tools::kill_descendants();
  grade::write_atomically(report + "/grade.log", r.output);
  if (interrupted) return row.status = "not graded: interrupted (run again to go on)", row;
  if (grade::read_results(report + "/results.json", st.root, c.labs, &row) && r.exited(0)) {
    grade::write_atomically(st.dir + "/done", st.stamp);
  } else if (row.status == "graded") {
    row.status = "could not grade: the grader " + r.describe() + " (its output: " + row.report + "/grade.log)";
  }
  return row;
}

// The progress line after each student: done / total, failures, time left.
class Progress {
 public:
  explicit Progress(size_t total) : total_(total), start_(std::chrono::steady_clock::now()) {}
  void done(const grade::GradebookRow& row, bool kept) {
    const std::lock_guard<std::mutex> hold(mutex_);
    ++done_;
    if (row.status != "graded") ++not_graded_;
    if (!kept) ++graded_now_;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double left = grade::seconds_left(elapsed, graded_now_, done_, total_);
    const std::string score = row.status == "graded" ? " " + grade::points_text(row.total()) + "/" + grade::points_text(row.max_total()) : "";
    std::printf("[%zu/%zu] %s: %s%s%s; %zu not graded; about %.0f s left\n", done_, total_, grade::printable(row.student.id).c_str(),
                row.status.c_str(), score.c_str(), kept ? " (unchanged since the last run: kept)" : "", not_graded_, left);
    std::fflush(stdout);
  }

 private:
  std::mutex mutex_;
  size_t total_, done_ = 0, not_graded_ = 0, graded_now_ = 0;
  std::chrono::steady_clock::time_point start_;
};

// Grades every student, WORKERS at a time; the rows in the students' order.
std::vector<grade::GradebookRow> grade_class(const Class& c, const std::vector<grade::Student>& students, int workers) {
  std::vector<grade::GradebookRow> rows(students.size());
  std::atomic<size_t> next{0};
  Progress progress(students.size());
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      for (size_t i; (i = next++) < students.size();) {
        bool kept = false;
        if (interrupted) {
          rows[i].student = students[i];
          rows[i].status = "not graded: interrupted (run again to go on)";
        } else {
          rows[i] = grade_student(c, students[i], w, &kept);
        }
        progress.done(rows[i], kept);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  return rows;
}

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

// Every student's grader builds in one folder, under its lock (grading/core/build_folder.h): the
// lab programs' parts and the solutions are built once, and each student's copies and programs
// lie in folders of their own, named after the submission's path, so graders running at once
// never overwrite each other's. Only where namespaces keep student code from writing it: without
// them a student's program could plant a file there for the next student, and each grader builds
// afresh in its scratch folder (the grader's own default), slower.
std::string shared_build_folder(const Options& o) {
  const std::string folder = o.build_dir.empty() ? o.out + "/build" : o.build_dir;
  std::error_code ec;
  fs::create_directories(folder, ec);
  const std::string work = grade::make_private_dir("/tmp/grade-class-");
  if (ec || work.empty()) cannot_run("cannot make the build folder " + folder + " or a scratch folder in /tmp");
  bool namespaces = false;
  try {
    namespaces = grade::probe_sandbox(fs::current_path().string(), fs::weakly_canonical(folder).string(), work, true).namespaces;
  } catch (const std::exception& e) {
    fs::remove_all(work, ec);
    cannot_run(e.what());
  }
  fs::remove_all(work, ec);
  if (namespaces) return folder;
  std::printf("(no namespaces here: each student's grader builds afresh, so that no student's program can plant a file for the next)\n");
  return "";
}

// Workers: on the CPU backend one per core (JOBS). On a GPU machine one per GPU this process may
// use by default, each grader seeing only its GPU (CUDA_VISIBLE_DEVICES) and grading its own labs
// at once on the CPU cores. JOBS=N runs N, sharing the GPUs: they build side by side, and take
// their GPU one grader at a time (grading/core/turns.h). Four per GPU were no faster on the H200
// than one on the H100 (docs/results/grade-class-gpu.log; not a strict comparison).
int worker_count(const Class& c, size_t students) {
  int64_t workers = c.o.jobs > 0 ? c.o.jobs : int64_t(std::max(1u, std::thread::hardware_concurrency()));
  if (c.backend == "gpu" && c.o.jobs <= 0) workers = int64_t(c.gpu_ids.size());
  return int(std::clamp<int64_t>(workers, 1, std::max<int64_t>(1, int64_t(students))));
}

// The labs of the table, labs.txt.
std::vector<lab::LabEntry> table_labs() {
  std::vector<lab::LabEntry> labs;
  std::string error;
  if (!lab::read_labs("labs.txt", &labs, &error)) cannot_run(error);
  return labs;
}

// The labs graded: the table's, or those --lab names.
std::vector<lab::LabEntry> class_labs(const Options& o) {
  const std::vector<lab::LabEntry> labs = table_labs();
  if (o.lab.empty()) return labs;
  std::string unknown;
  std::vector<lab::LabEntry> named;
  for (const lab::LabEntry* l : lab::labs_named(labs, o.lab, &unknown)) named.push_back(*l);
  if (named.empty()) cannot_run("no lab '" + unknown + "' in labs.txt");
  return named;
}

// One local run grades into a class folder at a time: two would grade the same students and
// write one gradebook over the other. The lock (flock, on OUT/.grade-class.lock) is held until
// the process ends, however it ends. Slurm's tasks share their class folder by design: each
// grades its own students, and the merge writes the gradebook once they are done.
void hold_class_lock(const std::string& out) {
  static bool held = false;  // taken once: a second flock on another descriptor would wait for the first
  if (held) return;
  held = true;
  const std::string path = out + "/.grade-class.lock";
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) cannot_run("cannot open " + path + ": " + std::strerror(errno));
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    cannot_run("another make grade-class is grading into " + out + ": wait for it to end, or grade into another OUT=");
  }
}

Class make_class(const Options& o) {
  Class c;
  c.o = o;
  c.labs = class_labs(o);
  c.gpus = gpu_names();
  c.gpu_ids = usable_gpus(c.gpus.size());
  c.backend = o.backend.empty() ? (c.gpus.empty() ? "cpu" : "gpu") : o.backend;
  if (c.backend != "cpu" && c.backend != "gpu") cannot_run("BACKEND must be gpu or cpu, not '" + c.backend + "'");
  // Submitting to Slurm, and merging, need no GPU: a cluster's login node has none.
  const bool grades_here = o.scheduler == "local" && !o.slurm_merge;
  if (grades_here && c.backend == "gpu" && c.gpu_ids.empty()) cannot_run("BACKEND=gpu, but nvidia-smi sees no GPU here");
  c.grader = fs::path(fs::read_symlink("/proc/self/exe")).parent_path().string() + "/grade";
  if (access(c.grader.c_str(), X_OK) != 0) cannot_run("no grader at " + c.grader + " (make build/host/grade)");
  const std::string rubric = read_text(o.rubric);
  if (rubric.empty()) cannot_run("cannot read the rubric " + o.rubric);
  std::string error;
  if (!grade::read_rubric(o.rubric, table_labs(), &c.rubric, &error)) cannot_run(error);
  for (const lab::LabEntry& l : c.labs) {
    const auto section = std::find_if(c.rubric.labs.begin(), c.rubric.labs.end(), [&](const grade::LabRubric& r) { return r.folder == l.folder; });
    c.deadlines.due.push_back(section == c.rubric.labs.end() ? -1 : section->due);
  }
  c.deadlines.policy = c.rubric.late;
  c.rubric_fingerprint = grade::hex16(grade::fnv1a(rubric));
  std::error_code ec;
  fs::create_directories(o.out + "/students", ec);
  if (ec) cannot_run("cannot make " + o.out + "/students: " + ec.message());
  if (grades_here && o.slurm_task < 0) hold_class_lock(o.out);
  c.seed = class_seed(o);
  c.build_dir = shared_build_folder(o);
  c.class_run = std::to_string(time(nullptr)) + "-" + std::to_string(getpid());
  return c;
}

std::vector<grade::Student> class_list(const Options& o) {
  std::vector<grade::Student> roster, students;
  std::string error;
  if (!o.roster.empty() && !grade::read_roster(o.roster, &roster, &error)) cannot_run(error);
  struct stat st;
  if (stat(o.submissions.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) cannot_run("no folder '" + o.submissions + "' of submissions");
  if (!grade::list_students(o.submissions, roster, &students, &error)) cannot_run(error);
  if (students.empty()) cannot_run("the folder " + o.submissions + " holds no submission, and there is no roster");
  return students;
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

void on_interrupt(int) { interrupted = true; }

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

// ---- grade_class.h's, which grade_class_slurm.cpp uses too ----

[[noreturn]] void cannot_run(const std::string& why) {
  std::fprintf(stderr, "make grade-class: %s\n", why.c_str());
  std::exit(lab::kExitCannotRun);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

Standing standing(const Class& c, const grade::Student& s) {
  Standing st;
  grade::GradebookRow& row = st.row;
  row.student = s;
  row.seed = student_seed(c.seed, s.id);
  st.dir = c.o.out + "/students/" + s.slug;
  std::error_code ec;
  fs::create_directories(st.dir, ec);
  const grade::Prepared p = grade::prepare_submission(s, st.dir + "/unpacked", c.labs);
  row.notes = p.notes;
  if (!s.on_roster && !c.o.roster.empty()) row.notes.push_back("not on the roster");
  // What the LMS's download says of the student (only a folder the import wrote has a record).
  const grade::DownloadRecord record = c.o.imported_from.empty() ? grade::DownloadRecord() : grade::read_download_record(s.entry);
  if (record.found) {
    if (row.student.name.empty()) row.student.name = grade::printable(record.name);
    if (row.student.canvas_id.empty()) row.student.canvas_id = record.canvas_id;
    if (record.late) {
      row.notes.push_back("Canvas marks the submission late; its download holds no time, so no late penalty is applied here "
                          "(Canvas's own late policy, or an override, can)");
    }
    row.notes.insert(row.notes.end(), record.notes.begin(), record.notes.end());
  }
  if (!p.status.empty()) return row.status = p.status, st;
  st.root = p.root;
  if (c.deadlines.any()) {
    row.submitted = record.found ? grade::recorded_times(record, p.root, c.labs) : grade::submission_times(p.top, p.root, c.labs);
  }
  row.report = "students/" + s.slug + "/report";
  st.stamp = grade::lab_files_fingerprint(p.root, c.labs) + " seed " + std::to_string(row.seed) + " rubric " + c.rubric_fingerprint +
             " lab " + c.o.lab + " " + c.backend + "\n";
  st.done = read_text(st.dir + "/done") == st.stamp && grade::read_results(st.dir + "/report/results.json", p.root, c.labs, &row);
  return st;
}

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
    const int workers = worker_count(c, graded.size());
    // Graders sharing a GPU machine share its cores too, each grading its labs at once. On the
    // CPU backend each grader is told its share, so that it runs nothing beside its runs that
    // the others' would need the core for (grading/core/grade_labs.cpp).
    if (c.backend == "gpu" && size_t(workers) > c.gpu_ids.size()) {
      c.grader_jobs = std::max(1, int(std::thread::hardware_concurrency()) / workers);
    }
    if (c.backend == "cpu" && workers > 1) c.grader_cores = std::max(1, grade::usable_cores() / workers);
    std::printf("make grade-class: %zu students in %s, class seed %llu (SEED=%llu reproduces every seed), %d at once on %s\n",
                graded.size(), o.submissions.c_str(), (unsigned long long)c.seed, (unsigned long long)c.seed, workers,
                c.backend == "gpu" ? (std::to_string(c.gpu_ids.size()) + " GPU(s), each timed pass alone on its GPU").c_str()
                                   : "the CPU backend");
    std::fflush(stdout);
    std::signal(SIGINT, on_interrupt);
    std::signal(SIGTERM, on_interrupt);
    // make runs this from a shell, which a killed make leaves behind or takes along: either way
    // the class must stop as if interrupted, its finished students kept.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    rows = grade_class(c, graded, workers);
    tools::kill_descendants();
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
