// A student's zip or tar (plain or gzipped), read with libarchive and unpacked by this process
// itself, never by a tool that would follow what the archive says: only plain files and folders
// are made, each under DEST, by a name that neither starts with / nor holds a .. part, never over
// or through anything that exists; links, devices and other entries are left out and named; an
// archive that is corrupt or over the limits is refused whole (a zip bomb stops at the limit, not
// at the disk's end).
#pragma once

#include <time.h>

#include <cstdint>
#include <string>
#include <vector>

namespace grade {

struct ArchiveLimits {
  uint64_t file_bytes = 16u << 20;   // one file, unpacked
  uint64_t total_bytes = 64u << 20;  // every file together
  size_t entries = 4096;
};

struct Unpacked {
  bool ok = false;
  std::string error;               // when not ok: why the archive was refused
  std::vector<std::string> notes;  // entries left out, and why ("../x: climbs out of the folder")
  size_t files = 0;
};

// NAME ("./a//b"), an entry's name, as a path under a folder ("a/b"); "" with the reason in *WHY
// when it has none: a .. part, an absolute name, nothing but slashes and dots.
std::string safe_relative_name(const std::string& name, std::string* why);

// Writes DATA as the new plain file DEST/NAME (NAME: safe_relative_name's), making the folders on
// the way, never through a link and never over anything that exists; with MTIME, the file's
// modification time. not_made (*WHY: why) when that file cannot be made, failed when a folder
// cannot be made or the bytes cannot be written.
enum class NewFile { written, not_made, failed };
NewFile write_new_file(const std::string& dest, const std::string& name, const std::string& data, const timespec* mtime, std::string* why);

// Whether PATH's name says it is an archive this can unpack: .zip, .tar, .tar.gz, .tgz.
bool is_archive(const std::string& path);

// Unpacks ARCHIVE into DEST, a folder that must not exist yet.
Unpacked unpack_archive(const std::string& archive, const std::string& dest, const ArchiveLimits& limits = {});

}  // namespace grade
