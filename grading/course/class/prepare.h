// A student's entry made ready for the grader, or the clear reason it cannot be: a folder with
// the labs' layout (found at most three folders down: alice/labs/01_matmul_naive), unpacked
// first when it is an archive, or, without lab folders, the lab files themselves wherever they
// lie (matmul_naive.cu at the top, as a Gradescope upload of single files lands), copied into
// the labs' layout; and notes on what in it the grader will refuse or ignore (a link out of it,
// a huge file, an odd name, a lab folder missing), for the gradebook.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "common/labs.h"
#include "grading/course/class/roster.h"

namespace grade {

struct Prepared {
  std::string status;              // "" when there is something to grade, else "missing", "empty", ...
  std::string root;                // the folder to grade: it holds the lab folders
  std::string top;                 // the entry itself, unpacked if an archive: root is in it
  std::vector<std::string> notes;  // printable
};

// Prepares S's entry, unpacking an archive into UNPACK_DIR (removed first) and copying loose lab
// files into arranged/ beside it (removed first); LABS: those graded.
Prepared prepare_submission(const Student& s, const std::string& unpack_dir, const std::vector<lab::LabEntry>& labs);

// The folder at most three levels under TOP (TOP first, then by depth, each level in name
// order) for which FITS holds; "" if none. Links are not followed.
std::string nearest_folder(const std::filesystem::path& top, const std::function<bool(const std::filesystem::path&)>& fits);

// A fingerprint of what the grader will read of ROOT: each lab's file, by name and bytes
// (FNV-1a, 16 hex digits). A student whose fingerprint, seed and rubric are unchanged is done.
std::string lab_files_fingerprint(const std::string& root, const std::vector<lab::LabEntry>& labs);

}  // namespace grade
