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

}  // namespace grade
