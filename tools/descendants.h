// The processes a program leaves behind. A student's launcher may start processes (a daemon, a
// few hundred sleepers) that leave their process group and outlive the program; whoever waits
// for the program's whole tree (the grader, compute-sanitizer, Nsight Compute) would wait for
// them too. A process that adopts its orphans can find every one of them and end them.
#pragma once

#include <sys/types.h>

#include <functional>

namespace tools {

// Makes this process the parent of any orphaned descendant (PR_SET_CHILD_SUBREAPER), even of
// one that left its process group or session by a double fork.
void adopt_orphans();

// Kills every descendant of this process that is still alive, waiting for each, except the
// children run_command is waiting for (and what they started): the grader grades several labs
// at once, and one lab's cleanup after its run must not end another lab's run. Returns how
// many there were.
int kill_descendants();

// Kills every descendant of this process, those run_command waits for too, and their process
// groups: for a program that is about to end (interrupted), whose runs end with it. From then
// on no child starts (spawn_waited_for refuses: ECANCELED), so none outlives it.
void kill_all_descendants();

// The resident memory of process PID and of every process under it, in bytes (what the
// kernel's statm counts as resident: heap, stacks, touched mappings, a sanitizer's shadow), and
// of the orphans this process adopted (adopt_orphans) with theirs: what a run left behind by a
// double fork, outside its tree, is counted against it too (children run_command waits for are
// runs of their own, and not counted). 0 when none is left. One pass over /proc: a few
// milliseconds where a few hundred processes run.
long long tree_resident_bytes(int pid);

// Starts a child with SPAWN (0 or an errno, the child's pid in *pid) and marks it as waited for:
// kill_descendants leaves it alone until wait_for_child has reaped it. Under one lock, so that
// no cleanup in another thread sees the child between its start and its mark.
int spawn_waited_for(const std::function<int(pid_t*)>& spawn, pid_t* pid);
// waitpid(PID, STATUS, OPTIONS) for a child of spawn_waited_for; once reaped, it is forgotten.
pid_t wait_for_child(pid_t pid, int* status, int options);

}  // namespace tools
