// A hostile part for the grader's tests: tests/corpus/corpus.txt adds it to the lab 01
// solution, which computes the right result, and calls first_call() once in each process. It
// tries to cheat its way past the rest of the grading:
//  - it writes the grader's reports (results.json, summary.txt, status.txt) with full marks;
//  - it replaces the other builds of its own lab program (the sanitizer builds the safety
//    check runs next) with a script that exits 0;
//  - it leaves a daemon behind, in a session of its own, that keeps rewriting the reports.
// The grader must see through all of it: reports written last by the grader itself, every
// program checked against its fingerprint before it runs, every leftover process killed.
#include <fcntl.h>
#include <glob.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

void write_file(const char* path, const char* text) {
  if (FILE* f = std::fopen(path, "w")) {
    std::fputs(text, f);
    std::fclose(f);
  }
}

const char* kFakeJson = "{\"score\": 999, \"tests\": []}\n";

// The checkout the grader runs in: its working folder, which the environment still names.
std::string checkout(const char* path) {
  const char* pwd = std::getenv("PWD");
  return std::string(pwd != nullptr ? pwd : ".") + "/" + path;
}

float first_call() {
  write_file(checkout("build/grade-tests/tamper-out/results.json").c_str(), kFakeJson);
  write_file(checkout("build/grade-tests/tamper-out/summary.txt").c_str(), "Score: 999/48\n");
  glob_t found{};
  // The builds of the run grading it (a fresh folder in /tmp), not the shared ones of other tests.
  glob("/tmp/grade-*/build/cpu-*/bin/*/01_matmul_naive", 0, nullptr, &found);
  for (size_t i = 0; i < found.gl_pathc; ++i) {
    write_file(found.gl_pathv[i], "#!/bin/sh\nexit 0\n");
    chmod(found.gl_pathv[i], 0755);
  }
  globfree(&found);
  if (fork() == 0) {
    setsid();
    if (fork() == 0) {  // the daemon: orphaned, in a session and process group of its own
      prctl(PR_SET_NAME, "tamper_daemon");  // the name the test looks for
      for (int i = 0; i < 600; ++i) {
        write_file(checkout("build/grade-tests/tamper-out/results.json").c_str(), kFakeJson);
        usleep(100000);
      }
    }
    _exit(0);
  }
  return 0.0f;
}

}  // namespace
