// An interrupted grading (Ctrl-C, make killed, the terminal closed) ends as cleanly as a finished
// one: what it started is killed, its scratch folder removed, and no report folder is left that
// looks like a result. The signals are taken by a thread of their own (sigwait), so that the
// cleanup runs as ordinary code, never inside a signal handler, whatever the other threads hold.
#pragma once

#include <functional>

namespace grade {

// From now on SIGINT, SIGTERM and SIGHUP, and the death of the parent (make's shell, killed;
// SIGTERM then), end the process: every descendant killed, then CLEANUP(signal) run, then exit
// status 128 + signal. Call before starting any thread: they inherit the blocked signals.
void end_cleanly_on_signals(std::function<void(int signal)> cleanup);

// Called by a thread about to end the process itself (a report written, a "could not grade"):
// the first of it and an interrupt's cleanup to get here ends the process, the other waits for
// that. Without this a grading thread, its runs just killed by the interrupt, would go on to
// report their failures (or the grader's, its commands refused), overwriting "interrupted" and
// exiting before the cleanup removed the scratch folder. Returns only when this thread won; may
// be called again by the same thread.
void end_the_run_here();

}  // namespace grade
