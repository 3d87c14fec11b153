// grade-class's Slurm part (--scheduler slurm, grade_class.cpp's other half): submits the
// students still to grade as a job array and a job that merges the results; gives each task its
// students, and the merge job the gradebook's rows.
//
// A submission writes OUT/slurm/: tasks/N, the slugs of task N's students, one a line (a slug
// is a safe file name: grading/course/class/roster.h); grade.sh and merge.sh, the batch scripts; job,
// the array's id; logs/, each job's output. A class has one submission in Slurm at a time (the
// next is refused while its jobs are queued), so no job reads these files while they change.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/exit_codes.h"
#include "grading/course/class/hash.h"
#include "grading/course/class/slurm.h"
#include "grading/course/grade_class.h"
#include "tools/text.h"
#include "grading/core/atomic_file.h"

namespace class_grading {

namespace fs = std::filesystem;

namespace {

std::string slurm_dir(const Options& o) { return o.out + "/slurm"; }

// Students graded at once by a task: JOBS on the CPU backend (the task asks for as many CPUs),
// one on a GPU (the task's one GPU).
int64_t task_jobs(const Class& c) { return c.backend == "cpu" && c.o.jobs > 0 ? c.o.jobs : 1; }

// The grade-class command of the class's Slurm jobs: the same submissions, seed, rubric, lab and
// backend as this run, and the same paths as given (the jobs run in this folder too), so that
// the stamps a task leaves are the ones this command computes on a rerun.
std::vector<std::string> job_command(const Class& c) {
  const Options& o = c.o;
  std::vector<std::string> argv = {fs::read_symlink("/proc/self/exe").string(), "--submissions", o.submissions, "--out", o.out,
                                   "--rubric", o.rubric, "--backend", c.backend, "--seed", std::to_string(c.seed),
                                   "--jobs", std::to_string(task_jobs(c))};
  if (!o.roster.empty()) argv.insert(argv.end(), {"--roster", o.roster});
  if (!o.lab.empty()) argv.insert(argv.end(), {"--lab", o.lab});
  if (!o.build_dir.empty()) argv.insert(argv.end(), {"--build-dir", o.build_dir});
  if (o.trace_runs) argv.push_back("--trace-runs");
  if (!o.counts.empty()) argv.insert(argv.end(), {"--counts", o.counts});
  // The merge job writes the gradebook: it applies the same overrides.
  if (!o.overrides.empty()) argv.insert(argv.end(), {"--overrides", o.overrides});
  // SUBMISSIONS is the download's import then: the jobs read it, and hide the download itself.
  if (!o.imported_from.empty()) argv.insert(argv.end(), {"--imported-from", o.imported_from});
  return argv;
}

// The name of the class's jobs: OUT's (hashed), by which squeue finds them.
std::string job_name(const Options& o) {
  return "grade-class-" + grade::hex16(grade::fnv1a(fs::absolute(o.out).lexically_normal().string())).substr(0, 8);
}

// What the class's jobs ask Slurm for. A task's time limit is the rubric's timeout.student for
// each round of students it grades, and 10 minutes for the build folder's first build.
grade::SlurmSettings slurm_settings(const Class& c) {
  grade::SlurmSettings s;
  s.job_name = job_name(c.o);
  s.partition = c.o.partition;
  s.account = c.o.account;
  s.cpus_per_task = c.o.jobs > 0 ? int(c.o.jobs) : 0;
  s.gpu = c.backend == "gpu";
  const int64_t rounds = (c.o.batch + task_jobs(c) - 1) / task_jobs(c);
  s.task_seconds = double(rounds) * c.rubric.timeout_student + 600;
  s.log_dir = fs::absolute(slurm_dir(c.o) + "/logs").lexically_normal().string();
  s.workdir = fs::current_path().string();
  return s;
}

void write_or_fail(const std::string& path, const std::string& text) {
  if (!grade::write_atomically(path, text)) cannot_run("cannot write " + path);
}

}  // namespace

// Also when the class cannot go to Slurm now for OUT's path: a character sbatch would misread.
void refuse_while_queued(const Options& o) {
  if (fs::absolute(slurm_dir(o)).string().find_first_of("%\n") != std::string::npos) {
    cannot_run("on Slurm, OUT's path must hold no % and no newline (sbatch reads a % in a log's name as a pattern)");
  }
  const std::string name = job_name(o);
  std::vector<std::string> queued;
  std::string error;
  if (!grade::queued_jobs(name, &queued, &error)) cannot_run(error);
  if (!queued.empty()) {
    std::string ids;
    for (const std::string& id : queued) ids += (ids.empty() ? "" : ",") + id;
    cannot_run("this class's Slurm jobs " + ids + " (named " + name + ") are still queued or running: wait for them to end (squeue " +
               "--name=" + name + ") or cancel them (scancel --name=" + name + "), then run this again");
  }
}

int submit_to_slurm(const Class& c, const std::vector<grade::Student>& students) {
  const std::string dir = slurm_dir(c.o);
  const grade::SlurmSettings s = slurm_settings(c);
  refuse_while_queued(c.o);
  std::string error;
  std::vector<grade::GradebookRow> rows;
  std::vector<size_t> to_grade;
  size_t done = 0;
  for (size_t i = 0; i < students.size(); ++i) {
    const Standing st = standing(c, students[i]);
    if (!st.done && !st.root.empty()) to_grade.push_back(i);
    done += st.done;
    rows.push_back(st.row);
  }
  const size_t batch = size_t(c.o.batch), tasks = (to_grade.size() + batch - 1) / batch;
  std::printf("make grade-class: %zu students in %s, class seed %llu (SEED=%llu reproduces every seed), to Slurm: %zu to grade, %zu "
              "graded already with what they hand in now, %zu with nothing to grade\n",
              students.size(), c.o.submissions.c_str(), (unsigned long long)c.seed, (unsigned long long)c.seed, to_grade.size(), done,
              students.size() - to_grade.size() - done);
  grade::Similarity waiting;
  waiting.line = "similarity: made by the job that merges the tasks' results";
  if (tasks == 0) {
    grade::Similarity off;
    off.line = "similarity: not made (--no-similarity)";
    write_outputs(c, rows, c.o.no_similarity ? off : class_similarity(c.o, c.labs, students));
    std::printf("nothing to grade: the gradebook is complete (%s/gradebook.csv)\n", c.o.out.c_str());
    return lab::kExitPass;
  }
  std::error_code ec;
  fs::remove_all(dir + "/tasks", ec);
  fs::create_directories(dir + "/tasks", ec);
  fs::create_directories(dir + "/logs", ec);
  std::vector<std::string> lists(tasks);
  for (size_t k = 0; k < to_grade.size(); ++k) lists[k / batch] += students[to_grade[k]].slug + "\n";
  for (size_t t = 0; t < tasks; ++t) write_or_fail(dir + "/tasks/" + std::to_string(t), lists[t]);
  write_or_fail(dir + "/grade.sh", grade::batch_script(s.workdir, job_command(c), "--slurm-task \"$SLURM_ARRAY_TASK_ID\""));
  write_or_fail(dir + "/merge.sh", grade::batch_script(s.workdir, job_command(c), "--slurm-merge"));
  std::string array, merge;
  if (!grade::submit_array(s, dir + "/grade.sh", tasks, &array, &error)) cannot_run(error);
  write_or_fail(dir + "/job", array + "\n");
  if (!grade::submit_after(s, dir + "/merge.sh", array, &merge, &error)) {
    grade::cancel_job(array);
    cannot_run(error + " (the job array " + array + " is cancelled)");
  }
  for (size_t k = 0; k < to_grade.size(); ++k) {
    rows[to_grade[k]].status = "not graded yet: queued in Slurm task " + array + "_" + std::to_string(k / batch);
  }
  write_outputs(c, rows, waiting);
  std::printf("submitted job array %s (%zu task%s of at most %zu students) and job %s, which merges their results into %s/gradebook.csv "
              "once they have ended\n(until then the gradebook marks the queued students; squeue --name=%s shows the jobs, %s/logs "
              "their output)\n",
              array.c_str(), tasks, tasks == 1 ? "" : "s", batch, merge.c_str(), c.o.out.c_str(), s.job_name.c_str(), dir.c_str());
  return lab::kExitPass;
}

std::vector<grade::Student> task_students(const Class& c, const std::vector<grade::Student>& students) {
  const std::string path = slurm_dir(c.o) + "/tasks/" + std::to_string(c.o.slurm_task);
  std::ifstream in(path);
  if (!in) cannot_run("no list of students at " + path + " (a Slurm task runs only from the submission that wrote it)");
  std::set<std::string> slugs;
  for (std::string line; std::getline(in, line);) slugs.insert(line);
  std::vector<grade::Student> mine;
  std::error_code ec;
  for (const grade::Student& s : students) {
    if (slugs.count(s.slug) == 0) continue;
    mine.push_back(s);
    fs::remove(c.o.out + "/students/" + s.slug + "/slurm-status", ec);
  }
  return mine;
}

void leave_statuses(const Class& c, const std::vector<grade::GradebookRow>& rows) {
  for (const grade::GradebookRow& r : rows) {
    if (r.status.rfind("could not grade", 0) == 0) grade::write_atomically(c.o.out + "/students/" + r.student.slug + "/slurm-status", r.status);
  }
}

std::vector<grade::GradebookRow> merged_rows(const Class& c, const std::vector<grade::Student>& students) {
  const std::string dir = slurm_dir(c.o);
  std::string array;
  std::istringstream(tools::read_text(dir + "/job")) >> array;
  std::map<std::string, std::string> task_of;  // slug -> "12_3"
  std::error_code ec;
  for (fs::directory_iterator it(dir + "/tasks", ec), end; !ec && it != end; it.increment(ec)) {
    std::ifstream in(it->path());
    for (std::string slug; std::getline(in, slug);) task_of[slug] = array + "_" + it->path().filename().string();
  }
  std::vector<grade::GradebookRow> rows;
  for (const grade::Student& s : students) {
    Standing st = standing(c, s);
    if (!st.done && !st.root.empty()) {
      const std::string why = tools::read_text(st.dir + "/slurm-status");
      const auto task = task_of.find(s.slug);
      st.row.status = !why.empty()             ? why
                      : task == task_of.end() ? "not graded: handed in after the Slurm jobs were submitted (run the same command again)"
                                              : "not graded: Slurm task " + task->second + " ended before grading it (its log: slurm/logs/" +
                                                    task->second + ".out); run the same command again";
    }
    rows.push_back(st.row);
  }
  return rows;
}

}  // namespace class_grading
