// A failure of the grader's own (a file it cannot read or write, a fence it cannot set up): the
// run cannot grade, exits 2 and says why, rather than blaming the student.
#pragma once

#include <stdexcept>

namespace grade {

struct CannotGrade : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace grade
