// A user of its own for each grading's student code. A grader that is root runs student
// processes as another user (grading/core/sandbox.h), and a process may signal every process of its
// user and read its files: where gradings run at once on one machine (make grade-class runs one
// per core or GPU, Slurm may give one node two of its tasks, two make grade runs), a student's
// program run as the user of another grading's could kill that grading's runs (`kill -KILL -1`),
// the solution's among them, or read its folders. Within one grading, grading/core/turns.h keeps a
// student's program from running beside the solution's.
//
// So each grading takes a uid of a pool for its whole life: 65534 (nobody) first, then 65533,
// 65532 ... that neither a passwd nor a group entry names (Debian reserves 65000-65533 and gives
// none of them out), 256 in all. It holds the uid by an flock on the uid's lock file in
// /run/workbook-grade, a folder only root may write (in /run/lock, which anyone may write, a
// student could make and hold the lock of another grading's uid). The kernel lets go of the lock
// when the grader's process ends, however it ends.
#pragma once

#include <memory>
#include <string>

namespace grade {

constexpr unsigned kStudentUidPoolSize = 256;

// The folder of this machine's grading locks (the pool's uids, the GPUs' turns), made if missing:
// /run/workbook-grade for root, a folder in /tmp of the user's alone for another user. Throws
// CannotGrade when it cannot be made, or when others may write it.
std::string machine_lock_folder();

class StudentUid {
 public:
  // The first free uid of the pool, this object's for as long as it lives; null when every one
  // is taken. A uid that a live process runs as is not free: a leftover of a grading killed
  // with kill -9, or a daemon that runs as nobody, could attack the grading that took it.
  // Throws CannotGrade when the folder of the lock files cannot be made or is not root's alone.
  static std::unique_ptr<StudentUid> try_take();
  // The same, waiting while every uid is taken, and saying so once: gradings end within their
  // time limits, and a grader that gave up would cost its student the grading (make grade-class
  // on a machine of more than 256 cores runs more graders than that).
  static std::unique_ptr<StudentUid> take();

  ~StudentUid();
  StudentUid(const StudentUid&) = delete;
  StudentUid& operator=(const StudentUid&) = delete;

  unsigned uid() const { return uid_; }

 private:
  StudentUid(unsigned uid, int fd) : uid_(uid), fd_(fd) {}

  unsigned uid_;
  int fd_;  // the lock file, open (and locked) while the uid is this object's
};

}  // namespace grade
