// A hostile part for the grader's tests: tests/corpus/corpus.txt adds it to the lab 01
// solution, which computes the right result, and calls first_call() once in each process. It
// pushes at the fences around it (grading/core/sandbox.h). Each fence that gives way spoils the
// result with a value of its own, so that full marks mean every fence held, and a failing test
// says which did not:
//   1001  malloc of 20 GiB succeeded (the memory limit; the sanitizers' builds are held by their
//         RSS limit instead, so they skip this one)
//   1002  a file grew past 2 GiB (the file-size limit)
//   1003  a UDP socket found a route out (the network)
//   1004  it runs as root, outside any user namespace (a root grader hands student code to a
//         user of its own; checked first, so that 1001-1003 show over it)
// It also writes 100 MB to stdout and starts 300 processes that sleep for minutes, named
// fence_child: the grader keeps what it needs of the output and kills every one of them.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace {

// Whether this process is root outside any user namespace: its uid through /proc/self/uid_map.
bool real_root() {
  const unsigned uid = getuid();
  std::ifstream map("/proc/self/uid_map");
  for (unsigned inside, outside, count; map >> inside >> outside >> count;) {
    if (uid >= inside && uid - inside < count) return outside + (uid - inside) == 0;
  }
  return uid == 0;
}

float first_call() {
  float spoiled = real_root() ? 1004.0f : 0.0f;
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  if (void* p = std::malloc(size_t(20) << 30)) {
    std::free(p);
    spoiled = 1001.0f;
  }
#endif
  signal(SIGXFSZ, SIG_IGN);
  const int fd = open("big", O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd >= 0 && pwrite(fd, "x", 1, off_t(2) << 30) == 1) spoiled = 1002.0f;
  if (fd >= 0) close(fd);
  unlink("big");
  const int s = socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(9);
  inet_pton(AF_INET, "192.0.2.1", &to.sin_addr);  // TEST-NET-1: connect() only asks for a route
  if (s >= 0 && connect(s, reinterpret_cast<sockaddr*>(&to), sizeof to) == 0) spoiled = 1003.0f;
  if (s >= 0) close(s);
  static char flood[1 << 20];
  std::memset(flood, 'y', sizeof flood);
  for (int i = 0; i < 100; ++i) fwrite(flood, 1, sizeof flood, stdout);
  fflush(stdout);
  for (int i = 0; i < 300; ++i) {
    if (fork() == 0) {
      prctl(PR_SET_NAME, "fence_child");
      sleep(600);
      _exit(0);
    }
  }
  return spoiled;
}

}  // namespace
