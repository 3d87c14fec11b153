#include "grading/course/class/roster.h"

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>

#include "grading/course/class/archive.h"
#include "grading/course/class/csv.h"
#include "grading/course/class/hash.h"
#include "grading/core/utf8.h"

namespace grade {

namespace fs = std::filesystem;

std::string printable(const std::string& text) {
  std::string out;
  for (unsigned char c : valid_utf8(text)) {
    if (c >= 0x20 && c != 0x7F) {
      out += char(c);
      continue;
    }
    char esc[8];
    std::snprintf(esc, sizeof esc, "\\x%02X", c);
    out += esc;
  }
  return out;
}

std::string student_slug(const std::string& id) {
  std::string slug;
  for (unsigned char c : id) {
    if (slug.size() < 40 && (std::isalnum(c) || c == '.' || c == '-' || c == '_') && c < 0x80) slug += char(c);
  }
  if (slug.empty() || slug[0] == '.') slug = "s" + slug;
  return slug + "-" + hex16(fnv1a(id));
}

bool read_roster(const std::string& path, std::vector<Student>* roster, std::string* error) {
  CsvTable table;
  if (!read_csv_table(path, "the roster", {{"sid", "id"}, {"student_id", "id"}, {"canvas user id", "canvas_id"}}, &table, error)) {
    return false;
  }
  if (!table.has("id")) return *error = path + ": its header names no id column (id, sid or student_id)", false;
  roster->clear();
  for (size_t i = 0; i < table.records.size(); ++i) {
    Student s;
    s.id = table.field(table.records[i], "id");
    if (s.id.empty()) return *error = path + ": record " + std::to_string(i + 2) + " has no id", false;
    s.name = table.field(table.records[i], "name");
    s.nickname = table.field(table.records[i], "nickname");
    s.canvas_id = table.field(table.records[i], "canvas_id");
    s.email = table.field(table.records[i], "email");
    s.on_roster = true;
    roster->push_back(s);
  }
  return true;
}

// The id of a submission entry: its name, without an archive's ending.
std::string entry_id(const std::string& name) {
  for (const char* end : {".tar.gz", ".tgz", ".zip", ".tar"}) {
    const std::string e = end;
    if (name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0) return name.substr(0, name.size() - e.size());
  }
  return name;
}

bool list_students(const std::string& submissions, const std::vector<Student>& roster, std::vector<Student>* students,
                   std::string* error) {
  std::map<std::string, Student> by_id;
  for (const Student& s : roster) by_id[s.id] = s;
  std::error_code ec;
  for (fs::directory_iterator it(submissions, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    Student& s = by_id[entry_id(name)];
    s.id = entry_id(name);
    // Two entries of one id (alice/ and alice.zip): the folder is graded.
    if (s.entry.empty() || !is_archive(name)) s.entry = it->path().string();
  }
  if (ec) return *error = "cannot list the submissions folder " + submissions + ": " + ec.message(), false;
  students->clear();
  for (auto& [id, s] : by_id) {
    s.slug = student_slug(id);
    students->push_back(s);
  }
  return true;
}

}  // namespace grade
