// An interrupted grading (grading/core/interrupt.h) ends by its cleanup alone: a grading thread
// that reaches the end of the run meanwhile waits, rather than reporting over the cleanup and
// exiting first; and a run already reporting finishes its report before an interrupt acts.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "grading/core/interrupt.h"

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

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
