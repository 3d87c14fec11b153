// What keeps student code from touching the verdict. The grader runs each student program in
// its own process group with a time limit (tools/subprocess.h); these add the rest:
//  - the grader's memory cannot be read by a student process (not dumpable: no ptrace, no
//    /proc/<grader>/mem), so the seed and the references stay private;
//  - the grader adopts every process a student program leaves behind, even one that left its
//    process group (setsid, double fork), and kills it before anything else runs
//    (tools/descendants.h; the lab program does the same for its own, under a tool);
//  - each program is fingerprinted right after it is built, before any student code runs, and
//    checked again before every run, so no run can replace another lab's or the solution's.
// docs/instructor/threat-model.md states the threat model.
#pragma once

#include <string>

namespace grade {

// Makes the grader non-dumpable and the reaper of its orphaned descendants.
void protect_grader();

// A new folder "<prefix>" plus a random suffix that only this process can predict (mkdtemp);
// "" when it cannot be made.
std::string make_private_dir(const std::string& prefix);

// The SHA-256 of a file (by sha256sum), or "" when it cannot be read.
std::string fingerprint(const std::string& path);

}  // namespace grade
