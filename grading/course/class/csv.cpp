#include "grading/course/class/csv.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "tools/text.h"

namespace grade {

std::string csv_record(const std::vector<std::string>& fields) {
  std::string line;
  for (size_t i = 0; i < fields.size(); ++i) {
    std::string field = fields[i];
    if (!field.empty() && std::string("=+-@").find(field[0]) != std::string::npos && field.find_first_not_of("0123456789.-") != std::string::npos) {
      field = "'" + field;
    }
    if (i > 0) line += ',';
    if (field.find_first_of(",\"\r\n") == std::string::npos) {
      line += field;
      continue;
    }
    line += '"';
    for (char c : field) line += c == '"' ? std::string("\"\"") : std::string(1, c);
    line += '"';
  }
  return line + "\r\n";
}

bool parse_csv(const std::string& text, std::vector<std::vector<std::string>>* records, std::string* error) {
  records->clear();
  std::vector<std::string> record;
  std::string field;
  bool quoted = false, was_quoted = false;
  int line = 1, quote_line = 0;
  auto end_record = [&] {
    if (!record.empty() || !field.empty() || was_quoted) {
      record.push_back(field);
      records->push_back(record);
    }
    record.clear();
    field.clear();
    was_quoted = false;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (quoted) {
      if (c != '"') field += c;
      else if (i + 1 < text.size() && text[i + 1] == '"') field += text[++i];
      else quoted = false;
    } else if (c == '"') {
      quoted = was_quoted = true;
      quote_line = line;
    } else if (c == ',') {
      record.push_back(field);
      field.clear();
      was_quoted = false;
    } else if (c == '\n') {
      end_record();
    } else if (c != '\r') {
      field += c;
    }
  }
  if (quoted) {
    *error = "line " + std::to_string(quote_line) + ": a quoted field never ends";
    return false;
  }
  end_record();
  return true;
}

std::string CsvTable::field(const std::vector<std::string>& record, const std::string& name) const {
  const auto c = column.find(name);
  return c != column.end() && c->second < record.size() ? tools::trim(record[c->second]) : std::string();
}

bool read_csv_table(const std::string& path, const std::string& what, const std::map<std::string, std::string>& aliases,
                    CsvTable* table, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return *error = "cannot read " + what + " " + path, false;
  std::stringstream text;
  text << in.rdbuf();
  std::vector<std::vector<std::string>> records;
  if (!parse_csv(text.str(), &records, error)) return *error = path + ": " + *error, false;
  if (records.empty()) return *error = path + ": " + what + " is empty: it needs a header naming its columns", false;
  table->column.clear();
  for (size_t i = 0; i < records[0].size(); ++i) {
    std::string name = tools::trim(records[0][i]);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    const auto alias = aliases.find(name);
    table->column[alias != aliases.end() ? alias->second : name] = i;
  }
  table->records.assign(records.begin() + 1, records.end());
  return true;
}

}  // namespace grade
