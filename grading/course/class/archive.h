// A student's zip or tar (plain or gzipped), read with libarchive and unpacked by this process
// itself, never by a tool that would follow what the archive says: only plain files and folders
// are made, each under DEST, by a name that neither starts with / nor holds a .. part, never over
// or through anything that exists; links, devices and other entries are left out and named; an
// archive that is corrupt or over the limits is refused whole (a zip bomb stops at the limit, not
// at the disk's end).
#pragma once

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

// Whether PATH's name says it is an archive this can unpack: .zip, .tar, .tar.gz, .tgz.
bool is_archive(const std::string& path);

// Unpacks ARCHIVE into DEST, a folder that must not exist yet.
Unpacked unpack_archive(const std::string& archive, const std::string& dest, const ArchiveLimits& limits = {});

}  // namespace grade
