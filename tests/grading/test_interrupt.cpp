// An interrupted grading (grading/core/interrupt.h) ends by its cleanup alone: a grading thread
// that reaches the end of the run meanwhile waits, rather than reporting over the cleanup and
// exiting first; and a run already reporting finishes its report before an interrupt acts. Then
// the grader itself interrupted, two ways, on the CPU backend.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "grading/core/interrupt.h"
#include "tests/lab_programs.h"
#include "tools/subprocess.h"
#include "tools/text.h"

namespace {

using lab_test::read_file;
using tools::contains;

void append(const std::string& path, const std::string& line) { std::ofstream(path, std::ios::app) << line << "\n"; }

// Forks a child that takes signals as the grader does, its cleanup noting "cleaning" then, after
// a pause, "cleaned" in LOG; then runs BODY in the child, whose exit status is returned.
template <class Body>
int in_child(const std::string& log, Body body) {
  std::remove(log.c_str());
  const pid_t child = fork();
  if (child == 0) {
    grade::end_cleanly_on_signals([log](int) {
      append(log, "cleaning");
      usleep(300000);
      append(log, "cleaned");
    });
    body();
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("a thread that ends the run while an interrupt cleans up waits, and the interrupt's status stands") {
  const std::string log = "build/test/interrupt-cleanup-" + std::to_string(getpid());
  const int status = in_child(log, [&] {
    kill(getpid(), SIGTERM);
    for (int i = 0; i < 3000 && read_file(log).find("cleaning") == std::string::npos; ++i) usleep(1000);
    grade::end_the_run_here();  // as cannot_run and the report do
    append(log, "reported");
    _exit(2);
  });
  CHECK(status == 128 + SIGTERM);
  CHECK(read_file(log) == "cleaning\ncleaned\n");
  std::remove(log.c_str());
}

TEST_CASE("an interrupt during the report waits for it: the run's own status stands") {
  const std::string log = "build/test/interrupt-report-" + std::to_string(getpid());
  const int status = in_child(log, [&] {
    grade::end_the_run_here();
    grade::end_the_run_here();  // again, as a report that cannot be written calls cannot_run
    kill(getpid(), SIGTERM);
    usleep(200000);
    append(log, "reported");
    _exit(1);
  });
  CHECK(status == 1);
  CHECK(read_file(log) == "reported\n");
  std::remove(log.c_str());
}

// The processes whose working folder or command line lies in FOLDER.
std::vector<std::string> processes_in(const std::string& folder) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string pid = e.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string cwd = std::filesystem::read_symlink(e.path() / "cwd", ec).string();
    std::string cmdline = read_file(e.path().string() + "/cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (contains(cwd, folder) || contains(cmdline, folder)) found.push_back(pid + ": " + cmdline);
  }
  return found;
}

// Interrupted two ways: Ctrl-C (SIGINT, sent by timeout here), and make killed, which leaves the
// shell it ran the grader from gone (the grader's parent: SIGTERM then). Either way what it
// started ends, its scratch folder goes, and its report folder says it was interrupted instead of
// holding a result. Lab 02's full rubric: still grading (or building) after 4 s anywhere.
TEST_CASE("an interrupted grading ends what it started, removes its scratch folder and leaves no result" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  for (const std::string how : {"SIGINT", "SIGTERM"}) {
    CAPTURE(how);
    // A TMPDIR of its own, as open as /tmp: the student's builds write their temporary files there.
    const std::string tmp = (std::filesystem::temp_directory_path() / ("interrupted-" + how + "-" + std::to_string(getpid()))).string();
    const std::string out = "build/grade-test-reports/interrupted-" + how;
    std::filesystem::remove_all(tmp);
    std::filesystem::create_directories(tmp);
    std::filesystem::permissions(tmp, std::filesystem::perms::all | std::filesystem::perms::sticky_bit);
    std::filesystem::remove_all(out);
    // A build folder of its own, a copy of the tests' (no other test's grader holds its lock):
    // the interrupt lands while this grader builds or grades, not while it waits for another.
    const std::string build = out + "-build";
    std::filesystem::remove_all(build);
    lab_test::reuse_grader_builds(build);
    const std::string grade = std::string("build/host/grade --backend cpu --src solutions --lab 02 --out ") + out +
                              " --build-dir " + build;
    // setsid: the grader in a process group of its own, which run_command does not kill with the
    // shell's once the shell is gone.
    const std::string script = how == "SIGINT" ? "timeout -s INT 4 " + grade : "setsid " + grade + " & sleep 4; kill -KILL $$";
    tools::RunOptions options;
    options.env = {"TMPDIR=" + tmp};
    options.timeout_s = 300;
    const tools::RunResult r = tools::run_command({"bash", "-c", script}, options);
    CAPTURE(r.output);
    // The SIGTERM case's grader outlives the shell by its cleanup: wait for its report.
    std::string results;
    for (int i = 0; i < 600 && !contains(results = read_file(out + "/results.json"), "interrupted"); ++i) usleep(100000);
    CHECK(contains(results, "interrupted by " + how + ": nothing of this run was kept; run it again"));
    CHECK_FALSE(contains(results, "\"tests\": [\n    {"));
    // Its scratch folder (grade-XXXXXX) is gone. A compiler it killed mid-build may leave its
    // temporary files (cc*.s) in TMPDIR itself, as any killed g++ does.
    std::vector<std::string> scratch;
    for (const auto& e : std::filesystem::directory_iterator(tmp)) {
      if (e.path().filename().string().rfind("grade-", 0) == 0) scratch.push_back(e.path().string());
    }
    CHECK_MESSAGE(scratch.empty(), tools::joined(scratch));
    const std::vector<std::string> left = processes_in(tmp);
    CHECK_MESSAGE(left.empty(), tools::joined(left));
    std::filesystem::remove_all(tmp);
    std::filesystem::remove_all(build);
  }
}
