// Grading a class here (--scheduler local, and each Slurm task on its students): the grader run
// on each student as a subprocess, as many at once as the machine takes, with a line of progress
// after each; a student whose lab files, seed and rubric did not change since they were graded
// kept as they were (their standing).
#include <sys/prctl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <thread>

#include "tools/descendants.h"
#include "tools/subprocess.h"
#include "grading/core/atomic_file.h"
#include "grading/core/machine.h"
#include "grading/core/report.h"
#include "grading/course/class/hash.h"
#include "grading/course/class/prepare.h"
#include "grading/course/class/submitted.h"
#include "grading/course/class/time_left.h"
#include "grading/course/grade_class.h"
#include "tools/text.h"

namespace class_grading {

namespace fs = std::filesystem;

std::atomic<bool> interrupted{false};

namespace {

// A student's seed: the same for the same class seed and id, on any machine (FNV-1a).
uint64_t student_seed(uint64_t class_seed, const std::string& id) { return grade::fnv1a(std::to_string(class_seed) + "\n" + id) % 1000000000; }

// The grader's command for the student whose files are in ROOT and whose folder of the class's
// output is DIR, reporting into DIR/report.
std::vector<std::string> grader_command(const Class& c, const std::string& root, const std::string& dir, uint64_t seed) {
  std::vector<std::string> argv = {c.grader, "--src", root, "--out", dir + "/report", "--seed", std::to_string(seed),
                                   "--backend", c.backend, "--rubric", c.o.rubric};
  if (c.o.trace_runs) argv.insert(argv.end(), {"--trace-runs", dir + "/runs.tsv"});
  if (!c.o.lab.empty()) argv.insert(argv.end(), {"--lab", c.o.lab});
  if (!c.build_dir.empty()) argv.insert(argv.end(), {"--build-dir", c.build_dir});
  if (c.grader_jobs > 0) argv.insert(argv.end(), {"--jobs", std::to_string(c.grader_jobs)});
  if (c.grader_cores > 0) argv.insert(argv.end(), {"--cores", std::to_string(c.grader_cores)});
  if (c.backend == "gpu") argv.insert(argv.end(), {"--class-run", c.class_run, "--counts", c.counts});
  if (c.graders_share_gpus) argv.push_back("--side-by-side");
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
  // A trace (--trace-runs) is one run's: a kept student's, from an earlier run, goes too.
  std::error_code ec;
  fs::remove(st.dir + "/runs.tsv", ec);
  if (st.done || st.root.empty()) return row;
  const std::string report = st.dir + "/report";
  fs::remove(st.dir + "/done", ec);
  fs::create_directories(report, ec);
  tools::RunOptions options;
  options.timeout_s = c.rubric.timeout_student;
  options.stop_early = [] { return interrupted.load(); };
  // One GPU per worker (worker_count): the grader and its student programs see only that one.
  if (c.backend == "gpu") options.env = {"CUDA_VISIBLE_DEVICES=" + c.gpu_ids[worker % c.gpu_ids.size()]};
  const tools::RunResult r = tools::run_command(grader_command(c, st.root, st.dir, row.seed), options);
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

// Workers: on the CPU backend one per core (JOBS). On a GPU machine one per GPU this process may
// use by default, each grader seeing only its GPU (CUDA_VISIBLE_DEVICES) and grading its own labs
// at once on the CPU cores. JOBS=N runs N, sharing the GPUs: they build side by side, and take
// their GPU one grader at a time (grading/core/turns.h). Four per GPU were no faster on the H200
// than one on the H100 (docs/results/grade-class-gpu.log; not a strict comparison).
int worker_count(const Class& c, size_t students) {
  int64_t workers = c.o.jobs > 0 ? c.o.jobs : int64_t(grade::usable_cores());
  if (c.backend == "gpu" && c.o.jobs <= 0) workers = int64_t(c.gpu_ids.size());
  return int(std::clamp<int64_t>(workers, 1, std::max<int64_t>(1, int64_t(students))));
}

void on_interrupt(int) { interrupted = true; }

}  // namespace

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
             " lab " + c.o.lab + " " + c.backend + (c.counts.empty() ? "" : " counts " + c.counts) + "\n";
  st.done = tools::read_text(st.dir + "/done") == st.stamp && grade::read_results(st.dir + "/report/results.json", p.root, c.labs, &row);
  return st;
}

std::vector<grade::GradebookRow> grade_here(Class& c, const std::vector<grade::Student>& graded) {
  const int workers = worker_count(c, graded.size());
  // Graders sharing a GPU machine share its cores too, each grading its labs at once. On the
  // CPU backend each grader is told its share, so that it runs nothing beside its runs that
  // the others' would need the core for (grading/core/grade_labs.cpp).
  if (c.backend == "gpu" && size_t(workers) > c.gpu_ids.size()) {
    c.grader_jobs = std::max(1, grade::usable_cores() / workers);
    c.graders_share_gpus = true;
  }
  if (c.backend == "cpu" && workers > 1) c.grader_cores = std::max(1, grade::usable_cores() / workers);
  const std::string counted = c.counts == "model" ? "; technique counts from the CPU backend's model (COUNTS=ncu: Nsight Compute)"
                                                  : "; technique counts from Nsight Compute" +
                                                        (c.counts_note.empty() ? "" : " (" + c.counts_note + ")");
  std::printf("make grade-class: %zu students in %s, class seed %llu (SEED=%llu reproduces every seed), %d at once on %s\n",
              graded.size(), c.o.submissions.c_str(), (unsigned long long)c.seed, (unsigned long long)c.seed, workers,
              c.backend == "gpu" ? (std::to_string(c.gpu_ids.size()) + " GPU(s), each timed pass alone on its GPU" + counted).c_str()
                                 : "the CPU backend");
  std::fflush(stdout);
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  // make runs this from a shell, which a killed make leaves behind or takes along: either way
  // the class must stop as if interrupted, its finished students kept.
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  const std::vector<grade::GradebookRow> rows = grade_class(c, graded, workers);
  tools::kill_descendants();
  return rows;
}

}  // namespace class_grading
