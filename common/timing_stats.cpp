// The summary of a list of times: host code, so that the grader (which runs no GPU code)
// summarizes the times a lab program reports the same way the lab program does.
#include <algorithm>
#include <cstdio>

#include "timing.h"

namespace lab {

std::string Timing::describe() const {
  char text[160];
  snprintf(text, sizeof text, "%.3f ms median (%.3f to %.3f over %zu run%s)", median, min, max,
           ms.size(), ms.size() == 1 ? "" : "s");
  return text;
}

Timing summarize(std::vector<double> ms) {
  Timing t;
  t.ms = ms;
  if (ms.empty()) return t;
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();
  t.median = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  t.min = ms.front();
  t.max = ms.back();
  return t;
}

}  // namespace lab
