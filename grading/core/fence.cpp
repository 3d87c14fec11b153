// build/host/fence: the mounts of a student process's fences, made inside the mount namespace that
// `unshare --mount` gave it (grading/core/sandbox.cpp), then the command:
//
//   fence UP_LINE CHECKOUT BUILD_DIR N WRITABLE... M HIDDEN... -- COMMAND...
//
// CHECKOUT and BUILD_DIR are bound onto themselves read-only; each WRITABLE folder is bound again
// writable; each HIDDEN folder is covered by an empty folder (a tmpfs), and one that is gone by
// then needs no hiding. Then it enters again the folder it was started in (a process in a folder
// stays in the one beneath the mounts), prints UP_LINE and runs COMMAND. Exit status 126 when a
// mount fails, 127 when COMMAND cannot run.
//
// A program rather than a shell script of mount(8) calls, because the fences are made for every
// process the grader starts, and hide a folder per other submission of the build folder: a class's
// build folder has hundreds, and each mount(8) reads every mount there is (a lab 01 grading's
// make check ran mount(8) 6,474 times).
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

[[noreturn]] void fail(const std::string& what, int status = 126) {
  std::fprintf(stderr, "fence: %s: %s\n", what.c_str(), std::strerror(errno));
  std::exit(status);
}

// The flags a remount must keep: in a user namespace those the parent's mount set are locked,
// and a remount that drops one is refused (mount(8) keeps them the same way).
unsigned long locked_flags(const char* path) {
  struct statvfs st;
  if (statvfs(path, &st) != 0) return 0;
  unsigned long flags = 0;
  if (st.f_flag & ST_NOSUID) flags |= MS_NOSUID;
  if (st.f_flag & ST_NODEV) flags |= MS_NODEV;
  if (st.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
  if (st.f_flag & ST_NOATIME) flags |= MS_NOATIME;
  if (st.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
  if (st.f_flag & ST_RELATIME) flags |= MS_RELATIME;
  return flags;
}

void bind(const char* path, bool writable) {
  if (mount(path, path, nullptr, MS_BIND, nullptr) != 0) fail(std::string("cannot bind ") + path);
  const unsigned long flags = MS_REMOUNT | MS_BIND | locked_flags(path) | (writable ? 0 : MS_RDONLY);
  if (mount(nullptr, path, nullptr, flags, nullptr) != 0) fail(std::string("cannot remount ") + path);
}

void hide(const char* path) {
  if (access(path, F_OK) != 0) return;  // gone already: nothing to hide
  if (mount("hidden", path, "tmpfs", 0, "size=4k,mode=0555") != 0 && access(path, F_OK) == 0) {
    fail(std::string("cannot hide ") + path);
  }
}

// The count at ARGV[*i], then that many paths after it.
std::vector<const char*> paths(char** argv, int argc, int* i) {
  if (*i >= argc) {
    errno = EINVAL;
    fail("usage: fence UP_LINE CHECKOUT BUILD_DIR N WRITABLE... M HIDDEN... -- COMMAND...", 2);
  }
  const long n = std::strtol(argv[(*i)++], nullptr, 10);
  std::vector<const char*> list;
  for (long k = 0; k < n && *i < argc; ++k) list.push_back(argv[(*i)++]);
  return list;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 8) {
    errno = EINVAL;
    fail("usage: fence UP_LINE CHECKOUT BUILD_DIR N WRITABLE... M HIDDEN... -- COMMAND...", 2);
  }
  char here[PATH_MAX];
  if (getcwd(here, sizeof here) == nullptr) fail("cannot read the working folder");
  bind(argv[2], false);
  bind(argv[3], false);
  int i = 4;
  for (const char* path : paths(argv, argc, &i)) bind(path, true);
  for (const char* path : paths(argv, argc, &i)) hide(path);
  if (i >= argc || std::strcmp(argv[i], "--") != 0 || i + 1 >= argc) {
    errno = EINVAL;
    fail("usage: fence UP_LINE CHECKOUT BUILD_DIR N WRITABLE... M HIDDEN... -- COMMAND...", 2);
  }
  if (chdir(here) != 0) fail(std::string("cannot enter ") + here);
  std::printf("%s\n", argv[1]);
  std::fflush(stdout);
  execvp(argv[i + 1], argv + i + 1);
  fail(std::string("cannot run ") + argv[i + 1], 127);
}
