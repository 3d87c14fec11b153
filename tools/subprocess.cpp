#include "subprocess.h"

#include "tools/descendants.h"

#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace tools {

std::string RunResult::describe() const {
  char text[96];
  if (spawn_failed) return "could not be started";
  if (timed_out) {
    snprintf(text, sizeof text, "timed out after %.1f s", seconds);
  } else if (signal != 0) {
    snprintf(text, sizeof text, "killed by SIG%s", sigabbrev_np(signal) ? sigabbrev_np(signal) : "?");
  } else {
    snprintf(text, sizeof text, "exit %d", exit_code);
  }
  return text;
}

namespace {

// The child's environment: the caller's, with the extra entries replacing same-named ones.
std::vector<std::string> child_environment(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry = *e;
    std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const std::string& x : extra) replaced |= x.compare(0, name.size() + 1, name + "=") == 0;
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Starts argv with stdin from /dev/null and stdout and stderr into `out_fd`; 0 or an errno.
int spawn(const std::vector<std::string>& argv_in, const RunOptions& options, int out_fd, pid_t* pid) {
  std::vector<std::string> argv = argv_in;
  std::vector<std::string> env = child_environment(options.env);
  std::vector<char*> c_argv = c_strings(argv);
  std::vector<char*> c_env = c_strings(env);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out_fd, STDERR_FILENO);
  if (!options.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, options.cwd.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // A process group of its own, so that a timeout kills whatever the command started too; and
  // no signal blocked, whatever this thread blocks (the grader takes its interrupts in a thread
  // of their own: grading/core/interrupt.cpp).
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);

  const int err = posix_spawnp(pid, c_argv[0], &actions, &attr, c_argv.data(), c_env.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  return err;
}

// Appends what `fd` has within `wait_ms` to `output`, keeping at most `max_output` bytes in
// all; false when it had nothing.
bool take_output(int fd, int wait_ms, size_t max_output, std::string& output) {
  char buffer[65536];
  pollfd pfd{fd, POLLIN, 0};
  if (poll(&pfd, 1, wait_ms) <= 0) return false;
  ssize_t n = read(fd, buffer, sizeof buffer);
  if (n <= 0) return false;
  size_t room = max_output - std::min(max_output, output.size());
  output.append(buffer, std::min<size_t>(room, size_t(n)));
  return true;
}

// Collects output from `fd` until the child exits (true, its status in `status`) or time runs
// out. The pipe may close before the child exits, or stay open after it (a grandchild holds
// it): neither ends the wait.
bool wait_collecting(pid_t pid, int fd, Clock::time_point start, const RunOptions& options, RunResult& result,
                     int& status) {
  bool pipe_open = true;
  int idle_ms = 1;  // once the pipe closed, the child is most often exiting: look again soon, then less often
  for (;;) {
    double elapsed = seconds_since(start);
    const bool past_limit = options.timeout_s > 0 && elapsed >= options.timeout_s;
    if (past_limit || (options.stop_early && options.stop_early())) {
      result.timed_out = true;
      // Stopped at its limit: its time is the limit, however late a loaded machine let us look.
      result.seconds = past_limit ? options.timeout_s : elapsed;
      return false;
    }
    int wait_ms = 50;
    if (options.timeout_s > 0) wait_ms = std::min(wait_ms, int((options.timeout_s - elapsed) * 1000) + 1);
    if (pipe_open) {
      pollfd pfd{fd, POLLIN, 0};
      if (poll(&pfd, 1, wait_ms) > 0) {
        if (pfd.revents & POLLIN) take_output(fd, 0, options.max_output, result.output);
        else pipe_open = false;  // every writer closed it
      }
    } else {
      usleep(std::min(wait_ms, idle_ms) * 1000);
      idle_ms = std::min(2 * idle_ms, 50);
    }
    if (wait_for_child(pid, &status, WNOHANG) == pid) return true;
  }
}

// Kills the child's process group, drains the pipe of a child that exited, and reaps one that
// had not.
void reap(pid_t pid, int fd, bool reaped, size_t max_output, std::string& output, int& status) {
  // The whole group first (leftovers of a finished command, or a hung one): a leftover that kept
  // writing would keep the drain below going forever. What is already in the pipe stays there.
  kill(-pid, SIGKILL);
  while (reaped && take_output(fd, 0, max_output, output)) {}  // what was written just before the exit
  if (!reaped) wait_for_child(pid, &status, 0);
  close(fd);
}

}  // namespace

RunResult run_command(const std::vector<std::string>& argv, const RunOptions& options) {
  RunResult result;
  int pipe_fds[2];
  if (argv.empty() || pipe2(pipe_fds, O_CLOEXEC) != 0) {
    result.spawn_failed = true;
    result.output = "run_command: no command, or no pipe";
    return result;
  }

  const auto start = Clock::now();
  pid_t pid = -1;
  const int err = spawn_waited_for([&](pid_t* p) { return spawn(argv, options, pipe_fds[1], p); }, &pid);
  close(pipe_fds[1]);
  if (err != 0) {
    close(pipe_fds[0]);
    result.spawn_failed = true;
    result.output = "cannot run " + argv[0] + ": " + strerror(err) + "\n";
    return result;
  }

  if (options.started) options.started(pid);
  int status = 0;
  const bool reaped = wait_collecting(pid, pipe_fds[0], start, options, result, status);
  reap(pid, pipe_fds[0], reaped, options.max_output, result.output, status);
  if (!result.timed_out) {
    result.seconds = seconds_since(start);
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  }
  return result;
}

}  // namespace tools
