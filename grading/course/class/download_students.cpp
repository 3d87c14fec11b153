// The students an LMS's download names (download_students.h).
#include "grading/course/class/download_students.h"

#include <filesystem>

#include "grading/course/class/archive.h"
#include "grading/course/class/download_names.h"

namespace grade::download {

namespace fs = std::filesystem;

std::string pick_id(const std::vector<std::pair<std::string, std::string>>& candidates, std::vector<std::string>* notes) {
  for (const auto& [what, id] : candidates) {
    if (id.empty()) continue;
    if (usable_folder_name(id)) return id;
    notes->push_back("the " + what + " '" + printable(id) + "' cannot name a folder (a / or a control character, a leading dot, or an "
                     "archive's ending): not used as the id");
  }
  return "";
}

bool make_folders(Students& students, const std::string& folder, std::string* error) {
  for (const auto& [id, f] : students.all()) {
    std::error_code ec;
    fs::create_directories(folder + "/" + id, ec);
    if (ec) return *error = "cannot make " + folder + "/" + printable(id) + ": " + ec.message(), false;
  }
  return true;
}

bool write_records(Students& students, bool roster, const std::string& folder, Imported* out, std::string* error) {
  for (auto& [id, f] : students.all()) {
    std::string why;
    if (write_new_file(folder + "/" + id, kDownloadRecord, download_record_json(f.record), nullptr, &why) != NewFile::written) {
      return *error = "cannot write " + folder + "/" + printable(id) + "/" + kDownloadRecord + ": " + why, false;
    }
    if (!f.on_roster && roster) out->not_on_roster.push_back(id);
    out->late += f.record.late;
  }
  out->students = students.all().size();
  return true;
}

}  // namespace grade::download
