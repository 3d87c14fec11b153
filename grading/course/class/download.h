// An LMS's download of a whole assignment, made into the class folder make grade-class grades (a
// folder per student, named by their id). Two downloads are read, as a .zip or unzipped into a
// folder:
//
// - Canvas's "Download Submissions": flat files, each "<name>_<user id>_<file id>_<file name>"
//   (a student who uploaded three files has three), where <name> is the student's sorting name
//   in lower case without spaces or punctuation, followed by "_late" when Canvas counts the
//   submission late; a file handed in again is renamed with -1, -2 before its extension. The zip
//   holds no time: "late" is all there is. A lab file ("matmul_naive.cu", or "matmul_naive-2.cu")
//   goes to its lab's folder; an archive (.zip, .tar, .tar.gz, .tgz) is unpacked into
//   upload-<file id>/; anything else is left out, with a note.
// - Gradescope's "Export Submissions": a folder per submission, submission_<id>/, holding what was
//   uploaded, and submission_metadata.yml (grading/course/class/gradescope_yml.h) naming its
//   students (name, sid, email) and its time, which the late policy takes. A group submission is
//   given to each of its students.
//
// Each student's folder gets a record of what the download says of them (submitted.h's
// kDownloadRecord: the name, Canvas's user id, the time or the late mark, what was left out).
// Nothing is written outside the destination folder: the download's names choose no path but a
// Gradescope file's place inside its student's folder, checked as an archive's entry is
// (archive.h); lab files go by their lab's name, archives are unpacked by archive.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/labs.h"
#include "grading/course/class/roster.h"

namespace grade {

enum class DownloadKind { none, canvas, gradescope };

// What PATH is: a Canvas or a Gradescope download (a .zip, or the folder it unzips to), or none
// (a folder of one entry per student, or anything else). False, with the reason in *error, for a
// .zip that cannot be read or that neither LMS made.
bool download_kind(const std::string& path, DownloadKind* kind, std::string* error);

// A Canvas download's file name, read.
struct CanvasFileName {
  std::string student;  // "smithbob"; "" when the download leaves names out
  bool late = false;
  std::string user_id, file_id;
  std::string file;  // the name the student uploaded it under, "matmul_naive-1.cu"
};

// The readings of NAME as a Canvas file name, the likeliest first (a student's name or file may
// hold "_12_" too); none when it is not one.
std::vector<CanvasFileName> read_canvas_file_name(const std::string& name);

struct DownloadLimits {
  uint64_t file_bytes = 16u << 20;         // a file read (a lab file, an archive): a larger one is left out
  uint64_t metadata_bytes = 256u << 20;    // Gradescope's submission_metadata.yml
  uint64_t total_bytes = 2048ull << 20;    // every file read: past it the download is refused
  size_t entries = 200000;
};

struct Imported {
  DownloadKind kind = DownloadKind::none;
  std::string folder;  // DEST/students
  size_t students = 0, files = 0, late = 0;
  std::vector<std::string> not_on_roster;  // ids of the download's students the roster lacks
  std::vector<std::string> notes;          // what of the download was left out, and why (printable)
};

// Imports the download at PATH (KIND's) into DEST/students, emptied first: a folder per student,
// named by their id in ROSTER (matched by Canvas's user id: the roster's canvas_id, else its id;
// for Gradescope by the sid as the roster's id, else by email), else by their Canvas user id, or
// Gradescope sid, email or submission folder; in it their lab files as the labs' layout has them
// and the record. LABS: the table's, every lab (a lab file is known by its name). False, with the
// reason in *error (DEST/students removed), when the download cannot be read or is corrupt, is
// over LIMITS' total or entries, names a student twice, or has students of whom the ROSTER (when
// not empty) names none.
bool import_download(const std::string& path, DownloadKind kind, const std::vector<Student>& roster, const std::vector<lab::LabEntry>& labs,
                     const std::string& dest, Imported* imported, std::string* error, const DownloadLimits& limits = {});

// ---- Each LMS's import, which import_download picks between ----

// Gradescope's export at PATH into FOLDER, DEST/students (download_gradescope.cpp).
bool import_gradescope(const std::string& path, const std::vector<Student>& roster, const DownloadLimits& limits,
                       const std::string& folder, Imported* out, std::string* error);

// Canvas's download at PATH into DEST/students, through DEST/scratch, which it makes and its
// caller removes (download_canvas.cpp).
bool import_canvas(const std::string& path, const std::vector<Student>& roster, const std::vector<lab::LabEntry>& labs,
                   const DownloadLimits& limits, const std::string& dest, Imported* out, std::string* error);

}  // namespace grade
