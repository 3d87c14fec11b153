// What grade-class's files share: grade_class.cpp (the options, the run), grade_class_setup.cpp
// (the class), grade_class_local.cpp (grading it here), grade_class_outputs.cpp (the gradebook,
// the summary page, the similarity report) and grade_class_slurm.cpp (sending it to Slurm,
// merging what the tasks left). Grading here and on Slurm read a student's standing and write
// the gradebook the same way, so that a rerun, local or on Slurm, keeps what either graded.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "common/labs.h"
#include "grading/course/class/gradebook.h"
#include "grading/course/class/overrides.h"
#include "grading/course/class/roster.h"
#include "grading/course/class/similarity.h"
#include "grading/core/rubric.h"

namespace class_grading {

// Says why on stderr and exits with status 2 (lab::kExitCannotRun).
[[noreturn]] void cannot_run(const std::string& why);

// The command line's (parse_options in grade_class.cpp says what each is).
struct Options {
  std::string submissions, out = "build/class", roster, lab, backend, rubric = "grading/rubric.txt", build_dir;
  std::string regrade;  // students to grade again though nothing they hand in changed: ids, a list
  std::string overrides;  // the instructor's overrides (grading/course/class/overrides.h); "": OUT/overrides.csv if any
  // The Canvas or Gradescope download SUBMISSIONS was imported from (grading/course/class/download.h),
  // when it was: SUBMISSIONS is then OUT/download/students, and each student's record there is read.
  std::string imported_from;
  int64_t jobs = -1, seed = -1;
  int64_t similarity_threshold = 80;
  bool no_similarity = false, similarity_only = false;
  bool trace_runs = false;  // each grader's --trace-runs, into its student's folder: runs.tsv
  std::string counts;       // on a GPU, where the technique counts come from: model (""), ncu
  std::string scheduler = "local", partition, account;  // Slurm's
  int64_t batch = 1, slurm_task = -1;
  bool slurm_merge = false;
};

// What every student's grading shares.
struct Class {
  Options o;
  std::vector<lab::LabEntry> labs;  // those graded
  std::string backend, grader;
  std::string build_dir;            // the grader's, shared; "" for a fresh one per student
  uint64_t seed = 0;
  std::string rubric_fingerprint;
  grade::Rubric rubric;
  grade::Deadlines deadlines;        // the late policy's, per lab graded
  std::vector<grade::Override> overrides;  // the instructor's, applied as the gradebook is written
  std::vector<std::string> gpus;     // the models nvidia-smi names
  std::vector<std::string> gpu_ids;  // those this process may use, for CUDA_VISIBLE_DEVICES
  bool graders_share_gpus = false;   // more graders than GPUs: they run side by side (--side-by-side)
  int grader_jobs = 0;               // each grader's labs at once on a GPU machine (0: its own default)
  int grader_cores = 0;              // on the CPU backend, each grader's share of the cores (0: all)
  // This run's, given to every grader on a GPU: the solution is timed once per run and GPU, by
  // the first student's grading, not once per student (grading/core/kept_times.h).
  std::string class_run;
  // On a GPU, each grader's --counts: the CPU backend's model unless COUNTS=ncu asks for Nsight
  // Compute, or this machine cannot build the CPU backend (counts_note says so); "" on the CPU backend.
  std::string counts, counts_note;
};

// ---- The class: grade_class_setup.cpp ----

// The labs of the table, labs.txt.
std::vector<lab::LabEntry> table_labs();

// The labs graded: the table's, or those --lab names.
std::vector<lab::LabEntry> class_labs(const Options& o);

// One local run grades into a class folder at a time: two would grade the same students and
// write one gradebook over the other. The lock (flock, on OUT/.grade-class.lock) is held until
// the process ends, however it ends. Slurm's tasks share their class folder by design: each
// grades its own students, and the merge writes the gradebook once they are done.
void hold_class_lock(const std::string& out);

// The class O describes: its labs, backend and GPUs, grader, rubric and deadlines, seed and
// build folder, each checked (exits, saying why); OUT/students made and, where this run grades,
// the class's lock held.
Class make_class(const Options& o);

// The students: an entry of SUBMISSIONS each, and the roster's who have none.
std::vector<grade::Student> class_list(const Options& o);

// ---- Grading here (--scheduler local, a Slurm task): grade_class_local.cpp ----

// Set by SIGINT or SIGTERM while grading here: the students not graded yet are not, and the run
// ends with status 130.
extern std::atomic<bool> interrupted;

// Student S as the runs before left it (students/<slug>/ in OUT): ROW is final when there is
// nothing to grade (ROOT empty: missing, refused, ...) or when DONE (graded with what S hands in
// now, the same seed, rubric, lab and backend); otherwise S is to be graded from ROOT, and
// stamped STAMP once graded.
struct Standing {
  grade::GradebookRow row;
  std::string dir, root, stamp;
  bool done = false;
};

Standing standing(const Class& c, const grade::Student& s);

// Grades STUDENTS here, as many at once as the machine takes (on a GPU machine one per GPU, on
// the CPU backend one per core, or JOBS); the rows in the students' order.
std::vector<grade::GradebookRow> grade_here(Class& c, const std::vector<grade::Student>& students);

// ---- What a run writes: grade_class_outputs.cpp ----

// The similarity report over every student's lab files, found as for grading (an archive is
// unpacked again into the student's folder), into OUT/similarity.
grade::Similarity class_similarity(const Options& o, const std::vector<lab::LabEntry>& labs, const std::vector<grade::Student>& students);

// gradebook.csv and class.html, in OUT; the rows not graded get the graded rows' maxima.
void write_outputs(const Class& c, std::vector<grade::GradebookRow>& rows, const grade::Similarity& similarity);

// ---- On Slurm (--scheduler slurm): grade_class_slurm.cpp ----

// Exits, saying why, while this class's Slurm jobs are queued or running: a class has one
// submission in Slurm at a time, and its tasks read its files.
void refuse_while_queued(const Options& o);

// Submits the students still to grade (those no run has graded with what they hand in now) as
// a job array, BATCH students a task, and the job that merges the results once the array has
// ended; writes the gradebook as it stands meanwhile, the queued students marked.
int submit_to_slurm(const Class& c, const std::vector<grade::Student>& students);

// A Slurm task's students: those its list names. The reason an earlier task left for each is
// removed first: it is about to be graded again.
std::vector<grade::Student> task_students(const Class& c, const std::vector<grade::Student>& students);

// What a Slurm task leaves for the merge besides the graded students' reports: why each student
// it could not grade was not (a local run shows that in its gradebook row).
void leave_statuses(const Class& c, const std::vector<grade::GradebookRow>& rows);

// The Slurm merge job's rows, grading no one: each graded student's from its report, as a local
// rerun keeps it; one that its task did not grade says why, until a rerun grades it.
std::vector<grade::GradebookRow> merged_rows(const Class& c, const std::vector<grade::Student>& students);

}  // namespace class_grading
