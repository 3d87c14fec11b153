#include "grading/class/archive.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>

#include "grading/utf8.h"

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
    std::string clean, part;
    for (size_t i = 0; i <= name.size(); ++i) {
      if (i < name.size() && name[i] != '/') {
        part += name[i];
        continue;
      }
      if (part == "..") return note(name, "climbs out of the folder (a .. in its name)"), "";
      if (!part.empty() && part != ".") clean += (clean.empty() ? "" : "/") + part;
      part.clear();
    }
    if (!name.empty() && name[0] == '/') return note(name, "an absolute name"), "";
    if (name.find('\0') != std::string::npos || clean.empty()) return note(name, "an empty or bad name"), "";
    return clean;
  }

  // False once a limit is passed: the archive is refused.
  bool count_entry() {
    if (++entries_ <= limits_.entries) return true;
    return refuse("more than " + std::to_string(limits_.entries) + " entries");
  }
  bool check_size(const std::string& name, uint64_t bytes) {
    if (bytes > limits_.file_bytes) return refuse(valid_utf8(name) + " unpacks to " + std::to_string(bytes) + " bytes, over the limit of " + std::to_string(limits_.file_bytes));
    total_ += bytes;
    if (total_ > limits_.total_bytes) return refuse("its files unpack to more than " + std::to_string(limits_.total_bytes) + " bytes");
    return true;
  }
  bool refuse(const std::string& why) {
    out_->error = why;
    return false;
  }
  bool refused() const { return !out_->error.empty(); }
  void note(const std::string& name, const std::string& why) { out_->notes.push_back(valid_utf8(name) + ": left out, " + why); }

  // Writes NAME (safe_name's) with DATA, making its folders; never through a link, never over a file.
  bool write(const std::string& name, const std::string& data) {
    if (!make_folders(name)) return false;
    const std::string path = dest_ + "/" + name;
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) return note(name, std::string("cannot be written (") + std::strerror(errno) + ")"), true;
    const bool ok = ::write(fd, data.data(), data.size()) == ssize_t(data.size());
    close(fd);
    if (!ok) return refuse("cannot write " + path);
    ++out_->files;
    return true;
  }
  bool make_folders(const std::string& name) {
    for (size_t slash = name.find('/'); slash != std::string::npos; slash = name.find('/', slash + 1)) {
      const std::string dir = dest_ + "/" + name.substr(0, slash);
      struct stat st;
      if (mkdir(dir.c_str(), 0755) != 0 && !(lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode))) {
        return refuse("cannot make the folder " + dir);
      }
    }
    return true;
  }

 private:
  std::string dest_;
  ArchiveLimits limits_;
  Unpacked* out_;
  size_t entries_ = 0;
  uint64_t total_ = 0;
};

uint32_t le16(const std::string& s, size_t at) { return uint8_t(s[at]) | uint8_t(s[at + 1]) << 8; }
uint32_t le32(const std::string& s, size_t at) { return le16(s, at) | le16(s, at + 2) << 16; }

// The DATA of one zip entry, unpacked (METHOD 0 stored, 8 deflated) into *OUT; false when corrupt.
bool inflate_entry(const std::string& data, int method, uint64_t size, std::string* out) {
  if (method == 0) return *out = data, data.size() == size;
  out->assign(size, '\0');
  z_stream z{};
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK) return false;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = uInt(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out->data());
  z.avail_out = uInt(size);
  const int r = inflate(&z, Z_FINISH);
  const bool ok = r == Z_STREAM_END && z.total_out == size;
  inflateEnd(&z);
  return ok;
}

// The zip's entries, from its central directory (the names a zip tool shows).
bool unpack_zip(const std::string& zip, Writer& w) {
  const size_t eocd = zip.size() < 22 ? std::string::npos : zip.rfind(std::string("PK\5\6", 4));
  if (eocd == std::string::npos || eocd + 22 > zip.size()) return w.refuse("not a zip file (no end of its central directory)");
  const uint32_t count = le16(zip, eocd + 10);
  size_t at = le32(zip, eocd + 16);
  for (uint32_t i = 0; i < count; ++i) {
    if (at + 46 > zip.size() || le32(zip, at) != 0x02014b50) return w.refuse("a corrupt zip central directory");
    const uint32_t flags = le16(zip, at + 8), method = le16(zip, at + 10), crc = le32(zip, at + 16);
    const uint32_t packed = le32(zip, at + 20), size = le32(zip, at + 24), name_len = le16(zip, at + 28);
    const uint32_t extra_len = le16(zip, at + 30), comment_len = le16(zip, at + 32), mode = le32(zip, at + 38) >> 16;
    const uint32_t local = le32(zip, at + 42);
    const std::string name = zip.substr(at + 46, name_len);
    at += 46 + name_len + extra_len + comment_len;
    if (!w.count_entry()) return false;
    if (!name.empty() && name.back() == '/') continue;  // a folder: made with its files
    if (mode != 0 && !S_ISREG(mode)) {
      w.note(name, S_ISLNK(mode) ? "a symbolic link" : "not a plain file");
      continue;
    }
    if (packed == 0xFFFFFFFF || size == 0xFFFFFFFF) return w.refuse("a zip64 entry (over 4 GiB)");
    if (flags & 1) {
      w.note(name, "encrypted");
      continue;
    }
    const std::string safe = w.safe_name(name);
    if (safe.empty()) continue;
    if (method != 0 && method != 8) {
      w.note(name, "compressed by a method other than deflate");
      continue;
    }
    if (!w.check_size(name, size)) return false;
    if (local + 30 > zip.size()) return w.refuse("a corrupt zip entry");
    const size_t data_at = local + 30 + le16(zip, local + 26) + le16(zip, local + 28);
    std::string data;
    if (data_at + packed > zip.size() || !inflate_entry(zip.substr(data_at, packed), method, size, &data) ||
        crc32(0, reinterpret_cast<const Bytef*>(data.data()), uInt(data.size())) != crc) {
      return w.refuse("a corrupt zip entry: " + valid_utf8(name));
    }
    if (!w.write(safe, data)) return false;
  }
  return true;
}

// One tar header's number: octal, or GNU's base-256 for large ones (then too large here).
uint64_t tar_number(const char* field, size_t len) {
  if (uint8_t(field[0]) & 0x80) return UINT64_MAX;
  uint64_t n = 0;
  for (size_t i = 0; i < len && field[i] >= '0' && field[i] <= '7'; ++i) n = n * 8 + uint64_t(field[i] - '0');
  return n;
}

// The path of a pax extended header's records ("27 path=a/very/long/name\n"), or "".
std::string pax_path(const std::string& records) {
  for (size_t at = 0; at < records.size();) {
    const size_t space = records.find(' ', at);
    const uint64_t len = std::strtoull(records.c_str() + at, nullptr, 10);
    if (space == std::string::npos || len == 0 || at + len > records.size()) break;
    const std::string record = records.substr(space + 1, at + len - space - 2);
    if (record.rfind("path=", 0) == 0) return record.substr(5);
    at += len;
  }
  return "";
}

using GzFile = std::unique_ptr<gzFile_s, int (*)(gzFile)>;

// Reads N bytes of a tar (gzread reads a plain file as it is) into *OUT; false at its end.
bool read_exactly(gzFile f, uint64_t n, std::string* out) {
  out->assign(n, '\0');
  for (uint64_t done = 0; done < n;) {
    const int got = gzread(f, out->data() + done, unsigned(std::min<uint64_t>(n - done, 1u << 20)));
    if (got <= 0) return false;
    done += uint64_t(got);
  }
  return true;
}

// One tar entry: its header's name, type and size, and its data read (padded to 512 bytes).
struct TarEntry {
  std::string name;
  char type = '0';
  uint64_t size = 0;
  std::string data;
};

// The next entry of F into *E; false at the end (two zero blocks, the file's end) or when the
// archive is refused (W says why).
bool next_tar_entry(gzFile f, Writer& w, TarEntry* e) {
  std::string header;
  if (!read_exactly(f, 512, &header) || header.find_first_not_of('\0') == std::string::npos) return false;
  const char* h = header.data();
  e->name = std::string(h, strnlen(h, 100));
  if (header.compare(257, 5, "ustar") == 0 && h[345] != '\0') e->name = std::string(h + 345, strnlen(h + 345, 155)) + "/" + e->name;
  e->type = h[156] == '\0' ? '0' : h[156];
  e->size = tar_number(h + 124, 12);
  if (!w.count_entry() || !w.check_size(e->name, e->size)) return false;
  if (!read_exactly(f, (e->size + 511) / 512 * 512, &e->data)) return w.refuse("the tar ends in the middle of " + valid_utf8(e->name));
  e->data.resize(e->size);
  return true;
}

// The tar's entries: plain files are made; a GNU long name (L) or a pax path (x) names the next.
bool unpack_tar(const std::string& path, Writer& w) {
  GzFile f(gzopen(path.c_str(), "rb"), gzclose);
  if (!f) return w.refuse("cannot be opened");
  std::string long_name;
  for (TarEntry e; next_tar_entry(f.get(), w, &e);) {
    if (e.type == 'L' || e.type == 'x') {
      long_name = e.type == 'L' ? std::string(e.data.c_str()) : pax_path(e.data);
      continue;
    }
    const std::string name = long_name.empty() ? e.name : long_name;
    long_name.clear();
    if (e.type == '5' || e.type == 'g') continue;  // a folder (made with its files), pax globals
    if (e.type != '0' && e.type != '7') {
      w.note(name, e.type == '2' ? "a symbolic link" : e.type == '1' ? "a hard link" : "not a plain file");
      continue;
    }
    const std::string safe = w.safe_name(name);
    if (!safe.empty() && !w.write(safe, e.data)) return false;
  }
  return !w.refused();
}

}  // namespace

bool is_archive(const std::string& path) {
  for (const char* end : {".zip", ".tar", ".tar.gz", ".tgz"}) {
    if (ends_with(path, end)) return true;
  }
  return false;
}

Unpacked unpack_archive(const std::string& archive, const std::string& dest, const ArchiveLimits& limits) {
  Unpacked out;
  Writer w(dest, limits, &out);
  if (mkdir(dest.c_str(), 0755) != 0) {
    out.error = "cannot make " + dest + ": " + std::strerror(errno);
    return out;
  }
  if (ends_with(archive, ".zip")) {
    std::ifstream in(archive, std::ios::binary);
    // The whole zip is read at once: its directory is at its end. A larger one is refused first.
    struct stat st;
    if (stat(archive.c_str(), &st) != 0 || uint64_t(st.st_size) > limits.total_bytes) {
      out.error = "the zip is larger than " + std::to_string(limits.total_bytes) + " bytes, or cannot be read";
      return out;
    }
    out.ok = unpack_zip(std::string(std::istreambuf_iterator<char>(in), {}), w);
  } else {
    out.ok = unpack_tar(archive, w);
  }
  if (!out.ok && out.error.empty()) out.error = "cannot be unpacked";
  return out;
}

}  // namespace grade
