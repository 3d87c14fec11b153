// A download's entries, one at a time, for the import of an LMS's download (download.h): a
// zip's, read with libarchive, or a folder's (the zip unzipped), each with a way to read its
// bytes up to a cap; and the budget of bytes read from the whole download. The import's own
// (download*.cpp), in a namespace of its own.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace grade::download {

struct Entry {
  std::string name;  // "submission_1/labs/x.cu": the zip's, or the path under the folder
  enum Type { file, folder, other } type = file;
};

enum class Read { ok, too_big, unreadable, corrupt };
// Reads the entry's bytes into *data, at most CAP of them.
using ReadData = std::function<Read(uint64_t cap, std::string* data)>;
// Called for each entry; false stops the walk (with *error set by whoever stopped it).
using Visit = std::function<bool(const Entry&, const ReadData&)>;

// Calls VISIT for each entry of PATH, a folder's in name order (links and other special files
// are entries of type other, never followed) or a zip's; false with *error when the walk cannot
// be made or is stopped, or PATH holds more than ENTRIES.
bool each_entry(const std::string& path, size_t entries, const Visit& visit, std::string* error);

// Counts the bytes read against the download's limit; false with *error past it.
struct Budget {
  uint64_t limit, used = 0;
  bool take(uint64_t bytes, std::string* error) {
    used += bytes;
    if (used <= limit) return true;
    return *error = "holds more than " + std::to_string(limit >> 20) + " MiB of files to read, the limit", false;
  }
};

}  // namespace grade::download
