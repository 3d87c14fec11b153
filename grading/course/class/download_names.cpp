// The names in an LMS's download (download_names.h).
#include "grading/course/class/download_names.h"

#include <algorithm>
#include <cctype>

#include "grading/course/class/archive.h"
#include "grading/core/utf8.h"

namespace grade::download {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

bool all_digits(const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/', path.size() > 1 ? path.size() - 2 : 0);
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool mac_noise(const std::string& name) {
  return name.rfind("__MACOSX/", 0) == 0 || name == "__MACOSX" || base_name(name) == ".DS_Store";
}

bool usable_folder_name(const std::string& id) {
  if (id.empty() || id.size() > 200 || id[0] == '.' || valid_utf8(id) != id || is_archive(id)) return false;
  for (unsigned char c : id) {
    if (c < 0x20 || c == 0x7F || c == '/') return false;
  }
  return true;
}

std::string archive_ending(const std::string& name) {
  for (const char* end : {".tar.gz", ".tgz", ".zip", ".tar"}) {
    const std::string e = end;
    if (name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0) return e;
  }
  return "";
}

std::string without_copy_number(const std::string& file) {
  size_t dot = file.find('.');
  if (dot == std::string::npos) dot = file.size();
  const size_t dash = file.rfind('-', dot);
  if (dash == std::string::npos || !all_digits(file.substr(dash + 1, dot - dash - 1))) return file;
  return file.substr(0, dash) + file.substr(dot);
}

bool numerically_less(const std::string& a, const std::string& b) { return a.size() != b.size() ? a.size() < b.size() : a < b; }

size_t depth_of(const std::string& name) { return size_t(std::count(name.begin(), name.end(), '/')); }

bool submission_folder(const std::string& name) { return name.rfind("submission_", 0) == 0 && all_digits(name.substr(11)); }

}  // namespace grade::download
