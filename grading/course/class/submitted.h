// When a student handed each lab in, for the late policy (grading/core/late.h): the time an LMS's
// export records, else the lab file's own modification time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/labs.h"

namespace grade {

// The time each of LABS was handed in (seconds since 1970, -1 when its file is missing): the
// `created_at` of a Gradescope submission_metadata.json in TOP (the entry) or ROOT (the folder
// of its labs), the same for every lab, when there is one that reads; else each lab file's
// modification time (an archive's files keep their entry's time when unpacked).
std::vector<int64_t> submission_times(const std::string& top, const std::string& root, const std::vector<lab::LabEntry>& labs);

// What the import of an LMS's download (grading/course/class/download.h) knows of a student, kept
// in the student's folder as kDownloadRecord, a name the import keeps for itself (a student's own
// file of that name is left out). Read only from a folder the import wrote.
constexpr const char* kDownloadRecord = "lms-download.json";
struct DownloadRecord {
  bool found = false;
  std::string source;      // "Canvas" or "Gradescope"
  std::string name;        // the student's name in the download
  std::string canvas_id;   // Canvas's user id
  std::string created_at;  // Gradescope's time of the submission, as it wrote it; "" for none (Canvas gives none)
  bool late = false;       // Canvas marks the submission late (LATE in its file names)
  std::vector<std::string> notes;  // what the import left out or chose, printable
};

std::string download_record_json(const DownloadRecord& record);
DownloadRecord read_download_record(const std::string& folder);

// The time each of LABS handed in under ROOT was handed in, by the download's RECORD: its
// created_at, the same for every lab; -1 for each when it has none (the files' own times are
// those of the import, not of the hand-in). -1 too for a lab whose file is missing.
std::vector<int64_t> recorded_times(const DownloadRecord& record, const std::string& root, const std::vector<lab::LabEntry>& labs);

}  // namespace grade
