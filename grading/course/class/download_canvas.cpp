// The import of Canvas's "Download Submissions" (download.h): its flat files, each read by its
// name as a student's upload, grouped by student; each lab file and archive read, an archive
// unpacked, and per student and lab the last upload that holds the lab's file written into the
// student's folder. And the reading of Canvas's file names.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "grading/course/class/archive.h"
#include "grading/course/class/download.h"
#include "grading/course/class/download_entries.h"
#include "grading/course/class/download_names.h"
#include "grading/course/class/download_students.h"
#include "grading/course/class/prepare.h"

namespace grade {

// The import's own parts (download_entries.h, download_names.h, download_students.h).
using namespace download;

namespace fs = std::filesystem;

namespace {

// One of a Canvas student's files.
struct CanvasFile {
  std::string entry;  // the download's name
  CanvasFileName name;
};

// The file of LAB under DIR, in the labs' layout or else alone, nearest DIR (prepare.h's search,
// which finds a submission's labs); "" when there is none.
std::string lab_file_in(const fs::path& dir, const lab::LabEntry& lab) {
  for (const fs::path& want : {fs::path(lab.folder) / lab.file(), fs::path(lab.file())}) {
    const std::string found = nearest_folder(dir, [&](const fs::path& d) {
      std::error_code ec;
      return fs::is_regular_file(fs::symlink_status(d / want, ec));
    });
    if (!found.empty()) return (fs::path(found) / want).string();
  }
  return "";
}

// A lab file that a student's upload holds (PATH, in the scratch folder), and the upload (FROM,
// for messages), by Canvas's FILE_ID.
struct Candidate {
  std::string file_id, path, from;
};

// The files by their names, each read the likeliest way (a user the roster knows first, KNOWN):
// each user's files into FILES_OF (user id -> files); the rest left out, noted in OUT.
bool list_files(const std::string& path, const DownloadLimits& limits, const std::map<std::string, const Student*>& known,
                std::map<std::string, std::vector<CanvasFile>>& files_of, Imported* out, std::string* error) {
  const bool listed = each_entry(path, limits.entries, [&](const Entry& e, const ReadData&) {
    if (e.type == Entry::folder || mac_noise(e.name)) return true;
    const std::vector<CanvasFileName> readings = read_canvas_file_name(e.name);
    if (readings.empty() || e.type != Entry::file) {
      out->notes.push_back(printable(e.name) + ": left out, " +
                           (e.type != Entry::file ? "not a plain file"
                                                  : "not named as Canvas names a student's file (name_userid_fileid_file)"));
      return true;
    }
    const auto pick = std::find_if(readings.begin(), readings.end(), [&](const CanvasFileName& c) { return known.count(c.user_id) != 0; });
    const CanvasFileName& name = pick != readings.end() ? *pick : readings.front();
    files_of[name.user_id].push_back({e.name, name});
    return true;
  }, error);
  return listed;
}

// A student for each user of FILES_OF, into STUDENTS, and each user's student id into ID_OF.
bool find_students(const std::map<std::string, std::vector<CanvasFile>>& files_of, const std::map<std::string, const Student*>& known,
                   Students& students, std::map<std::string, std::string>& id_of, std::string* error) {
  for (const auto& [user, files] : files_of) {
    const Student* s = known.count(user) ? known.at(user) : nullptr;
    DownloadRecord r;
    r.found = true;
    r.source = "Canvas";
    r.canvas_id = user;
    std::set<std::string> names;
    for (const CanvasFile& f : files) {
      r.late = r.late || f.name.late;
      if (!f.name.student.empty()) names.insert(f.name.student);
    }
    r.name = names.empty() ? "" : *names.begin();
    if (names.size() > 1) r.notes.push_back("Canvas names the files of user " + user + " " + std::to_string(names.size()) + " ways");
    const std::string id = pick_id({{"roster's id", s != nullptr ? s->id : ""}, {"Canvas user id", user}}, &r.notes);
    if (!students.add(id, "Canvas user " + user, r, s != nullptr, error)) return false;
    id_of[user] = id;
  }
  return true;
}

// The files read: each lab file and archive into the SCRATCH folder, an archive unpacked there.
// Per student and lab, into BEST (student id -> lab folder -> file), the file of the upload Canvas
// numbered last (its file ids grow with each upload) that holds one: a lab file handed in alone,
// or found in an archive as the grader finds it in a submission.
bool read_uploads(const std::string& path, const std::vector<lab::LabEntry>& labs, const DownloadLimits& limits,
                  const std::map<std::string, const Student*>& known, std::map<std::string, std::string>& id_of,
                  const std::string& scratch, Students& students, std::map<std::string, std::map<std::string, Candidate>>& best,
                  std::string* error) {
  auto offer = [&](const std::string& id, const lab::LabEntry& l, const Candidate& c) {
    Candidate& now = best[id][l.folder];
    if (now.path.empty() || numerically_less(now.file_id, c.file_id)) {
      if (!now.path.empty()) students[id].record.notes.push_back(now.from + ": an earlier upload than " + c.from + ", left out");
      now = c;
    } else {
      students[id].record.notes.push_back(c.from + ": an earlier upload than " + now.from + ", left out");
    }
  };
  Budget budget{limits.total_bytes};
  std::string data;
  const bool read_all = each_entry(path, limits.entries, [&](const Entry& e, const ReadData& read) {
    if (e.type != Entry::file || mac_noise(e.name)) return true;
    const std::vector<CanvasFileName> readings = read_canvas_file_name(e.name);
    if (readings.empty()) return true;
    const auto pick = std::find_if(readings.begin(), readings.end(), [&](const CanvasFileName& c) { return known.count(c.user_id) != 0; });
    const CanvasFileName& name = pick != readings.end() ? *pick : readings.front();
    const std::string id = id_of[name.user_id];
    DownloadRecord& record = students[id].record;
    const std::string shown = printable(name.file);
    const std::string plain = without_copy_number(name.file);
    const auto lab = std::find_if(labs.begin(), labs.end(), [&](const lab::LabEntry& l) { return l.file() == plain; });
    if (lab == labs.end() && !is_archive(name.file)) return record.notes.push_back(shown + ": left out, neither a lab file nor an archive"), true;
    const Read r = read(limits.file_bytes, &data);
    if (r == Read::corrupt) return false;
    if (r != Read::ok) {
      record.notes.push_back(shown + ": left out, " + (r == Read::too_big ? "over " + std::to_string(limits.file_bytes >> 20) + " MiB" : "cannot be read"));
      return true;
    }
    if (!budget.take(data.size(), error)) return false;
    // The scratch copy: named by Canvas's file id (digits), unique in a download.
    const std::string base = scratch + "/" + name.file_id;
    std::string why;
    const std::string kept = base + "/" + (lab != labs.end() ? lab->file() : "upload" + archive_ending(name.file));
    const NewFile made = write_new_file(scratch, kept.substr(scratch.size() + 1), data, nullptr, &why);
    if (made == NewFile::failed) return *error = why, false;
    if (made == NewFile::not_made) return record.notes.push_back(shown + ": left out, " + why), true;
    if (lab != labs.end()) return offer(id, *lab, {name.file_id, kept, shown}), true;
    const Unpacked u = unpack_archive(kept, base + "/unpacked");
    for (const std::string& n : u.notes) record.notes.push_back(shown + ": " + printable(n));
    if (!u.ok) return record.notes.push_back(shown + ": left out, the archive " + printable(u.error)), true;
    bool any = false;
    for (const lab::LabEntry& l : labs) {
      const std::string found = lab_file_in(base + "/unpacked", l);
      if (found.empty()) continue;
      offer(id, l, {name.file_id, found, shown + " (its " + printable(fs::path(found).lexically_relative(base + "/unpacked").string()) + ")"});
      any = true;
    }
    if (!any) record.notes.push_back(shown + ": left out, the archive holds no lab file");
    return true;
  }, error);
  return read_all;
}

// Each student's chosen files (BEST), in the labs' layout, into FOLDER.
bool write_chosen(const std::map<std::string, std::map<std::string, Candidate>>& best, const std::vector<lab::LabEntry>& labs,
                  const DownloadLimits& limits, const std::string& folder, Students& students, Imported* out, std::string* error) {
  for (const auto& [id, chosen] : best) {
    for (const auto& [lab_folder, c] : chosen) {
      const auto l = std::find_if(labs.begin(), labs.end(), [&](const lab::LabEntry& e) { return e.folder == lab_folder; });
      std::error_code ec;
      if (fs::file_size(c.path, ec) > limits.file_bytes) {
        students[id].record.notes.push_back(c.from + ": left out, over " + std::to_string(limits.file_bytes >> 20) + " MiB");
        continue;
      }
      std::ifstream in(c.path, std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)), {});
      std::string why;
      const NewFile made = write_new_file(folder + "/" + id, lab_folder + "/" + l->file(), bytes, nullptr, &why);
      if (made == NewFile::failed) return *error = why, false;
      out->files += made == NewFile::written;
    }
  }
  return true;
}

}  // namespace

bool import_canvas(const std::string& path, const std::vector<Student>& roster, const std::vector<lab::LabEntry>& labs,
                   const DownloadLimits& limits, const std::string& dest, Imported* out, std::string* error) {
  // The roster's Canvas users: its canvas_id column, else its ids.
  const bool by_canvas_id = std::any_of(roster.begin(), roster.end(), [](const Student& s) { return !s.canvas_id.empty(); });
  std::map<std::string, const Student*> known;
  for (const Student& s : roster) {
    const std::string& key = by_canvas_id ? s.canvas_id : s.id;
    if (key.empty()) continue;
    if (!known.emplace(key, &s).second) return *error = "the roster gives the Canvas user id " + printable(key) + " to two students", false;
  }

  std::map<std::string, std::vector<CanvasFile>> files_of;  // user id -> files
  if (!list_files(path, limits, known, files_of, out, error)) return false;
  if (!roster.empty() && !files_of.empty() &&
      std::none_of(files_of.begin(), files_of.end(), [&](const auto& f) { return known.count(f.first) != 0; })) {
    return *error = "names none of the roster's students: give the roster a canvas_id column, each student's Canvas user id (the "
                    "number after the name in the download's file names; the ID column of Canvas's gradebook export)",
           false;
  }

  Students students;
  std::map<std::string, std::string> id_of;  // user id -> student id
  if (!find_students(files_of, known, students, id_of, error)) return false;
  const std::string folder = dest + "/students", scratch = dest + "/scratch";
  std::error_code ec;
  fs::create_directories(scratch, ec);
  if (ec) return *error = "cannot make " + scratch + ": " + ec.message(), false;
  if (!make_folders(students, folder, error)) return false;
  std::map<std::string, std::map<std::string, Candidate>> best;  // student id -> lab folder -> file
  if (!read_uploads(path, labs, limits, known, id_of, scratch, students, best, error)) return false;
  if (!write_chosen(best, labs, limits, folder, students, out, error)) return false;
  return write_records(students, !roster.empty(), folder, out, error);
}

std::vector<CanvasFileName> read_canvas_file_name(const std::string& name) {
  std::vector<CanvasFileName> readings;
  if (name.find('/') != std::string::npos) return readings;
  auto digits_from = [&](size_t p) {
    size_t q = p;
    while (q < name.size() && std::isdigit(static_cast<unsigned char>(name[q]))) ++q;
    return q;
  };
  for (size_t p = 0; p < name.size(); ++p) {
    if (p > 0 && name[p - 1] != '_') continue;
    const size_t q = digits_from(p);
    if (q == p || q >= name.size() || name[q] != '_') continue;
    const size_t r = digits_from(q + 1);
    if (r == q + 1 || r + 1 >= name.size() || name[r] != '_') continue;
    CanvasFileName c;
    c.student = p == 0 ? "" : name.substr(0, p - 1);
    c.user_id = name.substr(p, q - p);
    c.file_id = name.substr(q + 1, r - q - 1);
    c.file = name.substr(r + 1);
    // LATE follows the name ("_late"; "-late" before 2017), or stands alone when names are left out.
    const std::string s = lower(c.student);
    if (s == "late") {
      c.late = true;
      c.student.clear();
    } else if (s.size() > 5 && (s.compare(s.size() - 5, 5, "_late") == 0 || s.compare(s.size() - 5, 5, "-late") == 0)) {
      c.late = true;
      c.student.resize(c.student.size() - 5);
    }
    readings.push_back(c);
  }
  return readings;
}

}  // namespace grade
