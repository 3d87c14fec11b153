// A hostile part for the grader's tests: tests/corpus/corpus.txt adds it to the lab 01
// solution, which computes the right result, and calls first_call() once in each process. In
// ThreadSanitizer's build only, it takes 3 GiB and touches it, 64 MiB at a time, in a process
// that has left the run's process tree (the lab program adopts its orphans: it stops doing so,
// then forks twice, and the grandchild's parent exits), while the run waits for it: a sanitizer's build has no data limit (its shadow memory would
// break it), ThreadSanitizer does not hold its own RSS limit, and an orphan is no descendant of
// the run. Only the grader's watch of the memory of the run and of its orphans stops it. It
// spoils nothing: left to run, it passes.
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace {

float first_call() {
#if defined(__SANITIZE_THREAD__)
  int done[2];
  if (pipe(done) != 0) return 0.0f;
  prctl(PR_SET_CHILD_SUBREAPER, 0);  // the orphan goes up to the grader, out of the run's tree
  const pid_t child = fork();
  if (child == 0) {
    setsid();
    if (fork() != 0) _exit(0);  // the orphan goes on
    close(done[0]);
    static char* kept[48];
    for (char*& chunk : kept) {
      chunk = static_cast<char*>(std::malloc(size_t(64) << 20));
      if (chunk != nullptr) std::memset(chunk, 1, size_t(64) << 20);
    }
    (void)write(done[1], "x", 1);
    pause();
  }
  close(done[1]);
  if (child > 0) waitpid(child, nullptr, 0);
  char byte;
  (void)read(done[0], &byte, 1);  // until the orphan holds its 3 GiB (or is stopped)
  close(done[0]);
#endif
  return 0.0f;
}

}  // namespace
