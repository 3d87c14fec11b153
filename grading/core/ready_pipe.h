// The pipe through which a timed pass's program, its inputs on the GPU, asks for the GPU alone
// and waits for it (harness/serve.cpp reads LAB_GPU_TURN; grading/core/case_runs.cpp answers): a
// FIFO in the run's folder. The program's open for reading is what asked() sees (an open for
// writing that does not block finds a reader); closing that end, go(), lets the program's read
// return. The folder is the student's, so a file put in the FIFO's place is never taken for it:
// the FIFO made here is known by its inode, and links are not followed.
#pragma once

#include <sys/types.h>

#include <string>

namespace grade {

class ReadyPipe {
 public:
  // Makes the FIFO at PATH; throws CannotGrade when it cannot.
  explicit ReadyPipe(const std::string& path);
  ~ReadyPipe();
  ReadyPipe(const ReadyPipe&) = delete;
  ReadyPipe& operator=(const ReadyPipe&) = delete;

  const std::string& path() const { return path_; }
  // Whether the program has opened the pipe and waits; true once, and never after go().
  bool asked();
  // Lets a waiting program go on, and asks no more.
  void go();

 private:
  std::string path_;
  dev_t dev_ = 0;
  ino_t ino_ = 0;
  int fd_ = -1;  // the writing end, from asked() to go()
  bool done_ = false;
};

}  // namespace grade
