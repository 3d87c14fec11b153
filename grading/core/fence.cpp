// build/host/fence: the mounts of a student process's fences, made inside the mount namespace that
// `unshare --mount` gave it (grading/core/sandbox.cpp), then the command:
//
//   fence UP_LINE CHECKOUT BUILD_DIR SCRATCH N WRITABLE... M HIDDEN... -- COMMAND...
//
// First /tmp, /var/tmp and /dev/shm become empty folders of the namespace's own (tmpfs), with
// CHECKOUT, BUILD_DIR, SCRATCH (the grader's scratch folder) and the working folder bound again
// at their paths where they lie in one (the folders on the way made again as they were): what student code writes there goes with the namespace,
// and it finds there nothing of other processes (another grading's scratch folder, what the
// last student left). Then CHECKOUT and BUILD_DIR are bound onto themselves read-only; each
// WRITABLE folder is bound again writable; each HIDDEN folder is covered by an empty folder (a
// tmpfs), each HIDDEN file by /dev/null, and one that is gone by then needs no hiding. Then it
// enters again the folder it was started in (a process in a folder stays in the one beneath the
// mounts), prints UP_LINE and runs COMMAND. Exit status 126 when a mount fails, 127 when COMMAND cannot run.
//
// A program rather than a shell script of mount(8) calls, because the fences are made for every
// process the grader starts, and hide a folder per other submission of the build folder: a class's
// build folder has hundreds, and each mount(8) reads every mount there is (a lab 01 grading's
// make check ran mount(8) 6,474 times).
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
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

// A folder under an empty one; a file (a class's download, a zip of every student's files) under
// /dev/null, which reads as empty.
void hide(const char* path) {
  struct stat st;
  if (stat(path, &st) != 0) return;  // gone already: nothing to hide
  const int hidden = S_ISDIR(st.st_mode) ? mount("hidden", path, "tmpfs", 0, "size=4k,mode=0555")
                                         : mount("/dev/null", path, nullptr, MS_BIND, nullptr);
  if (hidden != 0 && access(path, F_OK) == 0) fail(std::string("cannot hide ") + path);
}

// PATH is DIR or lies in it.
bool within(const std::string& path, const std::string& dir) { return path == dir || path.rfind(dir + "/", 0) == 0; }

// A folder on the way to a folder bound again, as it was: made again in the new folder with its
// mode and owner, so that who may pass through it stays the same (a checkout in a folder only
// its owner may enter stays closed to the student user).
struct Folder {
  std::string path;
  struct stat st;
};

// The folders from SHARED (not itself) down to PATH (not itself), as they are now.
std::vector<Folder> folders_on_the_way(const std::string& shared, const std::string& path) {
  std::vector<Folder> way;
  for (size_t slash = path.find('/', shared.size() + 1); slash != std::string::npos; slash = path.find('/', slash + 1)) {
    Folder f{path.substr(0, slash), {}};
    if (stat(f.path.c_str(), &f.st) != 0) fail("cannot read " + f.path);
    way.push_back(f);
  }
  return way;
}

void make_again(const std::vector<Folder>& way, const std::string& path) {
  for (const Folder& f : way) {
    if (mkdir(f.path.c_str(), 0700) != 0 && errno != EEXIST) fail("cannot make " + f.path);
    // In a user namespace an owner it does not map cannot be given: the folder keeps its mode.
    if (chown(f.path.c_str(), f.st.st_uid, f.st.st_gid) != 0 && errno != EINVAL && errno != EPERM) fail("cannot own " + f.path);
    if (chmod(f.path.c_str(), f.st.st_mode & 07777) != 0) fail("cannot set the mode of " + f.path);
  }
  if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) fail("cannot make " + path);
}

// The folders every process shares and every user may write, each replaced by an empty one of
// this namespace's own, with the folders of KEEP that lie in it bound again at their paths (from
// a descriptor opened before: the new folder covers the old path). A shared folder that KEEP
// lies above, or that is missing, stays as it is.
void private_shared_folders(const std::vector<const char*>& given) {
  std::vector<std::string> keep;
  for (const char* path : given) {
    char real[PATH_MAX];
    if (realpath(path, real) == nullptr) fail(std::string("cannot find ") + path);
    keep.push_back(real);
  }
  // Sizes: what a compiler's temporary files need, and no more, since a tmpfs is memory: a
  // grading box of 2 GiB would give a student that fills them this much of it.
  const std::pair<const char*, const char*> folders[] = {{"/tmp", "size=256m"}, {"/var/tmp", "size=64m"}, {"/dev/shm", "size=64m"}};
  for (const auto& [shared, size] : folders) {
    struct stat st;
    if (lstat(shared, &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    bool above = false;
    std::vector<std::string> inside;
    for (const std::string& path : keep) {
      if (within(shared, path)) above = true;
      if (path != shared && within(path, shared)) inside.push_back(path);
    }
    if (above) continue;
    // Only the outermost of nested folders: its bind brings the ones in it along.
    struct Rebind {
      std::string path;
      int fd;
      std::vector<Folder> way;
    };
    std::vector<Rebind> rebind;
    for (const std::string& path : inside) {
      bool nested = false;
      for (const std::string& other : inside) nested = nested || (other != path && within(path, other));
      if (nested || std::any_of(rebind.begin(), rebind.end(), [&](const Rebind& r) { return r.path == path; })) continue;
      const int fd = open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
      if (fd < 0) fail("cannot open " + path);
      rebind.push_back({path, fd, folders_on_the_way(shared, path)});
    }
    const std::string options = std::string("mode=1777,") + size;
    if (mount("private", shared, "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()) != 0) fail(std::string("cannot cover ") + shared);
    for (const Rebind& r : rebind) {
      make_again(r.way, r.path);
      const std::string source = "/proc/self/fd/" + std::to_string(r.fd);
      if (mount(source.c_str(), r.path.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0) fail("cannot bind " + r.path + " again");
      close(r.fd);
    }
  }
}

// The count at ARGV[*i], then that many paths after it.
std::vector<const char*> paths(char** argv, int argc, int* i) {
  if (*i >= argc) {
    errno = EINVAL;
    fail("usage: fence UP_LINE CHECKOUT BUILD_DIR SCRATCH N WRITABLE... M HIDDEN... -- COMMAND...", 2);
  }
  const long n = std::strtol(argv[(*i)++], nullptr, 10);
  std::vector<const char*> list;
  for (long k = 0; k < n && *i < argc; ++k) list.push_back(argv[(*i)++]);
  return list;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 9) {
    errno = EINVAL;
    fail("usage: fence UP_LINE CHECKOUT BUILD_DIR SCRATCH N WRITABLE... M HIDDEN... -- COMMAND...", 2);
  }
  char here[PATH_MAX];
  if (getcwd(here, sizeof here) == nullptr) fail("cannot read the working folder");
  private_shared_folders({argv[2], argv[3], argv[4], here});
  bind(argv[2], false);
  bind(argv[3], false);
  int i = 5;
  for (const char* path : paths(argv, argc, &i)) bind(path, true);
  for (const char* path : paths(argv, argc, &i)) hide(path);
  if (i >= argc || std::strcmp(argv[i], "--") != 0 || i + 1 >= argc) {
    errno = EINVAL;
    fail("usage: fence UP_LINE CHECKOUT BUILD_DIR SCRATCH N WRITABLE... M HIDDEN... -- COMMAND...", 2);
  }
  if (chdir(here) != 0) fail(std::string("cannot enter ") + here);
  std::printf("%s\n", argv[1]);
  std::fflush(stdout);
  execvp(argv[i + 1], argv + i + 1);
  fail(std::string("cannot run ") + argv[i + 1], 127);
}
