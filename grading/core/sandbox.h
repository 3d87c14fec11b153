// The fences around each student process, on top of its process group, its time limit and the
// reaping of what it leaves behind (grading/core/isolation.h): resource limits set by prlimit
// (util-linux, on every Debian and Ubuntu system), a working folder of its own, and, where this
// user may make namespaces (unshare), no network and a read-only view of the checkout and the
// build folder, so that no run can plant a grader, a rubric or a Makefile for the next. Probed
// once per grading run; the report says which of them hold (docs/instructor/threat-model.md).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "grading/core/student_uid.h"
#include "tools/subprocess.h"

namespace grade {

// The limits of one student process (and of everything it starts).
// Its data (heap and private mappings; malloc fails above), unless the rubric's memory.run says
// otherwise; a sanitizer's build, whose shadow memory a data limit would break, is held to the
// same number of resident bytes instead (Sandbox::memory_limit_mib).
constexpr long kMemoryLimitMiB = 8192;
// A compiler of a student's file: our labs need a few hundred MiB; `#include "/dev/zero"` would
// take every byte of the machine (cc1plus reads it at 1 GiB a second).
constexpr long kBuildMemoryLimitMiB = 4096;
constexpr long kFileSizeLimitMiB = 1024;  // any one file it writes (the largest lab output is 256 MiB)
constexpr long kOpenFileLimit = 1024;
// Processes and threads of the user student code runs as, all of its processes together: for a
// grader that is root, that grading's student processes only (each has a user of its own,
// grading/core/student_uid.h); for one that is not, the grader's own user's, its other gradings and
// its shell included, so high enough for eight gradings at once on a many-core machine (the CPU
// backend runs a thread per core). Low enough that a fork bomb stops. The kernel does not hold
// root to it, so a root grader hands student code to another user.
constexpr long kProcessLimit = 4096;

struct Sandbox {
  bool limits = false;      // prlimit is installed
  long memory_limit_mib = kMemoryLimitMiB;  // a student process's memory (the rubric's memory.run)
  bool namespaces = false;  // unshare works here: no network, the checkout and builds read-only
  std::string checkout, build_dir;  // absolute; student processes change neither
  std::string fence;                // the program that makes the mounts (fence_program)
  std::string work_dir;             // the run's scratch folder, where each run has folders of its own
  // Other gradings' folders student code must not read (a class's output and submissions,
  // --hide; a file too, such as the LMS download a class came in), beside the checkout's own
  // report folders, which are always hidden; absolute.
  std::vector<std::string> hide;
  // The grader is root: student processes run as STUDENT's uid, one no other grading running on
  // this machine uses; held while any copy of this Sandbox lives.
  bool as_student = false;
  std::shared_ptr<const StudentUid> student;
  bool as_root = false;     // the grader is root and student processes too (--no-namespaces)

  // One line for the report: what holds, and what does not.
  std::string describe() const;

  // The memory limit of a sanitizer's build, for its *SAN_OPTIONS: "hard_rss_limit_mb=8192".
  // AddressSanitizer holds it; ThreadSanitizer does not (it reached 12.5 GB under 8192), so the
  // grader watches its runs' resident memory as well (grading/core/case_runs.cpp).
  std::string sanitizer_memory_option() const;

  // The command that runs ARGV inside the fences, for at most TIMEOUT_S seconds of wall time.
  // SANITIZED: a compiler sanitizer's build, whose shadow memory a data limit would break (its
  // own RSS limit, sanitizer_memory_option(), holds it instead). OWN: for a student's program,
  // its path and the folders of this run (its working folder, its cases): in namespaces it
  // sees no other program or object of any build, no other run's folders (the solution's
  // outputs), no solutions and no history of the checkout. Empty for the solution's program.
  // Tools that wrap ARGV (compute-sanitizer, Nsight Compute) run inside the same fences.
  std::vector<std::string> wrap(const std::vector<std::string>& argv, double timeout_s, bool sanitized,
                                const std::vector<std::string>& own = {}) const;

  // The command that builds a student's file (ARGV: a make, a compiler) inside the same fences,
  // with a compiler's memory limit: the folders OWN writable (the private copy's folder, and the
  // folders of the object and program it makes), the checkout and the rest of the build folder
  // read-only, and hidden as from a student's program (an `asm(".incbin ...")` reads what the
  // compiler can read) but for what the build links: the harness's objects and libraries.
  std::vector<std::string> wrap_build(const std::vector<std::string>& argv, double timeout_s,
                                      const std::vector<std::string>& own) const;

  // Runs a command that wrap() or wrap_build() made. When the fences themselves could not be
  // set up (a mount failed, so the student's code never started), it tries once more, then
  // throws CannotGrade: the grader's failure, never a verdict on the student's code. The fences
  // say they are up in the first line of the output, before the command starts, so no student
  // program can fake their failure; that line is taken out of the output.
  tools::RunResult run(const std::vector<std::string>& command, const tools::RunOptions& options = {}) const;

  // Makes a folder the grader just made (a working folder, a folder of cases, the folder of a
  // student's object) the student's to write in, with what is in it already; what the grader
  // puts in it afterwards (the inputs) stays the grader's.
  void hand_over(const std::string& dir) const;
};

// What this machine offers, for student processes in CHECKOUT grading into BUILD_DIR, with
// folders of their own in WORK_DIR. STRICT false: grade as an unprivileged user would on a
// machine without namespaces, student code running as the grader's own user (the tests use it,
// to test the fences that remain). A root grader takes its student user here, and waits while
// other gradings hold every one. Throws CannotGrade when a root grader's checkout is one that
// its student user cannot read (under /root, say): no student build could run there.
Sandbox probe_sandbox(const std::string& checkout, const std::string& build_dir, const std::string& work_dir,
                      bool strict = true);


// MIB as the reports say it: "8 GiB", "512 MiB".
std::string memory_text(long mib);

// build/host/fence, which makes a student process's mounts in its namespace: the one beside the
// running program, else the checkout's.
std::string fence_program(const std::string& checkout);

}  // namespace grade
