// make grade-class SCHEDULER=slurm (grading/course/grade_class_slurm.cpp, grading/course/class/slurm.h), for real: a
// one-node Slurm cluster of Debian's packages (tests/grading/single-node-slurm: munged, slurmctld
// and slurmd in a scratch folder, with ports of their own) grades a class of 22 on the CPU backend
// as a job array of 4 students a task. One task is cancelled while it grades; the merge job still
// gives every student a row, the cancelled task's ungraded students marked; the same command again
// grades only those. The gradebook then holds, byte for byte, the rows a local run gives the same
// submissions (graded locally: one of each kind, a sixth of the class, for time), and a local
// rerun on the Slurm run's folder keeps every student and writes the same gradebook. Lab 01 on a
// small rubric (tests/fixtures/rubric-class.txt); the class is mostly copies (of the solution,
// the skeleton and a corpus entry), which a build folder that compiles a file once per content
// makes cheap.
//
// The cluster starts when the test binary starts (doctest decides then whether a test is skipped):
// where it cannot (no Slurm or munge, not root, a daemon that does not come up), the reason is
// printed and the test is reported skipped, never passed. It is stopped when the binary ends,
// and by its watchdog when the binary is killed.
#include <doctest/doctest.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "grading/course/class/csv.h"
#include "tests/lab_programs.h"
#include "tools/subprocess.h"

namespace {

namespace fs = std::filesystem;
using lab_test::contains;
using lab_test::read_file;

#ifdef GRADE_CLASS_MISSING
constexpr bool kNoGradeClass = true;
#else
constexpr bool kNoGradeClass = false;
#endif

// The one-node cluster, up for the binary's life; WHY_NOT says why it could not start.
class Cluster {
 public:
  Cluster() {
    char dir[] = "/tmp/grade-class-slurm.XXXXXX";  // short: munge's socket path must fit 108 bytes
    if (mkdtemp(dir) == nullptr) {
      why_not_ = "cannot make a folder in /tmp";
      return;
    }
    dir_ = dir;
    const tools::RunResult r = tools::run_command({"tests/grading/single-node-slurm", "start", dir_, std::to_string(getpid())});
    if (r.exited(0)) {
      conf_ = r.output.substr(0, r.output.find('\n'));
    } else {
      why_not_ = r.output.substr(0, r.output.find_last_not_of('\n') + 1);
      std::fprintf(stderr, "%s\n(the Slurm test is skipped)\n", why_not_.c_str());
    }
  }
  ~Cluster() {
    if (!dir_.empty()) tools::run_command({"tests/grading/single-node-slurm", "stop", dir_});
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }
  bool up() const { return !conf_.empty(); }
  const std::string& conf() const { return conf_; }  // "SLURM_CONF=..."

 private:
  std::string dir_, conf_, why_not_;
};

Cluster& cluster() {
  static Cluster c;
  return c;
}

bool cannot_run() { return kNoGradeClass || lab_test::kNoCpuSolutions || !cluster().up(); }

const std::string kLabFile = "01_matmul_naive/matmul_naive.cu";

void put(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// 22 entries: 10 solutions (one in a .tar.gz), 6 skeletons, 4 no_guard_01 (correctness fails on the
// edge shape), an empty folder and one without the labs' layout.
void make_class(const fs::path& subs) {
  const std::string solution = read_file("solutions/" + kLabFile), skeleton = read_file("build/skeletons/" + kLabFile),
                    no_guard = read_file("build/corpus/no_guard_01/" + kLabFile);
  for (int i = 1; i <= 9; ++i) put(subs / ("sol" + std::to_string(i)) / kLabFile, solution);
  for (int i = 1; i <= 6; ++i) put(subs / ("skel" + std::to_string(i)) / "labs" / kLabFile, skeleton);
  for (int i = 1; i <= 4; ++i) put(subs / ("guard" + std::to_string(i)) / kLabFile, no_guard);
  const fs::path packed = subs.parent_path() / "packed";
  put(packed / "labs" / kLabFile, solution);
  REQUIRE(tools::run_command({"tar", "-czf", (subs / "zed.tar.gz").string(), "-C", packed.string(), "labs"}).exited(0));
  fs::create_directories(subs / "empty_eve");
  put(subs / "wrong_wes" / "notes.txt", "my lab is elsewhere");
}

// grade-class on the class in DIR/SUBS into DIR/OUT; EXTRA its Slurm options, ENV its environment.
tools::RunResult grade_class(const fs::path& dir, const std::string& subs, const std::string& out, const std::vector<std::string>& extra = {},
                             const std::vector<std::string>& env = {}) {
  std::vector<std::string> argv = {"build/host/grade-class", "--submissions", (dir / subs).string(), "--out", (dir / out).string(),
                                   "--lab", "01", "--rubric", "tests/fixtures/rubric-class.txt", "--backend", "cpu", "--seed", "77",
                                   "--build-dir", "build/grade-tests"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  tools::RunOptions options;
  options.timeout_s = 600;
  options.env = env;
  return tools::run_command(argv, options);
}

// A Slurm command on the test's cluster.
tools::RunResult slurm(const std::vector<std::string>& argv) {
  tools::RunOptions options;
  options.env = {cluster().conf()};
  return tools::run_command(argv, options);
}

// The name of the class's jobs, as grade-class prints it: "squeue --name=NAME shows the jobs".
std::string job_name_in(const std::string& output) {
  const size_t at = output.find("squeue --name=");
  REQUIRE(at != std::string::npos);
  const size_t start = at + 14;
  return output.substr(start, output.find(' ', start) - start);
}

// Waits until none of the class's jobs (named NAME) is queued or running.
void wait_for_jobs(const std::string& name) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    const tools::RunResult r = slurm({"squeue", "--noheader", "--name=" + name});
    if (!r.exited(0)) FAIL("squeue: " << r.output);
    if (tools::trim(r.output).empty()) return;
    if (std::chrono::steady_clock::now() - start > std::chrono::minutes(10)) FAIL("the class's jobs are still queued: " << r.output);
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

// The gradebook's records (its header first) by id.
std::map<std::string, std::vector<std::string>> records(const fs::path& out) {
  std::vector<std::vector<std::string>> all;
  std::string error;
  REQUIRE_MESSAGE(grade::parse_csv(read_file((out / "gradebook.csv").string()), &all, &error), error);
  std::map<std::string, std::vector<std::string>> by_id;
  for (const std::vector<std::string>& r : all) by_id[r[0]] = r;
  return by_id;
}

// The gradebook's rows by id, each a map from column to value.
std::map<std::string, std::map<std::string, std::string>> gradebook(const fs::path& out) {
  const auto by_id = records(out);
  const std::vector<std::string>& header = by_id.at("id");
  std::map<std::string, std::map<std::string, std::string>> rows;
  for (const auto& [id, record] : by_id) {
    REQUIRE(record.size() == header.size());
    if (id != "id") for (size_t c = 0; c < header.size(); ++c) rows[id][header[c]] = record[c];
  }
  return rows;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Cancels a task of ARRAY while it grades: one with a student graded and one not yet. Returns its
// number. Each task grades its 4 students one after another, a few seconds each.
int cancel_a_task_midway(const fs::path& out, const std::string& array, size_t tasks) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    for (size_t t = 0; t < tasks; ++t) {
      size_t done = 0;
      const std::vector<std::string> slugs = lines_of(read_file((out / "slurm" / "tasks" / std::to_string(t)).string()));
      for (const std::string& slug : slugs) done += fs::exists(out / "students" / slug / "done");
      if (done == 0 || done == slugs.size()) continue;
      const tools::RunResult r = slurm({"scancel", array + "_" + std::to_string(t)});
      REQUIRE_MESSAGE(r.exited(0), r.output);
      return int(t);
    }
    if (std::chrono::steady_clock::now() - start > std::chrono::minutes(10)) FAIL("no task was seen between two students");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

// A PATH of /usr/bin's commands without Slurm's (a folder of links under DIR).
std::string path_without_slurm(const fs::path& dir) {
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const fs::directory_entry& e : fs::directory_iterator("/usr/bin")) {
    const std::string name = e.path().filename().string();
    if (name != "sbatch" && name != "squeue" && name != "scancel") fs::create_symlink(e.path(), dir / name);
  }
  return "PATH=" + dir.string();
}

}  // namespace

TEST_SUITE("grade-class on Slurm") {

TEST_CASE("a class graded on a one-node Slurm, one task cancelled midway and the command rerun, gives the local run's gradebook "
          "(skipped, with the reason printed first, where Slurm cannot run)" * doctest::skip(cannot_run())) {
  const fs::path dir = fs::absolute("build/test/grade-class-slurm");
  fs::remove_all(dir);
  make_class(dir / "submissions");
  // One of each kind, graded locally.
  const std::vector<std::string> kinds = {"sol1", "skel1", "guard1", "zed.tar.gz", "empty_eve", "wrong_wes"};
  fs::create_directories(dir / "some");
  for (const std::string& entry : kinds) fs::copy(dir / "submissions" / entry, dir / "some" / entry, fs::copy_options::recursive);
  const tools::RunResult local = grade_class(dir, "some", "local", {"--jobs", "2"});
  INFO(local.output);
  REQUIRE(local.exited(0));

  const std::vector<std::string> on_slurm = {"--scheduler", "slurm", "--batch", "4", "--jobs", "1"};
  const tools::RunResult submitted = grade_class(dir, "submissions", "slurm", on_slurm, {cluster().conf()});
  INFO(submitted.output);
  REQUIRE(submitted.exited(0));
  CHECK(contains(submitted.output, "to Slurm: 20 to grade, 0 graded already with what they hand in now, 2 with nothing to grade"));
  const fs::path out = dir / "slurm";
  std::string array;
  std::istringstream(read_file((out / "slurm" / "job").string())) >> array;
  REQUIRE(contains(submitted.output, "submitted job array " + array + " (5 tasks of at most 4 students)"));
  // Every student has a row from the start, the queued ones marked.
  auto rows = gradebook(out);
  CHECK(rows.size() == 22);
  CHECK(rows["sol1"]["status"].rfind("not graded yet: queued in Slurm task " + array + "_", 0) == 0);
  CHECK(rows["empty_eve"]["status"] == "empty: nothing handed in");

  // Each task's time limit: the rubric's timeout.student (600 s) for each of its 4 students, plus
  // 10 minutes.
  const tools::RunResult limits = slurm({"squeue", "--noheader", "--array", "--name=" + job_name_in(submitted.output), "--format=%i %l"});
  CHECK(contains(limits.output, array + "_0 50:00"));
  // While its jobs are queued, the class is not submitted twice.
  const tools::RunResult twice = grade_class(dir, "submissions", "slurm", on_slurm, {cluster().conf()});
  CHECK(twice.exited(2));
  CHECK(contains(twice.output, "are still queued or running"));

  const int cancelled = cancel_a_task_midway(out, array, 5);
  const std::string job_name = job_name_in(submitted.output);
  wait_for_jobs(job_name);
  rows = gradebook(out);
  CHECK(rows.size() == 22);
  size_t left = 0;
  const std::string task = array + "_" + std::to_string(cancelled);
  for (const std::string& slug : lines_of(read_file((out / "slurm" / "tasks" / std::to_string(cancelled)).string()))) {
    const std::string id = slug.substr(0, slug.rfind('-'));
    CAPTURE(id);
    if (rows[id]["status"] == "graded") continue;
    ++left;
    CHECK(rows[id]["status"] == "not graded: Slurm task " + task + " ended before grading it (its log: slurm/logs/" + task +
                                    ".out); run the same command again");
  }
  CHECK(left >= 1);
  CHECK(left <= 3);

  const tools::RunResult rerun = grade_class(dir, "submissions", "slurm", on_slurm, {cluster().conf()});
  INFO(rerun.output);
  REQUIRE(rerun.exited(0));
  CHECK(contains(rerun.output, "to Slurm: " + std::to_string(left) + " to grade, " + std::to_string(20 - left) + " graded already"));
  wait_for_jobs(job_name);
  const auto on_cluster = records(out), here = records(dir / "local");
  CHECK(on_cluster.size() == 23);
  for (const auto& [id, record] : here) {
    CAPTURE(id);
    CHECK(on_cluster.at(id) == record);
  }
  for (const auto& [id, row] : gradebook(out)) {
    CAPTURE(id);
    CHECK((row.at("status") == "graded" || id == "empty_eve" || id == "wrong_wes"));
  }
  CHECK(contains(read_file((out / "class.html").string()), "22 students, graded on the CPU backend"));

  // Once more: nothing is left to grade, and nothing is submitted; a local run on the same folder
  // keeps every student the cluster graded, and writes the same gradebook.
  const tools::RunResult nothing = grade_class(dir, "submissions", "slurm", on_slurm, {cluster().conf()});
  CHECK(nothing.exited(0));
  CHECK(contains(nothing.output, "nothing to grade: the gradebook is complete"));
  const std::string merged = read_file((out / "gradebook.csv").string());
  const tools::RunResult kept = grade_class(dir, "submissions", "slurm", {"--jobs", "2"});
  CHECK(kept.exited(0));
  CHECK(tools::count_of(kept.output, "(unchanged since the last run: kept)") == 20);
  CHECK(read_file((out / "gradebook.csv").string()) == merged);
}

TEST_CASE("without Slurm's commands, or when sbatch refuses, grade-class says so and exits 2 (skipped where Slurm cannot run)" *
          doctest::skip(cannot_run())) {
  const fs::path dir = fs::absolute("build/test/grade-class-slurm-refused");
  fs::remove_all(dir);
  put(dir / "submissions" / "sol1" / kLabFile, read_file("solutions/" + kLabFile));

  const tools::RunResult missing = grade_class(dir, "submissions", "out", {"--scheduler", "slurm"}, {cluster().conf(), path_without_slurm(dir / "bin")});
  CAPTURE(missing.output);
  CHECK(missing.exited(2));
  CHECK(contains(missing.output, "no squeue here: SCHEDULER=slurm needs Slurm's commands"));

  // The jobs' scripts are written before sbatch is asked: the merge job, which writes the
  // gradebook, is given the instructor's overrides too.
  put(dir / "overrides.csv", "id,lab,comment\nsol1,01,well done\n");
  const tools::RunResult refused = grade_class(dir, "submissions", "out",
                                               {"--scheduler", "slurm", "--partition", "nosuch", "--overrides", (dir / "overrides.csv").string()},
                                               {cluster().conf()});
  CAPTURE(refused.output);
  CHECK(refused.exited(2));
  CHECK(contains(refused.output, "sbatch refused"));
  CHECK(contains(refused.output, "nosuch"));
  CHECK(contains(read_file((dir / "out" / "slurm" / "merge.sh").string()), "--overrides"));

  // On the GPU backend each task asks for a GPU, which this cluster has none of; COUNTS reaches
  // the tasks.
  const tools::RunResult gpu =
      grade_class(dir, "submissions", "out", {"--scheduler", "slurm", "--backend", "gpu", "--counts", "ncu"}, {cluster().conf()});
  CAPTURE(gpu.output);
  CHECK(gpu.exited(2));
  CHECK(contains(gpu.output, "sbatch refused (exit 1): sbatch: error: Invalid generic resource (gres) specification"));
  CHECK(contains(read_file((dir / "out" / "slurm" / "grade.sh").string()), "'--counts' 'ncu'"));
}

}  // TEST_SUITE
