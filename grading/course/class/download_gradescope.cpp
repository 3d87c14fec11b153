// The import of Gradescope's "Export Submissions" (download.h): its index,
// submission_metadata.yml, found and read first; each submitter given an id, and a folder; then
// each file of a submission copied into the folder of every student of it.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "grading/course/class/archive.h"
#include "grading/course/class/download.h"
#include "grading/course/class/download_entries.h"
#include "grading/course/class/download_names.h"
#include "grading/course/class/download_students.h"
#include "grading/course/class/gradescope_yml.h"
#include "grading/core/late.h"

namespace grade {

// The import's own parts (download_entries.h, download_names.h, download_students.h).
using namespace download;

namespace {

// The index first: the shallowest submission_metadata.yml (a student's file of that name lies
// deeper, in its submission's folder): its name in *INDEX_NAME, its text in *INDEX.
bool read_index(const std::string& path, const DownloadLimits& limits, std::string* index_name, std::string* index,
                std::string* error) {
  std::string yml_name, yml, data;
  bool twice = false;
  const bool listed = each_entry(path, limits.entries, [&](const Entry& e, const ReadData& read) {
    if (e.type != Entry::file || mac_noise(e.name) || base_name(e.name) != "submission_metadata.yml") return true;
    if (!yml_name.empty() && depth_of(e.name) >= depth_of(yml_name)) {
      twice = twice || depth_of(e.name) == depth_of(yml_name);
      return true;
    }
    const Read r = read(limits.metadata_bytes, &data);
    if (r == Read::too_big) *error = printable(e.name) + " is over " + std::to_string(limits.metadata_bytes >> 20) + " MiB";
    if (r == Read::unreadable) *error = printable(e.name) + " cannot be read";
    yml_name = e.name;
    yml = data;
    twice = false;
    return r == Read::ok;
  }, error);
  if (!listed) return false;
  if (yml_name.empty()) return *error = "holds no submission_metadata.yml, the index of a Gradescope export", false;
  if (twice) return *error = "holds two submission_metadata.yml beside each other: which one is the export's?", false;
  *index_name = yml_name;
  *index = yml;
  return true;
}

// Each submitter's id: the roster's (by sid as its id, else by email), else theirs; into
// STUDENTS, and each submission's folder with its students' ids into IDS_OF.
bool find_submitters(const std::vector<GradescopeSubmission>& submissions, const std::vector<Student>& roster, Students& students,
                     std::map<std::string, std::vector<std::string>>& ids_of, Imported* out, std::string* error) {
  std::map<std::string, const Student*> by_id, by_email;
  for (const Student& s : roster) {
    by_id[s.id] = &s;
    if (!s.email.empty() && !by_email.emplace(lower(s.email), &s).second) {
      return *error = "the roster gives the email " + printable(s.email) + " to two students", false;
    }
  }
  size_t matched = 0, submitters = 0;
  for (const GradescopeSubmission& sub : submissions) {
    int64_t seconds = 0;
    std::vector<std::string> notes;
    if (!sub.created_at.empty() && !parse_time(sub.created_at, &seconds)) {
      notes.push_back("Gradescope's time of the submission, '" + printable(sub.created_at) + "', does not read as a time: no late "
                      "penalty applies");
    }
    if (sub.created_at.empty()) notes.push_back("Gradescope gives no time for the submission: no late penalty applies");
    ids_of[sub.folder];  // listed, though it may name no student
    if (sub.submitters.empty()) out->notes.push_back(sub.folder + ": left out, submission_metadata.yml names no student for it");
    for (const GradescopeSubmitter& who : sub.submitters) {
      ++submitters;
      const Student* known = !who.sid.empty() && by_id.count(who.sid) ? by_id[who.sid]
                             : !who.email.empty() && by_email.count(lower(who.email)) ? by_email[lower(who.email)]
                                                                                      : nullptr;
      DownloadRecord r;
      r.found = true;
      r.source = "Gradescope";
      r.name = who.name;
      r.created_at = notes.empty() ? sub.created_at : "";
      r.notes = notes;
      for (const GradescopeSubmitter& other : sub.submitters) {
        if (&other != &who) r.notes.push_back("a group submission, with " + printable(other.name.empty() ? other.sid : other.name));
      }
      const std::string id = pick_id({{"roster's id", known != nullptr ? known->id : ""}, {"SID", who.sid}, {"email", who.email},
                                      {"submission folder", sub.folder}},
                                     &r.notes);
      if (!students.add(id, sub.folder, r, known != nullptr, error)) return false;
      ids_of[sub.folder].push_back(id);
      matched += known != nullptr;
    }
  }
  if (!roster.empty() && submitters > 0 && matched == 0) {
    return *error = "names none of the roster's students: a roster's id is matched with the download's SID, and an email column "
                    "with its email",
           false;
  }
  return true;
}

// The files, each into the folder of every student of its submission (IDS_OF: a submission's
// folder to its students' ids); what lies in no submission of the index is left out, noted.
bool copy_files(const std::string& path, const DownloadLimits& limits, const std::string& yml_name,
                const std::map<std::string, std::vector<std::string>>& ids_of, const std::string& folder, Students& students,
                Imported* out, std::string* error) {
  const std::string prefix = yml_name.substr(0, yml_name.size() - base_name(yml_name).size());
  std::string data;
  Budget budget{limits.total_bytes};
  std::set<std::string> unlisted;
  const bool copied = each_entry(path, limits.entries, [&](const Entry& e, const ReadData& read) {
    if (e.name == yml_name || e.type == Entry::folder || mac_noise(e.name)) return true;
    const std::string rel = e.name.compare(0, prefix.size(), prefix) == 0 ? e.name.substr(prefix.size()) : "";
    const size_t slash = rel.find('/');
    const std::string sub = slash == std::string::npos ? "" : rel.substr(0, slash);
    const auto owners = ids_of.find(sub);
    if (owners == ids_of.end()) {
      unlisted.insert(printable(sub.empty() ? e.name : sub));
      return true;
    }
    std::string why;
    std::string name = safe_relative_name(rel.substr(slash + 1), &why);
    if (name == kDownloadRecord) why = "the name of the import's own record", name.clear();
    if (name.empty() || e.type != Entry::file) {
      for (const std::string& id : owners->second) {
        students[id].record.notes.push_back(printable(rel.substr(slash + 1)) + ": left out, " + (name.empty() ? why : "not a plain file"));
      }
      return true;
    }
    const Read r = read(limits.file_bytes, &data);
    if (r == Read::corrupt) return false;
    if (r != Read::ok) {
      for (const std::string& id : owners->second) {
        students[id].record.notes.push_back(printable(name) + ": left out, " +
                                            (r == Read::too_big ? "over " + std::to_string(limits.file_bytes >> 20) + " MiB" : "cannot be read"));
      }
      return true;
    }
    if (!budget.take(data.size(), error)) return false;
    for (const std::string& id : owners->second) {
      const NewFile made = write_new_file(folder + "/" + id, name, data, nullptr, &why);
      if (made == NewFile::failed) return *error = why, false;
      if (made == NewFile::not_made) students[id].record.notes.push_back(printable(name) + ": left out, " + why);
      out->files += made == NewFile::written;
    }
    return true;
  }, error);
  if (!copied) return false;
  for (const std::string& u : unlisted) out->notes.push_back(u + ": left out, not a submission submission_metadata.yml lists");
  return true;
}

}  // namespace

bool import_gradescope(const std::string& path, const std::vector<Student>& roster, const DownloadLimits& limits,
                       const std::string& folder, Imported* out, std::string* error) {
  std::string yml_name, yml;
  if (!read_index(path, limits, &yml_name, &yml, error)) return false;
  std::vector<GradescopeSubmission> submissions;
  if (!read_gradescope_metadata(yml, &submissions, error)) return *error = printable(yml_name) + ": " + *error, false;
  Students students;
  std::map<std::string, std::vector<std::string>> ids_of;  // folder -> its students' ids
  if (!find_submitters(submissions, roster, students, ids_of, out, error)) return false;
  if (!make_folders(students, folder, error)) return false;
  if (!copy_files(path, limits, yml_name, ids_of, folder, students, out, error)) return false;
  return write_records(students, !roster.empty(), folder, out, error);
}

}  // namespace grade
