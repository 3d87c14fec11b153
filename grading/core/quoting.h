// Text from a student program or a tool, made safe and short enough to print in a report.
#pragma once

#include <string>
#include <vector>

namespace grade {

// Control characters dropped, long output cut, every line indented.
std::vector<std::string> quote_output(const std::string& text, size_t max_lines = 12);

// The lines of a tool's report worth showing: those naming the student's FILE, or holding one of
// MARKERS; quoted.
std::vector<std::string> report_lines(const std::string& output, const std::string& file,
                                      const std::vector<std::string>& markers, size_t max_lines = 10);

// The text up to its first newline.
std::string first_line(const std::string& text);

}  // namespace grade
