#include "grading/core/sandbox.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "grading/core/cannot_grade.h"
#include "tools/subprocess.h"

namespace grade {

std::string Sandbox::describe() const {
  std::string text = "each student process runs in a folder of its own";
  if (as_student) text += " as user " + std::to_string(student->uid()) + " (no other grading running here shares it)";
  if (limits) {
    text += "; limits: " + memory_text(memory_limit_mib) + " of memory, files of " +
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

// The line the fences print when they are up, just before the command starts: the first of its
// output, which the command can neither take back nor print before it (Sandbox::run).
constexpr char kFencesUp[] = "grade: fences up";

namespace fs = std::filesystem;

// What student code has no business reading: the solutions and the checkout's history (which
// holds them), the made copies of solutions (variants, the test corpus), other submissions'
// private copies, every build's programs and objects but its own (the solution's program, run
// on the student's inputs, would compute the answer), and the other runs' folders (the
// solution's outputs). Each becomes an empty folder. A BUILD links the harness's objects, and
// sees those.
std::vector<std::string> hidden_from(const Sandbox& s, const std::vector<std::string>& own_paths, bool build) {
  std::vector<std::string> own;
  std::error_code ec;
  for (const std::string& path : own_paths) own.push_back(fs::weakly_canonical(path, ec).string());
  auto holds_own = [&](const fs::path& dir) {
    for (const std::string& path : own) {
      if ((path + "/").rfind(dir.string() + "/", 0) == 0) return true;
    }
    return false;
  };
  std::vector<std::string> hidden;
  auto hide_others = [&](const fs::path& dir, std::initializer_list<const char*> shared) {
    for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
      const std::string name = entry.path().filename().string();
      const bool is_shared = std::find(shared.begin(), shared.end(), name) != shared.end();
      if (entry.is_directory(ec) && !is_shared && !holds_own(entry.path())) hidden.push_back(entry.path().string());
    }
  };
  for (const char* path : {"solutions", ".git", "build/variants", "build/corpus"}) {
    if (fs::is_directory(s.checkout + "/" + path, ec)) hidden.push_back(s.checkout + "/" + path);
  }
  // Other gradings' reports and histories (a report names another student's mistakes, and a
  // class's folder holds every submission), unless a folder holds what this grading runs in.
  std::vector<std::string> reports = s.hide;
  for (const char* path : {"build/grade", "build/check", "build/class", "build/progress"}) reports.push_back(s.checkout + "/" + path);
  for (const std::string& path : reports) {
    const fs::path dir = fs::weakly_canonical(path, ec);
    bool holds_grading = holds_own(dir);
    for (const std::string& p : {s.checkout, s.build_dir, s.work_dir}) {
      holds_grading = holds_grading || (p + "/").rfind(dir.string() + "/", 0) == 0;
    }
    if ((fs::is_directory(dir, ec) || fs::is_regular_file(dir, ec)) && !holds_grading) hidden.push_back(dir.string());
  }
  for (const std::string& root : {s.checkout + "/build", s.build_dir}) {
    hide_others(root + "/submission", {});
    for (const fs::directory_entry& flavor : fs::directory_iterator(root, ec)) {
      if (!build && fs::is_directory(flavor.path() / "obj", ec)) hidden.push_back((flavor.path() / "obj").string());
      if (build) hide_others(flavor.path() / "obj", {"common", "harness"});
      hide_others(flavor.path() / "bin", {});
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

// ARGV inside the fences: limits (DATA_MIB the data limit, 0 for none), then namespaces, then
// the capabilities dropped. HIDDEN: folders under empty ones. WRITABLE: the folders of the build
// folder that a build may write (its own objects and program); everything else of the build
// folder, and the checkout, is read-only, so that a build folder kept between runs holds
// nothing a student's build wrote but that build's own output. Student programs write only into
// the folders handed over to them, outside both.
std::vector<std::string> fenced(const Sandbox& s, const std::vector<std::string>& argv, double timeout_s,
                                long data_mib, const std::vector<std::string>& writable, const std::vector<std::string>& hidden) {
  std::vector<std::string> command;
  if (s.limits) {
    const long mib = 1024L * 1024L;
    // CPU time: the wall-clock limit on every core, so that only a leftover spinning on its own
    // (killed at the end of the run in any case) can meet it.
    const long cpu = long(std::ceil(timeout_s > 0 ? timeout_s : 600)) * std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)) + 10;
    command = {"prlimit", "--nofile=" + std::to_string(kOpenFileLimit), "--fsize=" + std::to_string(kFileSizeLimitMiB * mib),
               "--nproc=" + std::to_string(kProcessLimit), "--core=0", "--cpu=" + std::to_string(cpu)};
    if (data_mib > 0) command.push_back("--data=" + std::to_string(data_mib * mib));
    command.push_back("--");
  }
  // Last, every capability goes, and a root grader's user with them: whoever is root in the
  // namespace could otherwise unmount the read-only folders or remount them writable.
  std::vector<std::string> drop = {"setpriv"};
  if (s.as_student) {
    const std::string id = std::to_string(s.student->uid());
    drop.insert(drop.end(), {"--reuid=" + id, "--regid=" + id, "--clear-groups"});
  }
  drop.insert(drop.end(), {"--bounding-set=-all", "--inh-caps=-all", "--no-new-privs", "--"});
  if (s.namespaces) {
    // A mount and network namespace of its own (and a user namespace, for a user who is not
    // root), in which build/host/fence (grading/core/fence.cpp) gives it /tmp, /var/tmp and
    // /dev/shm of its own, binds the checkout and the build folder onto themselves read-only,
    // the writable folders again writable, and puts what student code must not see under an
    // empty folder. It enters the working folder again once
    // the mounts are made: a folder the process is in stays the one beneath them (a compiler in
    // the checkout would read solutions/ by its relative path). A folder to hide that is gone by
    // then needs no hiding: labs graded at once remove their runs' folders while another run
    // starts.
    command.insert(command.end(), {"unshare", "--net", "--mount"});
    if (!s.as_student) command.insert(command.end(), {"--user", "--map-root-user"});
    command.insert(command.end(), {"--", s.fence, kFencesUp, s.checkout, s.build_dir, s.work_dir, std::to_string(writable.size())});
    command.insert(command.end(), writable.begin(), writable.end());
    command.push_back(std::to_string(hidden.size()));
    command.insert(command.end(), hidden.begin(), hidden.end());
    command.push_back("--");
  }
  if (s.namespaces || s.as_student) command.insert(command.end(), drop.begin(), drop.end());
  command.insert(command.end(), argv.begin(), argv.end());
  return command;
}

}  // namespace

std::vector<std::string> Sandbox::wrap(const std::vector<std::string>& argv, double timeout_s, bool sanitized,
                                       const std::vector<std::string>& own) const {
  const std::vector<std::string> hidden = own.empty() || !namespaces ? std::vector<std::string>{} : hidden_from(*this, own, false);
  return fenced(*this, argv, timeout_s, sanitized ? 0 : memory_limit_mib, {}, hidden);
}

std::vector<std::string> Sandbox::wrap_build(const std::vector<std::string>& argv, double timeout_s,
                                             const std::vector<std::string>& own) const {
  const std::vector<std::string> hidden = namespaces ? hidden_from(*this, own, true) : std::vector<std::string>{};
  return fenced(*this, argv, timeout_s, kBuildMemoryLimitMiB, own, hidden);
}

tools::RunResult Sandbox::run(const std::vector<std::string>& command, const tools::RunOptions& options) const {
  const std::string up = std::string(kFencesUp) + "\n";
  for (int attempt = 1;; ++attempt) {
    tools::RunResult r = tools::run_command(command, options);
    if (!namespaces || r.spawn_failed || r.timed_out) return r;
    if (r.output.rfind(up, 0) == 0) {
      r.output.erase(0, up.size());
      return r;
    }
    if (attempt == 2) {
      throw CannotGrade("the fences around student code could not be set up (" + r.describe() + "), twice:\n" + r.output);
    }
  }
}

void Sandbox::hand_over(const std::string& dir) const {
  if (!as_student) return;
  std::error_code ec;
  const unsigned uid = student->uid();
  bool ok = chown(dir.c_str(), uid, uid) == 0;
  for (fs::recursive_directory_iterator it(dir, ec), end; ok && !ec && it != end; it.increment(ec)) {
    ok = lchown(it->path().c_str(), uid, uid) == 0;
  }
  if (!ok || ec) throw CannotGrade("cannot hand " + dir + " over to user " + std::to_string(uid));
}

Sandbox probe_sandbox(const std::string& checkout, const std::string& build_dir, const std::string& work_dir,
                      bool strict) {
  Sandbox s;
  s.checkout = checkout;
  s.build_dir = build_dir;
  s.work_dir = work_dir;
  s.fence = fence_program(checkout);
  s.limits = tools::run_command({"prlimit", "--nofile=64", "--", "true"}).exited(0);
  const bool root = geteuid() == 0;
  s.as_student = root && strict;
  if (s.as_student) s.student = StudentUid::take();
  s.namespaces = strict;
  s.namespaces = strict && tools::run_command(s.wrap({"true"}, 10, false)).exited(0);
  // No setpriv: student code runs as root, and the report says so.
  s.as_student = s.as_student && tools::run_command(s.wrap({"true"}, 10, false)).exited(0);
  if (!s.as_student) s.student.reset();
  s.as_root = root && !s.as_student;
  if (s.as_student && !tools::run_command(s.wrap({"test", "-r", checkout + "/Makefile", "-a", "-x", build_dir}, 10, false)).exited(0)) {
    throw CannotGrade("user " + std::to_string(s.student->uid()) + ", which runs student code for a grader that is root, cannot read " +
                      checkout + " and " + build_dir + ": grade from a checkout every user may read, or as a user other than root");
  }
  return s;
}

std::string fence_program(const std::string& checkout) {
  std::error_code ec;
  const fs::path beside = fs::read_symlink("/proc/self/exe", ec).parent_path() / "fence";
  if (!ec && fs::exists(beside, ec)) return beside.string();
  return checkout + "/build/host/fence";
}

std::string memory_text(long mib) { return mib % 1024 == 0 ? std::to_string(mib / 1024) + " GiB" : std::to_string(mib) + " MiB"; }

std::string Sandbox::sanitizer_memory_option() const { return "hard_rss_limit_mb=" + std::to_string(memory_limit_mib); }

}  // namespace grade
