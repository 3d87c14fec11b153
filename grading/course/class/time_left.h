// make grade-class's estimate of the time left, for its progress line. A student kept from an
// earlier run (unchanged since) takes no time, so the pace is the time over the students graded
// in this run, not over every student done: on a resumed run, dividing by all of them made the
// estimate too low by the ratio of the two (the last part of the H100 class of 100 printed
// "[94/100] ... about 5 s left" with six students, some two minutes, to go). The kept students
// of a resumed run come first (students are taken in order), so the ones left are all to grade
// and the estimate is their count at that pace; where kept ones remain, it is an upper bound.
#pragma once

#include <cstddef>

namespace grade {

// Seconds left after ELAPSED_S seconds, GRADED of the DONE students graded in this run (the rest
// kept), TOTAL students in all; 0 until one has been graded (no pace to go by).
inline double seconds_left(double elapsed_s, size_t graded, size_t done, size_t total) {
  if (graded == 0 || done >= total) return 0;
  return elapsed_s / double(graded) * double(total - done);
}

}  // namespace grade
