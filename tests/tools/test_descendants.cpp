// The processes a program leaves behind (tools/descendants.h): the grader, and the lab program
// under a tool, end every one of them, even one that left its session by a double fork.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <thread>

#include "tools/descendants.h"
#include "tools/subprocess.h"

namespace {

// The sleeper's name, this test process's own: a sleeper of another run of the test (one just
// killed, or a run beside this one) must not be counted.
const std::string& sleeper_name() {
  static const std::string name = "sleeper" + std::to_string(getpid());
  return name;
}

// In a child of the test process: maybe adopt orphans, leave a sleeper behind as a daemon does
// (fork, setsid, fork, exit), then kill the descendants. The child's exit status is how many
// it killed. The middle process exits once the sleeper has its name (a pipe says so): on a
// loaded machine the sleeper might not have run yet when the test looks for it.
int leave_a_sleeper_then_kill(bool adopt) {
  const pid_t child = fork();
  if (child == 0) {
    if (adopt) tools::adopt_orphans();
    int named[2];
    if (pipe(named) != 0) _exit(100);
    const pid_t middle = fork();
    if (middle == 0) {
      setsid();
      if (fork() == 0) {
        prctl(PR_SET_NAME, sleeper_name().c_str());
        if (write(named[1], "n", 1) != 1) _exit(1);
        sleep(60);
        _exit(0);
      }
      char byte;
      _exit(read(named[0], &byte, 1) == 1 ? 0 : 1);
    }
    waitpid(middle, nullptr, 0);
    _exit(tools::kill_descendants());
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool sleeper_alive() { return tools::run_command({"pgrep", "-x", sleeper_name()}).exited(0); }

}  // namespace

TEST_CASE("a process that adopts its orphans ends a daemon its child left behind") {
  CHECK(leave_a_sleeper_then_kill(true) == 1);
  CHECK_FALSE(sleeper_alive());
}

TEST_CASE("without adopting, the daemon is out of reach (the test above can fail)") {
  CHECK(leave_a_sleeper_then_kill(false) == 0);
  CHECK(sleeper_alive());
  tools::run_command({"pkill", "-KILL", "-x", sleeper_name()});  // SIGKILL: a fork of this test catches the others
}

TEST_CASE("one thread's cleanup leaves another thread's running command alone") {
  // As when the grader grades labs at once: lab A's run ends and the grader kills what it left
  // behind, while lab B's program is still running.
  const std::string started = "build/test/descendants-started-" + std::to_string(getpid());
  std::remove(started.c_str());
  tools::RunResult running;
  std::thread waiter([&] { running = tools::run_command({"sh", "-c", "touch \"$0\"; sleep 1; exit 3", started}); });
  // Until the command has surely started (a loaded machine may take a while).
  for (int i = 0; i < 500 && access(started.c_str(), F_OK) != 0; ++i) usleep(10000);
  REQUIRE(access(started.c_str(), F_OK) == 0);
  const int killed = tools::kill_descendants();
  waiter.join();
  std::remove(started.c_str());
  CHECK(killed == 0);
  CHECK(running.exited(3));
}

TEST_CASE("the same cleanup still ends a command's leftovers once it returned") {
  tools::adopt_orphans();
  const tools::RunResult r = tools::run_command({"sh", "-c", "setsid sleep 60 </dev/null >/dev/null 2>&1 & echo $!"});
  REQUIRE(r.exited(0));
  const pid_t leftover = std::stoi(r.output);
  usleep(300000);  // its parent has exited, so it has been handed to this process
  CHECK(tools::kill_descendants() >= 1);
  CHECK(kill(leftover, 0) != 0);  // killed and reaped: no such process
}

// An interrupted grader kills what it started, while another of its threads may still be at work
// and about to start the next run: once the cleanup began, nothing starts (it would outlive the
// grader). In a child process, whose ability to start anything this ends.
TEST_CASE("after kill_all_descendants, no command starts") {
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const bool before = tools::run_command({"true"}).exited(0);
    tools::kill_all_descendants();
    const tools::RunResult after = tools::run_command({"true"});
    _exit(before && after.spawn_failed && !after.exited(0) ? 0 : 1);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}
