// CSV as spreadsheets and LMS imports read it (RFC 4180): fields separated by commas, a field
// holding a comma, a quote or a line break quoted, its quotes doubled. The gradebook is written
// with it and the roster read with it, so that a name such as `O'Brien, "Jo"` survives both ways.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace grade {

// One record, ended by "\r\n" (RFC 4180's line break). A field that a spreadsheet would take for
// a formula (it starts with = + - @) gets a leading apostrophe: a student's name is never run.
std::string csv_record(const std::vector<std::string>& fields);

// The records of TEXT (a header included, blank lines skipped). False, with the line in *error,
// when a quoted field never ends.
bool parse_csv(const std::string& text, std::vector<std::vector<std::string>>* records, std::string* error);

// A CSV file an instructor writes (the roster, the overrides): a header naming the columns, in
// any order and case, then the records.
struct CsvTable {
  std::vector<std::vector<std::string>> records;  // after the header
  std::map<std::string, size_t> column;           // a column's place, by its name in lower case
  bool has(const std::string& name) const { return column.count(name) != 0; }
  // The record's field in column NAME, trimmed; "" when the record or the header lacks it.
  std::string field(const std::vector<std::string>& record, const std::string& name) const;
};

// Reads the CSV file at PATH, WHAT ("the roster") in its messages; a header name found in
// ALIASES counts as the name it maps to (sid -> id). False, with the reason in *error, when the
// file cannot be read or parsed, or has no header.
bool read_csv_table(const std::string& path, const std::string& what, const std::map<std::string, std::string>& aliases,
                    CsvTable* table, std::string* error);

}  // namespace grade
