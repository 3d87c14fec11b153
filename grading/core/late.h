// The late policy of make grade-class: a lab's due time (the rubric's `due`), the class's penalty
// rule (`late.per_day`, `late.max`, `late.grace_minutes`) and its arithmetic. A lab handed in
// more than the grace after its due time loses per_day percent of its points for each day
// begun since the due time, at most max percent: with 10 a day, at most 50, and 15 minutes'
// grace, 10 minutes late takes nothing, 16 minutes to 24 hours 10 %, 49 hours 30 %, a week 50 %.
// The grader itself grades as if on time; only the gradebook applies this.
#pragma once

#include <cstdint>
#include <string>

namespace grade {

struct LatePolicy {
  double per_day = 10;       // percent of a lab's points taken per day begun past due
  double max = 100;          // percent, at most
  double grace_minutes = 0;  // a submission this late still counts as on time
};

// "2026-12-01 23:59 +01:00", "2026-12-01T23:59:30Z" (seconds optional, a zone required: a due
// time read in the machine's zone would differ between machines) as seconds since 1970 (UTC).
bool parse_time(const std::string& text, int64_t* seconds);

// SECONDS as "2026-12-01 22:59:00 UTC".
std::string utc_text(int64_t seconds);

// Whole days begun between DUE and SUBMITTED; 0 when on time or within the grace.
int64_t days_late(int64_t submitted, int64_t due, const LatePolicy& policy);

// POINTS less the penalty for DAYS late.
double late_points(double points, int64_t days, const LatePolicy& policy);

}  // namespace grade
