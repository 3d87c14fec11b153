// The walk over a download's entries (download_entries.h): a zip's with libarchive, a folder's
// with the file system, each entry's bytes read on demand up to a cap.
#include "grading/course/class/download_entries.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <vector>

#include "grading/core/utf8.h"

namespace grade::download {

namespace fs = std::filesystem;

namespace {

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

}  // namespace

bool each_entry(const std::string& path, size_t entries, const Visit& visit, std::string* error) {
  std::error_code ec;
  return fs::is_directory(path, ec) ? each_folder_entry(path, entries, visit, error) : each_zip_entry(path, entries, visit, error);
}

}  // namespace grade::download
