#include "grading/course/class/download.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "grading/course/class/download_entries.h"
#include "grading/course/class/download_names.h"

namespace grade {

// The import's own parts (download_entries.h, download_names.h). Each LMS's import is a file of
// its own: download_gradescope.cpp, download_canvas.cpp.
using namespace download;

namespace fs = std::filesystem;

bool download_kind(const std::string& path, DownloadKind* kind, std::string* error) {
  *kind = DownloadKind::none;
  std::error_code ec;
  const bool folder = fs::is_directory(path, ec);
  const bool zip = !folder && fs::is_regular_file(path, ec) && lower(path).size() > 4 && lower(path).compare(path.size() - 4, 4, ".zip") == 0;
  if (!folder && !zip) return true;
  // Gradescope's has its index beside its submission_<id> folders, at the top or in the one
  // folder at the top (a student's file of that name lies in their own folder); Canvas's is flat files named as it names them: a zip with any, a folder
  // of flat files with most (a folder of students' archives, alice.zip, is a class folder).
  std::set<std::string> top, in_top;  // the names at the top, and in a folder at the top
  size_t files = 0, named = 0;
  bool nested = false;
  std::string listing_error;
  const bool listed = each_entry(path, DownloadLimits{}.entries, [&](const Entry& e, const ReadData&) {
    if (mac_noise(e.name)) return true;
    const std::string name = e.type == Entry::folder && !e.name.empty() && e.name.back() == '/' ? e.name.substr(0, e.name.size() - 1) : e.name;
    const size_t slash = name.find('/');
    top.insert(name.substr(0, slash));
    if (slash != std::string::npos) in_top.insert(name.substr(0, name.find('/', slash + 1)));
    if (e.type != Entry::file || slash != std::string::npos) {
      nested = true;
      return true;
    }
    ++files;
    named += !read_canvas_file_name(name).empty();
    return true;
  }, &listing_error);
  // An export's level: the index beside submission folders.
  auto export_level = [](const std::set<std::string>& names, const std::string& prefix) {
    return names.count(prefix + "submission_metadata.yml") != 0 &&
           std::any_of(names.begin(), names.end(), [&](const std::string& n) { return submission_folder(n.substr(prefix.size())); });
  };
  const bool index = export_level(top, "") || (top.size() == 1 && export_level(in_top, *top.begin() + "/"));
  if (!listed) return !zip || (*error = "the download " + path + " " + listing_error, false);
  if (index) *kind = DownloadKind::gradescope;
  else if (zip ? named > 0 : named * 2 > files && !nested) *kind = DownloadKind::canvas;
  else if (zip) {
    return *error = "the .zip " + path + " is neither a Canvas download (files named name_userid_fileid_file) nor a Gradescope "
                    "export (submission_metadata.yml and submission_<id>/ folders); a class is a folder of one entry per student",
           false;
  }
  return true;
}

bool import_download(const std::string& path, DownloadKind kind, const std::vector<Student>& roster, const std::vector<lab::LabEntry>& labs,
                     const std::string& dest, Imported* imported, std::string* error, const DownloadLimits& limits) {
  *imported = Imported();
  imported->kind = kind;
  imported->folder = dest + "/students";
  std::error_code ec;
  fs::remove_all(dest + "/students", ec);
  fs::remove_all(dest + "/scratch", ec);
  fs::create_directories(dest + "/students", ec);
  if (ec) return *error = "cannot make " + dest + "/students: " + ec.message(), false;
  const bool ok = kind == DownloadKind::gradescope ? import_gradescope(path, roster, limits, imported->folder, imported, error)
                  : kind == DownloadKind::canvas   ? import_canvas(path, roster, labs, limits, dest, imported, error)
                                                   : (*error = "is no download", false);
  fs::remove_all(dest + "/scratch", ec);
  if (!ok) {
    *error = "the " + std::string(kind == DownloadKind::canvas ? "Canvas download " : "Gradescope export ") + path + " " + *error;
    fs::remove_all(dest + "/students", ec);
  }
  return ok;
}

}  // namespace grade
