// The students an LMS's download names, as its import (download.h) finds them: each by the id
// that names their folder, with the record of what the download says of them, made into their
// folders. The import's own (download*.cpp), in a namespace of its own.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "grading/course/class/download.h"
#include "grading/course/class/submitted.h"

namespace grade::download {

// A student of the download: where their folder is, and what their record will say.
struct Found {
  std::string id;
  std::vector<std::string> sources;  // where in the download, for messages ("submission_1", "user 123")
  DownloadRecord record;
  bool on_roster = false;
};

// The students by their ids; false with *error when two of the download's come out as one.
class Students {
 public:
  bool add(const std::string& id, const std::string& source, const DownloadRecord& record, bool on_roster, std::string* error) {
    Found& f = by_id_[id];
    if (!f.id.empty()) {
      return *error = "names student " + printable(id) + " twice (" + f.sources.front() + " and " + source +
                      "): a download holds each student once; check the students' ids in the LMS's roster", false;
    }
    f.id = id;
    f.sources.push_back(source);
    f.record = record;
    f.on_roster = on_roster;
    return true;
  }
  Found& operator[](const std::string& id) { return by_id_.at(id); }
  std::map<std::string, Found>& all() { return by_id_; }

 private:
  std::map<std::string, Found> by_id_;
};

// The first of CANDIDATES that can name a folder, with a note for each passed over.
std::string pick_id(const std::vector<std::pair<std::string, std::string>>& candidates, std::vector<std::string>* notes);

// Makes FOLDER/ID for every student.
bool make_folders(Students& students, const std::string& folder, std::string* error);

// Writes each student's record into their folder, and counts them into OUT.
bool write_records(Students& students, bool roster, const std::string& folder, Imported* out, std::string* error);

}  // namespace grade::download
