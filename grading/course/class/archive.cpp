#include "grading/course/class/archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <memory>

#include "grading/core/utf8.h"

// libarchive reads the archive (zip, tar, gzipped tar: the formats, the compression, GNU and
// pax long names, CRCs); this file decides what is made of it, and makes it itself. libarchive's
// own disk writer (archive_write_disk) is not used: its SECURE_* flags refuse .., absolute names
// and writing through a link, but it would still make links, devices and FIFOs, set modes and
// owners from the archive, and replace an entry named twice unless told otherwise, each a flag
// to get right; here only a plain file is ever made, by a name checked below, with
// O_CREAT | O_EXCL | O_NOFOLLOW (never over or through anything that exists), and its bytes are
// counted as they are read, whatever its header claims.

namespace grade {

namespace {

bool ends_with(const std::string& s, const std::string& end) {
  return s.size() >= end.size() && s.compare(s.size() - end.size(), end.size(), end) == 0;
}

// Makes the files of one archive under DEST, keeping to the limits.
class Writer {
 public:
  Writer(const std::string& dest, const ArchiveLimits& limits, Unpacked* out) : dest_(dest), limits_(limits), out_(out) {}

  // The entry's name made safe ("" with a note when it cannot be): "./a//b" is "a/b".
  std::string safe_name(const std::string& name) {
    std::string why;
    const std::string clean = safe_relative_name(name, &why);
    if (clean.empty()) note(name, why);
    return clean;
  }

  // False once a limit is passed: the archive is refused.
  bool count_entry() {
    if (++entries_ <= limits_.entries) return true;
    return refuse("more than " + std::to_string(limits_.entries) + " entries");
  }
  // Counts BYTES more of the file NAME (so far FILE_BYTES in all).
  bool count_bytes(const std::string& name, uint64_t file_bytes, uint64_t bytes) {
    if (file_bytes > limits_.file_bytes) {
      return refuse(valid_utf8(name) + " unpacks to more than " + std::to_string(limits_.file_bytes) + " bytes, the limit");
    }
    total_ += bytes;
    if (total_ > limits_.total_bytes) return refuse("its files unpack to more than " + std::to_string(limits_.total_bytes) + " bytes");
    return true;
  }
  bool refuse(const std::string& why) {
    if (out_->error.empty()) out_->error = why;
    return false;
  }
  void note(const std::string& name, const std::string& why) { out_->notes.push_back(valid_utf8(name) + ": left out, " + why); }

  // Writes NAME (safe_name's) with DATA, making its folders; never through a link, never over a file.
  // The file keeps the entry's modification time (ENTRY's, when the archive has one): the late
  // policy reads it as the time the student handed the file in.
  bool write(const std::string& name, const std::string& data, archive_entry* entry) {
    const timespec mtime = {archive_entry_mtime(entry), archive_entry_mtime_nsec(entry)};
    std::string why;
    switch (write_new_file(dest_, name, data, archive_entry_mtime_is_set(entry) ? &mtime : nullptr, &why)) {
      case NewFile::written: return ++out_->files, true;
      case NewFile::not_made: return note(name, why), true;
      case NewFile::failed: return refuse(why);
    }
    return false;
  }

 private:
  std::string dest_;
  ArchiveLimits limits_;
  Unpacked* out_;
  size_t entries_ = 0;
  uint64_t total_ = 0;
};

using Reader = std::unique_ptr<archive, int (*)(archive*)>;

std::string error_of(archive* a) {
  const char* e = archive_error_string(a);
  return e != nullptr ? valid_utf8(e) : "unknown error";
}

// The entry's bytes into *DATA, counted against the limits as they come (a zip bomb stops at
// the limit). False when the archive is refused: corrupt (a bad CRC, truncated or undecodable
// data: libarchive's ARCHIVE_WARN or ARCHIVE_FATAL), or over a limit. *SKIPPED, with a note,
// when only this entry cannot be read (ARCHIVE_FAILED: a compression method libarchive lacks).
bool read_entry(archive* a, const std::string& name, Writer& w, std::string* data, bool* skipped) {
  data->clear();
  *skipped = false;
  char buffer[1 << 16];
  for (;;) {
    const la_ssize_t got = archive_read_data(a, buffer, sizeof buffer);
    if (got == 0) return true;
    if (got == ARCHIVE_FAILED) return w.note(name, "cannot be read (" + error_of(a) + ")"), *skipped = true, true;
    if (got < 0) return w.refuse("is corrupt: " + valid_utf8(name) + ": " + error_of(a));
    if (!w.count_bytes(name, data->size() + uint64_t(got), uint64_t(got))) return false;
    data->append(buffer, size_t(got));
  }
}

}  // namespace

std::string safe_relative_name(const std::string& name, std::string* why) {
  std::string clean, part;
  for (size_t i = 0; i <= name.size(); ++i) {
    if (i < name.size() && name[i] != '/') {
      part += name[i];
      continue;
    }
    if (part == "..") return *why = "climbs out of the folder (a .. in its name)", "";
    if (!part.empty() && part != ".") clean += (clean.empty() ? "" : "/") + part;
    part.clear();
  }
  if (!name.empty() && name[0] == '/') return *why = "an absolute name", "";
  if (clean.empty()) return *why = "an empty or bad name", "";
  return clean;
}

NewFile write_new_file(const std::string& dest, const std::string& name, const std::string& data, const timespec* mtime, std::string* why) {
  // Each folder on the way: made, or one made already (lstat: a link is no folder).
  for (size_t slash = name.find('/'); slash != std::string::npos; slash = name.find('/', slash + 1)) {
    const std::string dir = dest + "/" + name.substr(0, slash);
    struct stat st;
    if (mkdir(dir.c_str(), 0755) != 0 && !(lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode))) {
      return *why = "cannot make the folder " + dir, NewFile::failed;
    }
  }
  const std::string path = dest + "/" + name;
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return *why = std::string("cannot be written (") + std::strerror(errno) + ")", NewFile::not_made;
  bool ok = ::write(fd, data.data(), data.size()) == ssize_t(data.size());
  if (mtime != nullptr) {
    const timespec times[2] = {{0, UTIME_OMIT}, *mtime};
    ok = ok && futimens(fd, times) == 0;
  }
  close(fd);
  if (!ok) return *why = "cannot write " + path, NewFile::failed;
  return NewFile::written;
}

bool is_archive(const std::string& path) {
  for (const char* end : {".zip", ".tar", ".tar.gz", ".tgz"}) {
    if (ends_with(path, end)) return true;
  }
  return false;
}

Unpacked unpack_archive(const std::string& path, const std::string& dest, const ArchiveLimits& limits) {
  Unpacked out;
  Writer w(dest, limits, &out);
  if (mkdir(dest.c_str(), 0755) != 0) {
    out.error = "cannot make " + dest + ": " + std::strerror(errno);
    return out;
  }
  Reader a(archive_read_new(), archive_read_free);
  // Zip and tar only, plain or gzipped. A warning from the gzip filter means it would run an
  // external gzip program: refused too (zlib is built into Debian's libarchive).
  if (!a || archive_read_support_format_zip(a.get()) != ARCHIVE_OK || archive_read_support_format_tar(a.get()) != ARCHIVE_OK ||
      archive_read_support_filter_gzip(a.get()) != ARCHIVE_OK) {
    out.error = "cannot be read: libarchive lacks zip, tar or gzip";
    return out;
  }
  if (archive_read_open_filename(a.get(), path.c_str(), 1 << 16) != ARCHIVE_OK) {
    out.error = "cannot be opened: " + error_of(a.get());
    return out;
  }
  std::string data;
  for (;;) {
    archive_entry* e = nullptr;
    const int r = archive_read_next_header(a.get(), &e);
    if (r == ARCHIVE_EOF) break;
    // A warning on a header is a name in another character set (the raw name is used, below).
    if (r < ARCHIVE_WARN) return w.refuse("is corrupt: " + error_of(a.get())), out;
    if (!w.count_entry()) return out;
    const char* raw = archive_entry_pathname(e);
    if (raw == nullptr) raw = archive_entry_pathname_utf8(e);
    const std::string name = raw != nullptr ? raw : "";
    const mode_t type = archive_entry_filetype(e);
    if (archive_entry_hardlink(e) != nullptr) {
      w.note(name, "a hard link");
      continue;
    }
    if (type == AE_IFDIR) continue;  // a folder: made with its files
    if (type != AE_IFREG) {
      w.note(name, type == AE_IFLNK ? "a symbolic link" : "not a plain file");
      continue;
    }
    if (archive_entry_is_encrypted(e)) {
      w.note(name, "encrypted");
      continue;
    }
    const std::string safe = w.safe_name(name);
    if (safe.empty()) continue;
    // What the header claims is checked first; what is read is counted again (read_entry).
    if (archive_entry_size_is_set(e) && uint64_t(archive_entry_size(e)) > limits.file_bytes) {
      return w.count_bytes(name, uint64_t(archive_entry_size(e)), 0), out;
    }
    bool skipped = false;
    if (!read_entry(a.get(), name, w, &data, &skipped)) return out;
    if (!skipped && !w.write(safe, data, e)) return out;
  }
  out.ok = out.error.empty();
  return out;
}

}  // namespace grade
