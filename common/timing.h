// Timing GPU work the way benchmarks should: CUDA events around each repetition, warm-up
// runs first (module loading, first-touch costs), the L2 cache flushed before every
// repetition (so each one reads its inputs from device memory, not from a cache the previous
// repetition filled), and the median over repetitions, which one slow outlier cannot move.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace lab {

struct Timing {
  std::vector<double> ms;  // each repetition, in the order run
  double median = 0, min = 0, max = 0;
  std::string describe() const;  // "29.81 ms median (29.70 to 30.02 over 10 runs)"
};

// The workbook's defaults on a GPU, wherever something is timed (the lab programs, the grader,
// make run's comparison, make bench): untimed runs first, then timed ones.
constexpr int kWarmupRuns = 3;
constexpr int kTimedRuns = 20;

// Runs `work` warmup + reps times and times the last reps ones. `work` must only enqueue
// device work on the default stream (a launcher does).
Timing time_on_device(const std::function<void()>& work, int reps, int warmup);

// Summary statistics of a list of times (time_on_device, the grader, tests): host code, in
// common/timing_stats.cpp.
Timing summarize(std::vector<double> ms);

}  // namespace lab
