#include "grading/sandbox.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "common/subprocess.h"
#include "grading/checks.h"

namespace grade {

std::string Sandbox::describe() const {
  std::string text = "each student process runs in a folder of its own";
  if (as_student) text += " as user nobody (" + std::to_string(kStudentUid) + ")";
  if (limits) {
    text += "; limits: " + std::to_string(kMemoryLimitMiB / 1024) + " GiB of memory, files of " +
            std::to_string(kFileSizeLimitMiB) + " MiB, " + std::to_string(kOpenFileLimit) + " open files, " +
            (as_root ? std::string("processes not limited (student code runs as root)")
                     : std::to_string(kProcessLimit) + " processes and threads of its user") +
            ", CPU time";
  } else {
    text += "; no resource limits (prlimit, from util-linux, is not installed)";
  }
  text += namespaces ? "; no network; the checkout and the builds read-only"
                     : "; network reachable and the checkout writable (this user cannot make namespaces)";
  return text;
}

namespace {

namespace fs = std::filesystem;

// What a student's program has no business reading while it runs: the solutions and the
// checkout's history (which holds them), the made copies of solutions (variants, the test
// corpus), every build's programs and objects but its own (the solution's program, run on the
// student's inputs, would compute the answer), and the other runs' folders (the solution's
// outputs). Each becomes an empty folder.
std::vector<std::string> hidden_from(const Sandbox& s, const std::vector<std::string>& own) {
  auto holds_own = [&](const fs::path& dir) {
    for (const std::string& path : own) {
      if ((path + "/").rfind(dir.string() + "/", 0) == 0) return true;
    }
    return false;
  };
  std::vector<std::string> hidden;
  std::error_code ec;
  for (const char* path : {"solutions", ".git", "build/variants", "build/corpus"}) {
    if (fs::is_directory(s.checkout + "/" + path, ec)) hidden.push_back(s.checkout + "/" + path);
  }
  for (const std::string& root : {s.checkout + "/build", s.build_dir}) {
    for (const fs::directory_entry& flavor : fs::directory_iterator(root, ec)) {
      if (fs::is_directory(flavor.path() / "obj", ec)) hidden.push_back((flavor.path() / "obj").string());
      for (const fs::directory_entry& bin : fs::directory_iterator(flavor.path() / "bin", ec)) {
        if (bin.is_directory(ec) && !holds_own(bin.path())) hidden.push_back(bin.path().string());
      }
    }
  }
  for (const fs::directory_entry& run : fs::directory_iterator(s.work_dir, ec)) {
    if (run.is_directory(ec) && !holds_own(run.path()) && run.path().string() != s.build_dir) {
      hidden.push_back(run.path().string());
    }
  }
  std::sort(hidden.begin(), hidden.end());
  hidden.erase(std::unique(hidden.begin(), hidden.end()), hidden.end());
  return hidden;
}

}  // namespace

std::vector<std::string> Sandbox::wrap(const std::vector<std::string>& argv, double timeout_s, bool sanitized,
                                       const std::vector<std::string>& own) const {
  std::vector<std::string> command;
  if (limits) {
    const long mib = 1024L * 1024L;
    // CPU time: the wall-clock limit on every core, so that only a leftover spinning on its own
    // (killed at the end of the run in any case) can meet it.
    const long cpu = long(std::ceil(timeout_s > 0 ? timeout_s : 600)) * std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)) + 10;
    command = {"prlimit", "--nofile=" + std::to_string(kOpenFileLimit), "--fsize=" + std::to_string(kFileSizeLimitMiB * mib),
               "--nproc=" + std::to_string(kProcessLimit), "--core=0", "--cpu=" + std::to_string(cpu)};
    if (!sanitized) command.push_back("--data=" + std::to_string(kMemoryLimitMiB * mib));
    command.push_back("--");
  }
  // Last, every capability goes, and a root grader's user with them: whoever is root in the
  // namespace could otherwise unmount the read-only folders or remount them writable.
  std::vector<std::string> drop = {"setpriv"};
  if (as_student) {
    const std::string id = std::to_string(kStudentUid);
    drop.insert(drop.end(), {"--reuid=" + id, "--regid=" + id, "--clear-groups"});
  }
  drop.insert(drop.end(), {"--bounding-set=-all", "--inh-caps=-all", "--no-new-privs", "--"});
  if (namespaces) {
    // A mount and network namespace of its own (and a user namespace, for a user who is not
    // root): the checkout and the build folder each bound onto itself, read-only, and what a
    // student's program must not see under an empty folder.
    const std::vector<std::string> hidden = own.empty() ? std::vector<std::string>{} : hidden_from(*this, own);
    command.insert(command.end(), {"unshare", "--net", "--mount"});
    if (!as_student) command.insert(command.end(), {"--user", "--map-root-user"});
    command.insert(command.end(), {"--", "sh", "-c",
                                   "for d in \"$1\" \"$2\"; do mount --bind \"$d\" \"$d\" && "
                                   "mount -o remount,bind,ro \"$d\" || exit 126; done; shift 2; "
                                   "n=$1; shift; while [ \"$n\" -gt 0 ]; do mount -t tmpfs -o size=4k,mode=0555 hidden \"$1\" || "
                                   "exit 126; shift; n=$((n - 1)); done; exec \"$@\"",
                                   "sh", checkout, build_dir, std::to_string(hidden.size())});
    command.insert(command.end(), hidden.begin(), hidden.end());
  }
  if (namespaces || as_student) command.insert(command.end(), drop.begin(), drop.end());
  command.insert(command.end(), argv.begin(), argv.end());
  return command;
}

void Sandbox::hand_over(const std::string& dir) const {
  if (as_student && chown(dir.c_str(), kStudentUid, kStudentUid) != 0) throw CannotGrade("cannot hand " + dir + " over to nobody");
}

Sandbox probe_sandbox(const std::string& checkout, const std::string& build_dir, const std::string& work_dir,
                      bool strict) {
  Sandbox s;
  s.checkout = checkout;
  s.build_dir = build_dir;
  s.work_dir = work_dir;
  s.limits = lab::run_command({"prlimit", "--nofile=64", "--", "true"}).exited(0);
  const bool root = geteuid() == 0;
  s.as_student = root && strict;
  s.namespaces = strict;
  s.namespaces = strict && lab::run_command(s.wrap({"true"}, 10, false)).exited(0);
  // No setpriv, or no such user: student code runs as root, and the report says so.
  s.as_student = s.as_student && lab::run_command(s.wrap({"true"}, 10, false)).exited(0);
  s.as_root = root && !s.as_student;
  return s;
}

std::string sanitizer_memory_option() { return "hard_rss_limit_mb=" + std::to_string(kMemoryLimitMiB); }

}  // namespace grade
