// The build folder the grader keeps between runs (build/grade-build, or --build-dir): what does
// not change from run to run (the lab programs' parts, the solutions' programs) is built once,
// and a student's unchanged file is not compiled again. It is safe to keep because a student's
// build may write only its own folders in it (Sandbox::wrap_build) and student programs write
// nothing there; it is emptied when the grader or its makefiles change, which make's own rules
// do not see.
#pragma once

#include <string>

namespace grade {

// Makes FOLDER ready for this run's builds: emptied first when STAMP (a fingerprint of the grader
// and the makefiles) differs from the stamp it was left with. False, with the reason in *error,
// when it cannot be made or emptied, or when it holds files but no stamp (not a folder the
// grader made, which it never empties).
bool prepare_build_folder(const std::string& folder, const std::string& stamp, std::string* error);

// Holds FOLDER's lock while it lives: graders that share a build folder build one at a time
// (their runs may overlap, since runs only read the folder). Says so when it has to wait.
class BuildLock {
 public:
  explicit BuildLock(const std::string& folder);
  ~BuildLock();
  BuildLock(const BuildLock&) = delete;
  BuildLock& operator=(const BuildLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace grade
