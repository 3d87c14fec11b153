// The processes a program leaves behind. A student's launcher may start processes (a daemon, a
// few hundred sleepers) that leave their process group and outlive the program; whoever waits
// for the program's whole tree (the grader, compute-sanitizer, Nsight Compute) would wait for
// them too. A process that adopts its orphans can find every one of them and end them.
#pragma once

namespace lab {

// Makes this process the parent of any orphaned descendant (PR_SET_CHILD_SUBREAPER), even of
// one that left its process group or session by a double fork.
void adopt_orphans();

// Kills every descendant of this process that is still alive, waiting for each. Returns how
// many there were.
int kill_descendants();

}  // namespace lab
