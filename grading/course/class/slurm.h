// Slurm's side of `make grade-class SCHEDULER=slurm`: the batch scripts, and sbatch, squeue and
// scancel run as subprocesses. A class goes to Slurm as a job array, a task per batch of
// students, each task running grade-class itself on its own students (the same grader, seeds and
// build folder as a local run), and a job that waits for the whole array (afterany: it runs even
// when tasks died) and merges what they left into the gradebook. grade_class_slurm.cpp decides
// which students go into which task; this file knows nothing of grading.
#pragma once

#include <string>
#include <vector>

namespace grade {

// What every job of one class's submission asks for.
struct SlurmSettings {
  std::string job_name;            // the class's array and merge job share it: squeue finds them by it
  std::string partition, account;  // "" for the cluster's default (sbatch's SBATCH_* variables apply too)
  int cpus_per_task = 0;           // 0: the cluster's default
  bool gpu = false;                // each task asks for one GPU (--gres=gpu:1)
  double task_seconds = 3600;      // each task's time limit
  std::string log_dir;             // each job writes its output there
  std::string workdir;             // the repository root, where the jobs run grade-class
};

// A bash batch script that runs ARGV from WORKDIR, every word quoted, followed by the words of
// RAW as they are (a shell expansion such as "$SLURM_ARRAY_TASK_ID").
std::string batch_script(const std::string& workdir, const std::vector<std::string>& argv, const std::string& raw);

// Submits SCRIPT as an array of TASKS tasks (0 to TASKS - 1); *job is its id. False, with what
// sbatch said (or that there is no sbatch) in *error.
bool submit_array(const SlurmSettings& s, const std::string& script, size_t tasks, std::string* job, std::string* error);

// Submits SCRIPT to run once job AFTER has ended, however it ended.
bool submit_after(const SlurmSettings& s, const std::string& script, const std::string& after, std::string* job, std::string* error);

// The ids of the jobs named NAME still queued or running. False, with why, when squeue cannot say.
bool queued_jobs(const std::string& name, std::vector<std::string>* jobs, std::string* error);

// Cancels JOB (its every task), as far as scancel can.
void cancel_job(const std::string& job);

}  // namespace grade
