#include "grading/core/late.h"

#include <algorithm>
#include <cctype>
#include <ctime>

namespace grade {

namespace {

// Reads DIGITS digits of TEXT at *AT into *VALUE.
bool read_number(const std::string& text, size_t* at, int digits, int* value) {
  *value = 0;
  for (int i = 0; i < digits; ++i, ++*at) {
    if (*at >= text.size() || !std::isdigit(static_cast<unsigned char>(text[*at]))) return false;
    *value = *value * 10 + (text[*at] - '0');
  }
  return true;
}

bool read_char(const std::string& text, size_t* at, char c) {
  if (*at >= text.size() || text[*at] != c) return false;
  ++*at;
  return true;
}

// The zone at *AT: "Z", "UTC", "+01:00", "-0700"; *offset in seconds east of UTC.
bool read_zone(const std::string& text, size_t* at, int64_t* offset) {
  while (*at < text.size() && text[*at] == ' ') ++*at;
  const std::string rest = text.substr(*at);
  if (rest == "Z" || rest == "UTC") {
    *at = text.size();
    *offset = 0;
    return true;
  }
  if (rest.empty() || (rest[0] != '+' && rest[0] != '-')) return false;
  const int sign = rest[0] == '-' ? -1 : 1;
  ++*at;
  int hours = 0, minutes = 0;
  if (!read_number(text, at, 2, &hours)) return false;
  read_char(text, at, ':');
  if (!read_number(text, at, 2, &minutes) || hours > 14 || minutes > 59) return false;
  *offset = sign * (hours * 3600 + minutes * 60);
  return true;
}

}  // namespace

bool parse_time(const std::string& text, int64_t* seconds) {
  size_t at = 0;
  int year, month, day, hour, minute, second = 0;
  if (!read_number(text, &at, 4, &year) || !read_char(text, &at, '-') || !read_number(text, &at, 2, &month) ||
      !read_char(text, &at, '-') || !read_number(text, &at, 2, &day)) {
    return false;
  }
  if (!read_char(text, &at, 'T') && !read_char(text, &at, ' ')) return false;
  if (!read_number(text, &at, 2, &hour) || !read_char(text, &at, ':') || !read_number(text, &at, 2, &minute)) return false;
  if (read_char(text, &at, ':') && !read_number(text, &at, 2, &second)) return false;
  // Fractions of a second (an LMS's "14:22:32.365935-07:00") do not change a day's count.
  if (read_char(text, &at, '.')) {
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at]))) ++at;
  }
  int64_t offset = 0;
  if (!read_zone(text, &at, &offset) || at != text.size()) return false;
  std::tm t{};
  t.tm_year = year - 1900;
  t.tm_mon = month - 1;
  t.tm_mday = day;
  t.tm_hour = hour;
  t.tm_min = minute;
  t.tm_sec = second;
  const std::time_t utc = timegm(&t);
  // timegm moves 2026-02-30 to March: a date that is not one does not come back as written.
  if (t.tm_mon != month - 1 || t.tm_mday != day || hour > 23 || minute > 59 || second > 60) return false;
  *seconds = int64_t(utc) - offset;
  return true;
}

std::string utc_text(int64_t seconds) {
  const std::time_t t = std::time_t(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[40];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return text;
}

int64_t days_late(int64_t submitted, int64_t due, const LatePolicy& policy) {
  const int64_t late = submitted - due;
  if (late <= int64_t(policy.grace_minutes * 60)) return 0;
  return (late + 86399) / 86400;
}

double late_points(double points, int64_t days, const LatePolicy& policy) {
  const double percent = std::min(policy.max, policy.per_day * double(days));
  return points * (100 - percent) / 100;
}

}  // namespace grade
