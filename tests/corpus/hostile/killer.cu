// A hostile part for the grader's tests: tests/corpus/corpus.txt adds it to the lab 01
// solution, which computes the right result, and calls first_call() once in each process. For
// 6 seconds (its own runs' limits stop it sooner) it looks through /proc for the solution's
// programs of its grading and kills every one it may: with labs graded at once, another lab's
// solution could be running beside it, as the same user, and a shape whose solution run died
// would be left out of that lab's score. The grader must never run a solution beside a
// student's program (grading/core/case_runs.h, run_program).
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>

namespace {

// A solution's program of this grading: a lab program serving cases in the same scratch folder
// as this process's working folder (and no other grading's, or test's, process is touched).
bool is_a_solution(const std::string& pid, const std::string& scratch) {
  // read(2), not a stream: the process may exit while we read, and libstdc++'s filebuf throws
  // at that error (the killer then died of it, its own shapes failed, under CI's load).
  const int fd = open(("/proc/" + pid + "/cmdline").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buffer[4096];
  const ssize_t n = read(fd, buffer, sizeof buffer);
  close(fd);
  if (n <= 0) return false;
  const std::string cmdline(buffer, size_t(n));
  return cmdline.find(scratch) != std::string::npos && cmdline.find("-solution-") != std::string::npos &&
         cmdline.find(std::string("--serve") + '\0') != std::string::npos;
}

float first_call() {
  char cwd[4096] = "";
  if (getcwd(cwd, sizeof cwd) == nullptr) return 0.0f;
  const std::string here = cwd;
  const std::string scratch = here.substr(0, here.rfind('/') + 1);  // the grader's scratch folder
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(6);
  while (std::chrono::steady_clock::now() < until) {
    if (DIR* proc = opendir("/proc")) {
      for (dirent* entry; (entry = readdir(proc)) != nullptr;) {
        if (std::atoi(entry->d_name) > 0 && is_a_solution(entry->d_name, scratch)) kill(std::atoi(entry->d_name), SIGKILL);
      }
      closedir(proc);
    }
    usleep(10000);
  }
  return 0.0f;
}

}  // namespace
