// Runs a command in its own process group with a time limit and captures what it prints.
// The tests and the grader use it to run lab programs, which may hang or crash: a command
// that outlives its limit is killed with everything it started, and the caller goes on.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace tools {

struct RunOptions {
  double timeout_s = 60.0;            // wall-clock limit; <= 0 means none
  std::vector<std::string> env;       // extra "NAME=value" entries, on top of the caller's
  std::string cwd;                    // working directory; empty: the caller's
  size_t max_output = 1 << 20;        // bytes of stdout+stderr kept; the rest is dropped
  // Asked about every 50 ms while the command runs: true stops it as a timeout would (for
  // limits that depend on its progress, not only on the clock).
  std::function<bool()> stop_early;
  // Called once the command runs, with its process id (the leader of its process group).
  std::function<void(int pid)> started;
};

struct RunResult {
  int exit_code = -1;                 // the exit status when the command exited normally
  int signal = 0;                     // the signal that ended it, 0 if none
  bool timed_out = false;             // killed because it outlived timeout_s
  bool spawn_failed = false;          // the command could not be started (see output)
  double seconds = 0.0;               // wall-clock time it ran
  std::string output;                 // stdout and stderr, interleaved as written

  bool exited(int code) const { return !timed_out && signal == 0 && exit_code == code; }
  std::string describe() const;       // "exit 1", "killed by SIGSEGV", "timed out after 5.0 s"
};

// Runs argv[0] (looked up in PATH) with the given arguments; stdin is /dev/null.
RunResult run_command(const std::vector<std::string>& argv, const RunOptions& options = {});

}  // namespace tools
