#include "grading/course/class/download.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <set>

#include "grading/course/class/archive.h"
#include "grading/course/class/gradescope_yml.h"
#include "grading/course/class/prepare.h"
#include "grading/course/class/submitted.h"
#include "grading/core/late.h"
#include "grading/core/utf8.h"

namespace grade {

namespace fs = std::filesystem;

namespace {

// ---- The download's entries: a zip's (libarchive), or a folder's ----

struct Entry {
  std::string name;  // "submission_1/labs/x.cu": the zip's, or the path under the folder
  enum Type { file, folder, other } type = file;
};

enum class Read { ok, too_big, unreadable, corrupt };
// Reads the entry's bytes into *data, at most CAP of them.
using ReadData = std::function<Read(uint64_t cap, std::string* data)>;
// Called for each entry; false stops the walk (with *error set by whoever stopped it).
using Visit = std::function<bool(const Entry&, const ReadData&)>;

std::string error_of(archive* a) {
  const char* e = archive_error_string(a);
  return e != nullptr ? valid_utf8(e) : "unknown error";
}

bool each_zip_entry(const std::string& path, size_t entries, const Visit& visit, std::string* error) {
  std::unique_ptr<archive, int (*)(archive*)> a(archive_read_new(), archive_read_free);
  if (!a || archive_read_support_format_zip(a.get()) != ARCHIVE_OK) return *error = "cannot be read: libarchive lacks zip", false;
  if (archive_read_open_filename(a.get(), path.c_str(), 1 << 16) != ARCHIVE_OK) {
    return *error = "cannot be opened as a zip: " + error_of(a.get()), false;
  }
  size_t count = 0;
  for (;;) {
    archive_entry* e = nullptr;
    const int r = archive_read_next_header(a.get(), &e);
    if (r == ARCHIVE_EOF) return true;
    // A warning on a header is a name in another character set (the raw name is used, below).
    if (r < ARCHIVE_WARN) return *error = "is corrupt: " + error_of(a.get()), false;
    if (++count > entries) return *error = "has more than " + std::to_string(entries) + " entries", false;
    const char* raw = archive_entry_pathname(e);
    if (raw == nullptr) raw = archive_entry_pathname_utf8(e);
    Entry entry;
    entry.name = raw != nullptr ? raw : "";
    const mode_t type = archive_entry_filetype(e);
    entry.type = type == AE_IFDIR ? Entry::folder : type == AE_IFREG ? Entry::file : Entry::other;
    if (archive_entry_hardlink(e) != nullptr || archive_entry_is_encrypted(e)) entry.type = Entry::other;
    bool corrupt = false;
    const ReadData read = [&](uint64_t cap, std::string* data) {
      data->clear();
      if (archive_entry_size_is_set(e) && uint64_t(archive_entry_size(e)) > cap) return Read::too_big;
      char buffer[1 << 16];
      for (;;) {
        const la_ssize_t got = archive_read_data(a.get(), buffer, sizeof buffer);
        if (got == 0) return Read::ok;
        if (got == ARCHIVE_FAILED) return Read::unreadable;  // one entry's method libarchive lacks
        if (got < 0) {
          *error = "is corrupt: " + valid_utf8(entry.name) + ": " + error_of(a.get());
          corrupt = true;
          return Read::corrupt;
        }
        if (data->size() + uint64_t(got) > cap) return Read::too_big;
        data->append(buffer, size_t(got));
      }
    };
    if (!visit(entry, read) || corrupt) return false;
  }
}

// A folder's files, in name order; links and other special files are entries of type other,
// never followed.
bool each_folder_entry(const std::string& dir, size_t entries, const Visit& visit, std::string* error) {
  std::vector<fs::path> paths;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end; !ec && it != end; it.increment(ec)) {
    if (paths.size() == entries) return *error = "holds more than " + std::to_string(entries) + " entries", false;
    paths.push_back(it->path());
  }
  if (ec) return *error = "cannot be listed: " + ec.message(), false;
  std::sort(paths.begin(), paths.end());
  for (const fs::path& p : paths) {
    struct stat st;
    if (lstat(p.c_str(), &st) != 0) continue;  // gone meanwhile
    Entry entry;
    entry.name = p.lexically_relative(dir).generic_string();
    entry.type = S_ISDIR(st.st_mode) ? Entry::folder : S_ISREG(st.st_mode) ? Entry::file : Entry::other;
    const ReadData read = [&](uint64_t cap, std::string* data) {
      data->clear();
      if (uint64_t(st.st_size) > cap) return Read::too_big;
      const int fd = open(p.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0) return Read::unreadable;
      char buffer[1 << 16];
      ssize_t got = 0;
      while ((got = ::read(fd, buffer, sizeof buffer)) > 0 && data->size() + uint64_t(got) <= cap) data->append(buffer, size_t(got));
      close(fd);
      return got < 0 ? Read::unreadable : got > 0 ? Read::too_big : Read::ok;
    };
    if (!visit(entry, read)) return false;
  }
  return true;
}

bool each_entry(const std::string& path, size_t entries, const Visit& visit, std::string* error) {
  std::error_code ec;
  return fs::is_directory(path, ec) ? each_folder_entry(path, entries, visit, error) : each_zip_entry(path, entries, visit, error);
}

// ---- Names ----

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

bool all_digits(const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/', path.size() > 1 ? path.size() - 2 : 0);
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// What a Mac adds when it zips a folder: not the LMS's.
bool mac_noise(const std::string& name) {
  return name.rfind("__MACOSX/", 0) == 0 || name == "__MACOSX" || base_name(name) == ".DS_Store";
}

// Whether ID can name a student's folder of the class folder, which list_students reads back as
// the same id: a name of a file, not hidden, not an archive's (whose ending it would take off).
bool usable_folder_name(const std::string& id) {
  if (id.empty() || id.size() > 200 || id[0] == '.' || valid_utf8(id) != id || is_archive(id)) return false;
  for (unsigned char c : id) {
    if (c < 0x20 || c == 0x7F || c == '/') return false;
  }
  return true;
}

// The ending that makes NAME an archive (is_archive's): ".tar.gz", ".zip".
std::string archive_ending(const std::string& name) {
  for (const char* end : {".tar.gz", ".tgz", ".zip", ".tar"}) {
    const std::string e = end;
    if (name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0) return e;
  }
  return "";
}

// FILE without the "-N" that Canvas puts before the extension of a file handed in again.
std::string without_copy_number(const std::string& file) {
  size_t dot = file.find('.');
  if (dot == std::string::npos) dot = file.size();
  const size_t dash = file.rfind('-', dot);
  if (dash == std::string::npos || !all_digits(file.substr(dash + 1, dot - dash - 1))) return file;
  return file.substr(0, dash) + file.substr(dot);
}

// Numbers as text, compared as numbers (Canvas's file ids, growing with each upload).
bool numerically_less(const std::string& a, const std::string& b) { return a.size() != b.size() ? a.size() < b.size() : a < b; }

// ---- The students ----

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
std::string pick_id(const std::vector<std::pair<std::string, std::string>>& candidates, std::vector<std::string>* notes) {
  for (const auto& [what, id] : candidates) {
    if (id.empty()) continue;
    if (usable_folder_name(id)) return id;
    notes->push_back("the " + what + " '" + printable(id) + "' cannot name a folder (a / or a control character, a leading dot, or an "
                     "archive's ending): not used as the id");
  }
  return "";
}

// Makes FOLDER/ID for every student.
bool make_folders(Students& students, const std::string& folder, std::string* error) {
  for (const auto& [id, f] : students.all()) {
    std::error_code ec;
    fs::create_directories(folder + "/" + id, ec);
    if (ec) return *error = "cannot make " + folder + "/" + printable(id) + ": " + ec.message(), false;
  }
  return true;
}

// Writes each student's record into their folder, and counts them into OUT.
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

// Counts the bytes read against the download's limit; false with *error past it.
struct Budget {
  uint64_t limit, used = 0;
  bool take(uint64_t bytes, std::string* error) {
    used += bytes;
    if (used <= limit) return true;
    return *error = "holds more than " + std::to_string(limit >> 20) + " MiB of files to read, the limit", false;
  }
};

// The depth of an entry's name: how many folders it lies in.
size_t depth_of(const std::string& name) { return size_t(std::count(name.begin(), name.end(), '/')); }

// Whether NAME is a Gradescope submission's folder: submission_ and digits.
bool submission_folder(const std::string& name) { return name.rfind("submission_", 0) == 0 && all_digits(name.substr(11)); }

// ---- Gradescope ----

bool import_gradescope(const std::string& path, const std::vector<Student>& roster, const DownloadLimits& limits,
                       const std::string& folder, Imported* out, std::string* error) {
  // The index first: the shallowest submission_metadata.yml (a student's file of that name lies
  // deeper, in its submission's folder).
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
  std::vector<GradescopeSubmission> submissions;
  if (!read_gradescope_metadata(yml, &submissions, error)) return *error = printable(yml_name) + ": " + *error, false;
  const std::string prefix = yml_name.substr(0, yml_name.size() - base_name(yml_name).size());

  // Each submitter's id: the roster's (by sid as its id, else by email), else theirs.
  std::map<std::string, const Student*> by_id, by_email;
  for (const Student& s : roster) {
    by_id[s.id] = &s;
    if (!s.email.empty() && !by_email.emplace(lower(s.email), &s).second) {
      return *error = "the roster gives the email " + printable(s.email) + " to two students", false;
    }
  }
  Students students;
  std::map<std::string, std::vector<std::string>> ids_of;  // folder -> its students' ids
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
  if (!make_folders(students, folder, error)) return false;

  // The files, each into the folder of every student of its submission.
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
  return write_records(students, !roster.empty(), folder, out, error);
}

// ---- Canvas ----

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

  // The files by their names, each read the likeliest way (a user the roster knows first).
  std::map<std::string, std::vector<CanvasFile>> files_of;  // user id -> files
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
  if (!listed) return false;
  if (!roster.empty() && !files_of.empty() &&
      std::none_of(files_of.begin(), files_of.end(), [&](const auto& f) { return known.count(f.first) != 0; })) {
    return *error = "names none of the roster's students: give the roster a canvas_id column, each student's Canvas user id (the "
                    "number after the name in the download's file names; the ID column of Canvas's gradebook export)",
           false;
  }

  Students students;
  std::map<std::string, std::string> id_of;  // user id -> student id
  for (const auto& [user, files] : files_of) {
    const Student* s = known.count(user) ? known[user] : nullptr;
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
  const std::string folder = dest + "/students", scratch = dest + "/scratch";
  std::error_code ec;
  fs::create_directories(scratch, ec);
  if (ec) return *error = "cannot make " + scratch + ": " + ec.message(), false;
  if (!make_folders(students, folder, error)) return false;

  // The files read: each lab file and archive into the scratch folder, an archive unpacked there.
  // Per student and lab, the file of the upload Canvas numbered last (its file ids grow with each
  // upload) that holds one: a lab file handed in alone, or found in an archive as the grader
  // finds it in a submission.
  struct Candidate {
    std::string file_id, path, from;
  };
  std::map<std::string, std::map<std::string, Candidate>> best;  // student id -> lab folder -> file
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
  if (!read_all) return false;

  // Each student's chosen files, in the labs' layout.
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
  return write_records(students, !roster.empty(), folder, out, error);
}

}  // namespace

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
