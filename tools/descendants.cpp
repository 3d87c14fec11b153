#include "tools/descendants.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace tools {

namespace {

// The parent of a process, from /proc/<pid>/stat ("pid (comm) state ppid ..."; comm may hold
// spaces and parentheses, so read after the last ')'); -1 when it is gone. read(2), not a
// stream: the process may exit while we read, and libstdc++'s filebuf throws at that error.
int parent_of(int pid) {
  const int fd = open(("/proc/" + std::to_string(pid) + "/stat").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buffer[1024];
  const ssize_t n = read(fd, buffer, sizeof buffer);
  close(fd);
  if (n <= 0) return -1;
  const std::string stat(buffer, size_t(n));
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return -1;
  std::istringstream rest(stat.substr(paren + 1));
  std::string state;
  int ppid = -1;
  rest >> state >> ppid;
  return ppid;
}

// The second number of /proc/<pid>/statm, resident pages; 0 when it is gone (read as parent_of).
long long resident_pages(int pid) {
  const int fd = open(("/proc/" + std::to_string(pid) + "/statm").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buffer[256];
  const ssize_t n = read(fd, buffer, sizeof buffer - 1);
  close(fd);
  if (n <= 0) return 0;
  buffer[n] = 0;
  long long size = 0, resident = 0;
  return std::sscanf(buffer, "%lld %lld", &size, &resident) == 2 ? resident : 0;
}

// The children that threads are waiting for, and the lock under which they start, are reaped
// and are skipped by kill_descendants. Made on first use: static initializers run commands too.
std::mutex& children_lock() {
  static std::mutex lock;
  return lock;
}
std::set<int>& waited_for() {
  static std::set<int> pids;
  return pids;
}
// Set by kill_all_descendants, under the lock: the process is ending, and starts nothing more.
bool ending = false;

}  // namespace

int spawn_waited_for(const std::function<int(pid_t*)>& spawn, pid_t* pid) {
  const std::lock_guard<std::mutex> hold(children_lock());
  // Another thread may still be at work while the process ends (a grading whose run was just
  // killed goes on to the next): a child started now would outlive it.
  if (ending) return ECANCELED;
  const int err = spawn(pid);
  if (err == 0) waited_for().insert(*pid);
  return err;
}

pid_t wait_for_child(pid_t pid, int* status, int options) {
  const pid_t reaped = waitpid(pid, status, options);
  if (reaped == pid) {
    const std::lock_guard<std::mutex> hold(children_lock());
    waited_for().erase(pid);
  }
  return reaped;
}

void adopt_orphans() { prctl(PR_SET_CHILD_SUBREAPER, 1); }

long long tree_resident_bytes(int pid) {
  std::map<int, std::vector<int>> children;
  if (DIR* proc = opendir("/proc")) {
    for (dirent* entry; (entry = readdir(proc)) != nullptr;)
      if (const int p = std::atoi(entry->d_name); p > 0) children[parent_of(p)].push_back(p);
    closedir(proc);
  }
  long long pages = 0;
  std::vector<int> todo = {pid};
  {
    const std::lock_guard<std::mutex> hold(children_lock());
    const auto mine = children.find(getpid());
    if (mine != children.end())
      for (int p : mine->second)
        if (waited_for().count(p) == 0 && p != pid) todo.push_back(p);
  }
  while (!todo.empty()) {
    const int p = todo.back();
    todo.pop_back();
    pages += resident_pages(p);
    const auto c = children.find(p);
    if (c != children.end()) todo.insert(todo.end(), c->second.begin(), c->second.end());
  }
  return pages * sysconf(_SC_PAGESIZE);
}

void kill_all_descendants() {
  {
    const std::lock_guard<std::mutex> hold(children_lock());
    ending = true;
    for (int pid : waited_for()) {
      kill(-pid, SIGKILL);  // its process group (run_command's children lead one)
      kill(pid, SIGKILL);
    }
    waited_for().clear();
  }
  kill_descendants();  // and what left the groups: orphans come to us
}

int kill_descendants() {
  std::set<int> killed;
  // Killing a process hands its own children to us (we adopt orphans): repeat until none are left.
  for (int round = 0; round < 50; ++round) {
    std::set<int> found;
    DIR* proc = opendir("/proc");
    if (proc == nullptr) break;
    {
      // Held while killing: a child that starts meanwhile is marked before it can be seen.
      const std::lock_guard<std::mutex> hold(children_lock());
      for (dirent* entry; (entry = readdir(proc)) != nullptr;) {
        const int pid = std::atoi(entry->d_name);
        if (pid > 0 && waited_for().count(pid) == 0 && parent_of(pid) == getpid()) {
          kill(pid, SIGKILL);
          found.insert(pid);
        }
      }
    }
    closedir(proc);
    // Each by its pid: waitpid(-1) would reap another thread's child and lose its status.
    for (int pid : found) waitpid(pid, nullptr, WNOHANG);
    killed.insert(found.begin(), found.end());
    if (found.empty()) break;
    usleep(20000);
  }
  return int(killed.size());
}

}  // namespace tools
