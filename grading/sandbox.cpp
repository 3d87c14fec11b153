#include "grading/sandbox.h"

#include <unistd.h>

#include <cmath>

#include "common/subprocess.h"

namespace grade {

std::string Sandbox::describe() const {
  std::string text = "each student process runs in a folder of its own";
  if (limits) {
    text += "; limits: " + std::to_string(kMemoryLimitMiB / 1024) + " GiB of memory, files of " +
            std::to_string(kFileSizeLimitMiB) + " MiB, " + std::to_string(kOpenFileLimit) + " open files, " +
            (as_root ? std::string("processes not limited (the grader runs as root)")
                     : std::to_string(kProcessLimit) + " processes and threads of this user") +
            ", CPU time";
  } else {
    text += "; no resource limits (prlimit, from util-linux, is not installed)";
  }
  text += namespaces ? "; no network; the checkout and the builds read-only"
                     : "; network reachable and the checkout writable (this user cannot make namespaces)";
  return text;
}

std::vector<std::string> Sandbox::wrap(const std::vector<std::string>& argv, double timeout_s, bool sanitized) const {
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
  if (namespaces) {
    // In a user and mount namespace of its own: each folder bound onto itself, read-only. Then
    // every capability goes (setpriv): the namespace's root could otherwise remount them writable.
    command.insert(command.end(), {"unshare", "--user", "--map-root-user", "--net", "--mount", "--", "sh", "-c",
                                   "n=$1; shift; while [ \"$n\" -gt 0 ]; do mount --bind \"$1\" \"$1\" && "
                                   "mount -o remount,bind,ro \"$1\" || exit 126; shift; n=$((n - 1)); done; "
                                   "exec setpriv --bounding-set=-all --inh-caps=-all --no-new-privs -- \"$@\"",
                                   "sh", std::to_string(read_only.size())});
    command.insert(command.end(), read_only.begin(), read_only.end());
  }
  command.insert(command.end(), argv.begin(), argv.end());
  return command;
}

Sandbox probe_sandbox(const std::vector<std::string>& read_only, bool namespaces) {
  Sandbox s;
  s.read_only = read_only;
  s.limits = lab::run_command({"prlimit", "--nofile=64", "--", "true"}).exited(0);
  s.namespaces = namespaces;
  s.namespaces = namespaces && lab::run_command(s.wrap({"true"}, 10, false)).exited(0);
  s.as_root = geteuid() == 0;
  return s;
}

std::string sanitizer_memory_option() { return "hard_rss_limit_mb=" + std::to_string(kMemoryLimitMiB); }

}  // namespace grade
