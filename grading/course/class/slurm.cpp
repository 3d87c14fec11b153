#include "grading/course/class/slurm.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "tools/subprocess.h"
#include "tools/text.h"

namespace grade {

namespace {

// WORD as one shell word: in single quotes, each ' written as '\''.
std::string shell_quote(const std::string& word) {
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// What a Slurm command said, on one line, for a message.
std::string said(const tools::RunResult& r) {
  std::string line;
  std::istringstream lines(r.output);
  for (std::string l; std::getline(lines, l);) {
    if (!tools::trim(l).empty()) line += (line.empty() ? "" : " ") + tools::trim(l);
  }
  return line.empty() ? r.describe() : line;
}

// Runs Slurm's COMMAND; false, with why in *error, when it is missing or fails.
bool run_slurm(const std::vector<std::string>& command, tools::RunResult* r, std::string* error) {
  tools::RunOptions options;
  options.timeout_s = 120;
  *r = tools::run_command(command, options);
  if (r->spawn_failed) {
    *error = "no " + command[0] + " here: SCHEDULER=slurm needs Slurm's commands (sbatch, squeue, scancel) on the PATH; run it on the "
             "cluster's login node";
    return false;
  }
  if (!r->exited(0)) {
    *error = command[0] + " refused (" + r->describe() + "): " + said(*r);
    return false;
  }
  return true;
}

// sbatch ARGS plus what every job of S asks for, then SCRIPT; *job from its --parsable answer
// ("12" or "12;cluster").
bool sbatch(const SlurmSettings& s, std::vector<std::string> args, const std::string& script, std::string* job, std::string* error) {
  std::vector<std::string> command = {"sbatch", "--parsable", "--job-name=" + s.job_name, "--chdir=" + s.workdir};
  if (!s.partition.empty()) command.push_back("--partition=" + s.partition);
  if (!s.account.empty()) command.push_back("--account=" + s.account);
  command.insert(command.end(), args.begin(), args.end());
  command.push_back(script);
  tools::RunResult r;
  if (!run_slurm(command, &r, error)) return false;
  *job = tools::trim(r.output.substr(0, r.output.find_first_of(";\n")));
  if (job->empty() || job->find_first_not_of("0123456789") != std::string::npos) {
    *error = "sbatch gave no job id: " + said(r);
    return false;
  }
  return true;
}

}  // namespace

std::string batch_script(const std::string& workdir, const std::vector<std::string>& argv, const std::string& raw) {
  std::string command;
  for (const std::string& word : argv) command += shell_quote(word) + " ";
  return "#!/bin/bash\n"
         "# Written by make grade-class SCHEDULER=slurm (grading/course/class/slurm.h) and submitted with sbatch.\n"
         "cd " + shell_quote(workdir) + " || exit 2\n"
         "exec " + command + raw + "\n";
}

bool submit_array(const SlurmSettings& s, const std::string& script, size_t tasks, std::string* job, std::string* error) {
  // Slurm takes whole minutes; a limit rounded down would kill a task that the rubric allows.
  std::vector<std::string> args = {"--array=0-" + std::to_string(tasks - 1),
                                   "--time=" + std::to_string(int64_t(std::ceil(s.task_seconds / 60))),
                                   "--output=" + s.log_dir + "/%A_%a.out"};
  if (s.cpus_per_task > 0) args.push_back("--cpus-per-task=" + std::to_string(s.cpus_per_task));
  if (s.gpu) args.push_back("--gres=gpu:1");
  return sbatch(s, args, script, job, error);
}

bool submit_after(const SlurmSettings& s, const std::string& script, const std::string& after, std::string* job, std::string* error) {
  return sbatch(s, {"--dependency=afterany:" + after, "--time=30", "--output=" + s.log_dir + "/%j-merge.out"}, script, job, error);
}

bool queued_jobs(const std::string& name, std::vector<std::string>* jobs, std::string* error) {
  tools::RunResult r;
  // %A: an array's own id, once per task still queued or running.
  if (!run_slurm({"squeue", "--noheader", "--name=" + name, "--format=%A"}, &r, error)) return false;
  jobs->clear();
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);) {
    line = tools::trim(line);
    if (!line.empty() && std::find(jobs->begin(), jobs->end(), line) == jobs->end()) jobs->push_back(line);
  }
  return true;
}

void cancel_job(const std::string& job) {
  tools::RunResult r;
  std::string error;
  run_slurm({"scancel", job}, &r, &error);
}

}  // namespace grade
