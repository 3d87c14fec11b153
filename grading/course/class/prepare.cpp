#include "grading/course/class/prepare.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>

#include "grading/course/class/archive.h"
#include "grading/course/class/hash.h"
#include "grading/course/class/submitted.h"
#include "grading/core/utf8.h"

namespace grade {

namespace fs = std::filesystem;

namespace {

bool holds_a_lab(const fs::path& dir, const std::vector<lab::LabEntry>& labs) {
  std::error_code ec;
  for (const lab::LabEntry& l : labs) {
    if (fs::is_directory(fs::symlink_status(dir / l.folder, ec))) return true;
  }
  return false;
}

bool is_plain_file(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(fs::symlink_status(path, ec));
}

// Lab files handed in without their folders (matmul_naive.cu at the top, as a Gradescope upload
// of single files lands): each lab's file nearest to TOP is copied into ARRANGED/NN_stem/, the
// labs' layout. "" when TOP holds no lab file by name; else ARRANGED, with a note per file.
std::string arrange_loose_files(const fs::path& top, const fs::path& arranged, const std::vector<lab::LabEntry>& labs,
                                std::vector<std::string>* notes) {
  std::error_code ec;
  fs::remove_all(arranged, ec);
  bool any = false;
  for (const lab::LabEntry& l : labs) {
    const std::string dir = nearest_folder(top, [&](const fs::path& d) { return is_plain_file(d / l.file()); });
    if (dir.empty()) continue;
    const fs::path from = fs::path(dir) / l.file(), to = arranged / l.folder / l.file();
    const std::string shown = printable(fs::relative(from, top, ec).string());
    if (fs::file_size(from, ec) > (1u << 20)) {
      notes->push_back(shown + " is over 1 MiB: the grader refuses a lab file over 1 MiB");
      continue;
    }
    fs::create_directories(to.parent_path(), ec);
    if (ec || !fs::copy_file(from, to, ec)) {
      notes->push_back(shown + ": cannot be copied (" + ec.message() + ")");
      continue;
    }
    // The handed-in file's time, which the late policy dates the lab by.
    fs::last_write_time(to, fs::last_write_time(from, ec), ec);
    notes->push_back(shown + " graded as " + l.folder + "/" + l.file());
    any = true;
  }
  return any ? arranged.string() : "";
}

bool odd_name(const std::string& name) {
  if (valid_utf8(name) != name) return true;
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7F || std::string("\"'`$\\*?[]<>|&;").find(char(c)) != std::string::npos) return true;
  }
  return false;
}

// Notes on what of ROOT the grader will refuse: links that lead out of it, files over the
// grader's 1 MiB, odd names (10,000 entries looked at, at most).
void scan(const fs::path& root, std::vector<std::string>* notes) {
  std::error_code ec;
  const fs::path real_root = fs::weakly_canonical(root, ec);
  size_t seen = 0;
  for (fs::recursive_directory_iterator it(root, fs::directory_options::none, ec), end; !ec && it != end && ++seen < 10000;
       it.increment(ec)) {
    const std::string rel = printable(fs::relative(it->path(), root, ec).string());
    if (odd_name(it->path().filename().string())) notes->push_back("an odd file name: " + rel);
    if (it->is_symlink(ec)) {
      const fs::path target = fs::weakly_canonical(it->path(), ec);
      const std::string to = printable(fs::read_symlink(it->path(), ec).string());
      const bool inside = target.string().rfind(real_root.string() + "/", 0) == 0;
      notes->push_back(rel + " is a link to " + to + (inside ? "" : ", outside the submission") + ": the grader reads no links");
    } else if (it->is_regular_file(ec) && it->file_size(ec) > (1u << 20)) {
      notes->push_back(rel + " is " + std::to_string(it->file_size(ec) >> 20) + " MiB: the grader refuses a lab file over 1 MiB");
    }
  }
}

// Nothing in DIR but, from an LMS's download, the import's record of the student.
bool is_empty_folder(const std::string& dir) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename() != kDownloadRecord) return false;
  }
  return true;
}

}  // namespace

std::string nearest_folder(const fs::path& top, const std::function<bool(const fs::path&)>& fits) {
  std::deque<std::pair<fs::path, int>> queue = {{top, 0}};
  std::error_code ec;
  while (!queue.empty()) {
    const auto [dir, depth] = queue.front();
    queue.pop_front();
    if (fits(dir)) return dir.string();
    if (depth == 3) continue;
    std::vector<fs::path> subfolders;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_directory(ec) && !it->is_symlink(ec)) subfolders.push_back(it->path());
    }
    std::sort(subfolders.begin(), subfolders.end());
    for (const fs::path& sub : subfolders) queue.push_back({sub, depth + 1});
  }
  return "";
}

Prepared prepare_submission(const Student& s, const std::string& unpack_dir, const std::vector<lab::LabEntry>& labs) {
  Prepared p;
  if (s.entry.empty()) return p.status = "missing: nothing handed in", p;
  struct stat st;
  if (lstat(s.entry.c_str(), &st) != 0) return p.status = "missing: cannot read what was handed in", p;
  std::error_code ec;
  if (S_ISLNK(st.st_mode)) {
    return p.status = "refused: a symbolic link (to " + printable(fs::read_symlink(s.entry, ec).string()) + "), not a folder", p;
  }
  std::string top = s.entry;
  if (S_ISREG(st.st_mode) && is_archive(s.entry)) {
    fs::remove_all(unpack_dir, ec);
    const Unpacked u = unpack_archive(s.entry, unpack_dir);
    for (const std::string& note : u.notes) p.notes.push_back(printable(note));
    if (!u.ok) return p.status = "refused: the archive " + printable(u.error), p;
    top = unpack_dir;
  } else if (!S_ISDIR(st.st_mode)) {
    return p.status = "wrong layout: neither a folder nor a .zip or .tar of one", p;
  }
  if (is_empty_folder(top)) return p.status = "empty: nothing handed in", p;
  p.top = top;
  p.root = nearest_folder(top, [&](const fs::path& dir) { return holds_a_lab(dir, labs); });
  if (p.root.empty()) p.root = arrange_loose_files(top, fs::path(unpack_dir).parent_path() / "arranged", labs, &p.notes);
  if (p.root.empty()) {
    return p.status = "wrong layout: no lab folder (" + labs.front().folder + "/" + labs.front().file() + ", ...) and no lab file (" +
                      labs.front().file() + ", ...)", p;
  }
  for (const lab::LabEntry& l : labs) {
    if (!fs::exists(fs::symlink_status(fs::path(p.root) / l.folder / l.file(), ec))) p.notes.push_back("no " + l.folder + "/" + l.file());
  }
  scan(p.root, &p.notes);
  return p;
}

std::string lab_files_fingerprint(const std::string& root, const std::vector<lab::LabEntry>& labs) {
  uint64_t h = fnv1a(root);
  for (const lab::LabEntry& l : labs) {
    // Only a plain file is read (a FIFO would block): anything else counts by its type.
    const std::string path = root + "/" + l.folder + "/" + l.file();
    struct stat st;
    std::string bytes = "(none)";
    st.st_mode = 0;
    if (lstat(path.c_str(), &st) == 0) bytes = "(type " + std::to_string(st.st_mode >> 12) + ", " + std::to_string(st.st_size) + " bytes)";
    if (S_ISREG(st.st_mode) && st.st_size <= (1 << 20)) {
      std::ifstream in(path, std::ios::binary);
      bytes = std::string(std::istreambuf_iterator<char>(in), {});
    }
    h = fnv1a(bytes, fnv1a("\n" + l.folder + "\n", h));
  }
  return hex16(h);
}

}  // namespace grade
