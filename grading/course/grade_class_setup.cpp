// grade-class's class (grade_class.h's Class), made from its options before anything is graded:
// the labs, the backend and its GPUs, the grader, the rubric and its deadlines, the class's seed,
// the shared build folder, the lock of the class folder; and the list of its students.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <filesystem>
#include <random>
#include <sstream>

#include "tools/subprocess.h"
#include "grading/course/class/hash.h"
#include "grading/course/grade_class.h"
#include "tools/text.h"
#include "grading/core/atomic_file.h"
#include "grading/core/checks.h"
#include "grading/core/isolation.h"
#include "grading/core/sandbox.h"

namespace class_grading {

namespace fs = std::filesystem;

namespace {

// The class's seed: asked for, else the one OUT was graded with, else a new one (kept in OUT).
uint64_t class_seed(const Options& o) {
  const std::string path = o.out + "/class-seed";
  uint64_t seed = o.seed >= 0 ? uint64_t(o.seed) : 0;
  if (o.seed < 0) {
    std::istringstream kept(tools::read_text(path));
    if (!(kept >> seed)) seed = std::random_device{}() % 1000000000;
  }
  if (!grade::write_atomically(path, std::to_string(seed) + "\n")) cannot_run("cannot write " + path);
  return seed;
}

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

}  // namespace

std::vector<lab::LabEntry> table_labs() {
  std::vector<lab::LabEntry> labs;
  std::string error;
  if (!lab::read_labs("labs.txt", &labs, &error)) cannot_run(error);
  return labs;
}

std::vector<lab::LabEntry> class_labs(const Options& o) {
  const std::vector<lab::LabEntry> labs = table_labs();
  if (o.lab.empty()) return labs;
  std::string unknown;
  std::vector<lab::LabEntry> named;
  for (const lab::LabEntry* l : lab::labs_named(labs, o.lab, &unknown)) named.push_back(*l);
  if (named.empty()) cannot_run("no lab '" + unknown + "' in labs.txt");
  return named;
}

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
  std::string counts_error;
  const std::string counts = grade::resolve_counts(o.counts, c.backend, "model", grades_here, &counts_error, &c.counts_note);
  if (!counts_error.empty()) cannot_run(counts_error);
  if (c.backend == "gpu") c.counts = counts;
  c.grader = fs::path(fs::read_symlink("/proc/self/exe")).parent_path().string() + "/grade";
  if (access(c.grader.c_str(), X_OK) != 0) cannot_run("no grader at " + c.grader + " (make build/host/grade)");
  const std::string rubric = tools::read_text(o.rubric);
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

}  // namespace class_grading
