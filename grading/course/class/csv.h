// CSV as spreadsheets and LMS imports read it (RFC 4180): fields separated by commas, a field
// holding a comma, a quote or a line break quoted, its quotes doubled. The gradebook is written
// with it and the roster read with it, so that a name such as `O'Brien, "Jo"` survives both ways.
#pragma once

#include <string>
#include <vector>

namespace grade {

// One record, ended by "\r\n" (RFC 4180's line break). A field that a spreadsheet would take for
// a formula (it starts with = + - @) gets a leading apostrophe: a student's name is never run.
std::string csv_record(const std::vector<std::string>& fields);

// The records of TEXT (a header included, blank lines skipped). False, with the line in *error,
// when a quoted field never ends.
bool parse_csv(const std::string& text, std::vector<std::vector<std::string>>* records, std::string* error);

}  // namespace grade
