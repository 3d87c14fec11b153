// The lab program's side of the grader's protocol (common/protocol.h): run the student's
// launcher on the cases in a folder and write back what came out.
#pragma once

#include <string>

#include "harness/launcher.h"

namespace lab {

// Runs every case of DIR/cases.txt. Returns the exit code: 0 when all cases ran (whatever
// their results), 1 when the student's code failed with a CUDA error (the rest cannot run
// after it), 2 when the folder cannot be read.
int serve(const Launcher& launcher, const std::string& dir);

}  // namespace lab
