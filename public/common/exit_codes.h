// What a lab program's exit status means, for students, scripts and the grader alike.
#pragma once

namespace lab {

enum ExitCode : int {
  kExitPass = 0,       // the result was checked and is correct
  kExitWrong = 1,      // the result is wrong, or the student's code failed (bad launch, crash)
  kExitCannotRun = 2,  // nothing could be checked: bad arguments, no GPU, out of memory
};

}  // namespace lab
