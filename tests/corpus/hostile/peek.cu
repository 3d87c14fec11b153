// A hostile part for the grader's tests: tests/corpus/corpus.txt adds it to the lab 01
// solution, which computes the right result, and calls first_call() once in each process. It
// looks for what would give it the answer without computing it. Each thing it can read spoils
// the result with a value of its own, so that full marks mean it found none, and a failing test
// says which it found:
//   1005  the solution's source, in the checkout (named by PEEK_CHECKOUT, which the test sets)
//   1006  the checkout's history, which holds the solution (.git)
//   1007  the solution's lab program, next to its own in the build folder (found from
//         /proc/self/exe): run on the same inputs, it would compute the answer
//   1008  what another run's folder in the grader's scratch folder holds (the solution's
//         outputs for the same inputs are in one); its name alone, which a grader that is not
//         root lets its own user list, gives nothing away
//   1009  another grading's report in the checkout's build/grade (PEEK_REPORT, which the test plants)
//   1010  another grading's report in a folder the grader was told to hide (PEEK_HIDDEN: a class's)
//   1011  another grading's scratch folder in /tmp (/tmp/grade-peek-planted/secret, planted)
// It also leaves a file in each folder every process shares (/tmp, /var/tmp, /dev/shm), which
// the next student's code could read: the test checks that none is left.
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace {

bool readable(const std::string& path) { return std::ifstream(path).good(); }

float first_call() {
  float found = 0.0f;
  const char* checkout = std::getenv("PEEK_CHECKOUT");
  const std::string root = checkout != nullptr ? checkout : ".";
  if (readable(root + "/solutions/01_matmul_naive/matmul_naive.cu")) found = 1005.0f;
  if (readable(root + "/.git/HEAD")) found = 1006.0f;
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    std::string path(exe, size_t(n));                   // <build>/<flavor>/bin/<its tag>/01_matmul_naive
    path = path.substr(0, path.rfind('/'));             // <build>/<flavor>/bin/<its tag>
    path = path.substr(0, path.rfind('/'));             // <build>/<flavor>/bin
    if (readable(path + "/solutions/01_matmul_naive")) found = 1007.0f;
  }
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd) != nullptr) {
    const std::string scratch = std::string(cwd).substr(0, std::string(cwd).rfind('/'));
    if (DIR* dir = opendir(scratch.c_str())) {
      for (dirent* e; (e = readdir(dir)) != nullptr;) {
        if (std::string(e->d_name).rfind("correctness-solution-", 0) != 0) continue;
        if (DIR* run = opendir((scratch + "/" + e->d_name).c_str())) {
          for (dirent* f; (f = readdir(run)) != nullptr;) {
            if (f->d_name[0] != '.') found = 1008.0f;
          }
          closedir(run);
        }
      }
      closedir(dir);
    }
  }
  for (const char* name : {"PEEK_REPORT", "PEEK_HIDDEN"}) {
    const char* path = std::getenv(name);
    if (path != nullptr && readable(path)) found = name[5] == 'R' ? 1009.0f : 1010.0f;
  }
  if (readable("/tmp/grade-peek-planted/secret")) found = 1011.0f;
  for (const char* left : {"/tmp/peek-left", "/var/tmp/peek-left", "/dev/shm/peek-left"}) {
    const int fd = open(left, O_WRONLY | O_CREAT, 0644);
    if (fd >= 0) close(fd);
  }
  return found;
}

}  // namespace
