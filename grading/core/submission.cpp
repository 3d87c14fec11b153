#include "grading/core/submission.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>

#include "grading/core/isolation.h"
#include "tools/subprocess.h"

namespace grade {

namespace fs = std::filesystem;

namespace {

std::string read_all(const std::string& path, bool* ok) {
  std::ifstream in(path, std::ios::binary);
  *ok = bool(in);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string resolved(const std::string& path) {
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(path, ec);
  return ec ? path : p.string();
}

// The prerequisites of the first rule of a make dependency file, unescaped ("\ " is a space in
// a name, "$$" a dollar sign, a backslash at the end of a line continues it).
std::vector<std::string> first_rule_prerequisites(const std::string& text) {
  std::vector<std::string> names;
  std::string name;
  bool after_colon = false;
  auto flush = [&] {
    if (!name.empty() && after_colon) names.push_back(name);
    name.clear();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
      const char next = text[i + 1];
      if (next == '\n') {
        flush();
        ++i;
        continue;
      }
      if (next == ' ' || next == '#' || next == '\\') {
        name += next;
        ++i;
        continue;
      }
    }
    if (c == '$' && i + 1 < text.size() && text[i + 1] == '$') {
      name += '$';
      ++i;
      continue;
    }
    if (c == '\n') {
      flush();
      if (after_colon) break;  // the end of the first rule
      continue;
    }
    if (c == ' ' || c == '\t') {
      flush();
      continue;
    }
    if (c == ':' && !after_colon && (i + 1 == text.size() || text[i + 1] == ' ' || text[i + 1] == '\n')) {
      name.clear();  // the target
      after_colon = true;
      continue;
    }
    name += c;
  }
  flush();
  return names;
}

}  // namespace

std::string not_a_plain_file(const std::string& folder, const std::string& file) {
  constexpr off_t kMaxBytes = 1 << 20;
  struct stat st;
  for (const std::string& path : {folder, file}) {
    if (lstat(path.c_str(), &st) != 0) return "no file " + file;
    if (S_ISLNK(st.st_mode)) return path + " is a symbolic link: hand in the file itself";
  }
  if (!S_ISREG(st.st_mode)) return file + " is not a regular file";
  if (st.st_size > kMaxBytes) return file + " is larger than 1 MiB";
  return "";
}

std::string copy_by_content(const std::string& file, const std::string& dir, const std::string& name, std::string* error) {
  bool ok = false;
  const std::string text = read_all(file, &ok);
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::string incoming = dir + "/incoming-" + std::string(6, 'X');  // mkstemp's template: six X's it replaces
  const int fd = ok && !ec ? mkstemp(incoming.data()) : -1;
  if (fd < 0) {
    *error = ok ? "cannot write a private copy in " + dir : "cannot read " + file;
    return "";
  }
  // Readable by the builds, which run as another user (mkstemp makes it the grader's alone).
  const bool written = write(fd, text.data(), text.size()) == ssize_t(text.size()) && fchmod(fd, 0644) == 0;
  close(fd);
  const std::string hash = written ? fingerprint(incoming) : "";
  const std::string folder = dir + "/" + hash;
  const std::string copy = folder + "/" + name;
  bool had = false;
  if (!hash.empty() && read_all(copy, &had) == text && had) {
    fs::remove(incoming, ec);
    return folder;
  }
  fs::create_directories(fs::path(copy).parent_path(), ec);
  if (hash.empty() || ec || std::rename(incoming.c_str(), copy.c_str()) != 0) {
    fs::remove(incoming, ec);
    *error = "cannot write the private copy " + copy;
    return "";
  }
  return folder;
}

std::set<std::string> cxx_library_exports() {
  tools::RunResult where = tools::run_command({"g++", "-print-file-name=libstdc++.so"});
  std::string library = where.output.substr(0, where.output.find('\n'));
  const tools::RunResult r = tools::run_command({"nm", "-D", "--defined-only", "-P", library});
  std::set<std::string> names;
  std::istringstream lines(r.exited(0) ? r.output : "");
  // "name@@GLIBCXX_3.4.18 T ...": the name without its version.
  for (std::string line; std::getline(lines, line);) names.insert(line.substr(0, line.find_first_of("@ ")));
  return names;
}

std::vector<std::string> system_include_roots() {
  std::vector<std::string> roots;
  const tools::RunResult r = tools::run_command({"g++", "-x", "c++", "-E", "-v", "-"});
  std::istringstream lines(r.output);
  bool in_list = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("#include <...> search starts here:", 0) == 0) in_list = true;
    else if (line.rfind("End of search list.", 0) == 0) in_list = false;
    else if (in_list && line.size() > 1 && line[0] == ' ') roots.push_back(resolved(line.substr(1)));
  }
  // The toolkit's headers, where nvcc finds them: beside the nvcc in PATH, or CUDA's usual home.
  const tools::RunResult nvcc = tools::run_command({"sh", "-c", "command -v nvcc"});
  std::string nvcc_path = nvcc.exited(0) ? nvcc.output.substr(0, nvcc.output.find('\n')) : "";
  if (nvcc_path.empty() && fs::exists("/usr/local/cuda/bin/nvcc")) nvcc_path = "/usr/local/cuda/bin/nvcc";
  if (!nvcc_path.empty()) roots.push_back(fs::path(resolved(nvcc_path)).parent_path().parent_path().string());
  roots.push_back(resolved("cpusim/include"));
  return roots;
}

std::string foreign_include(const std::string& dep_file, const std::vector<std::string>& own,
                            const std::vector<std::string>& roots) {
  bool ok = false;
  const std::string text = read_all(dep_file, &ok);
  const std::vector<std::string> names = first_rule_prerequisites(text);
  if (!ok || names.empty()) return dep_file;
  std::vector<std::string> own_paths;
  for (const std::string& file : own) own_paths.push_back(resolved(file));
  for (const std::string& name : names) {
    const std::string path = resolved(name);
    if (std::find(own_paths.begin(), own_paths.end(), path) != own_paths.end()) continue;
    bool inside = false;
    for (const std::string& root : roots) inside |= path.compare(0, root.size() + 1, root + "/") == 0;
    if (!inside) return path;
  }
  return "";
}

std::string public_headers_text(const std::string& public_dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(public_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file()) names.push_back(fs::relative(it->path(), public_dir).string());
  }
  std::sort(names.begin(), names.end());
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

std::string include_line(const std::string& file, const std::string& foreign) {
  static const std::regex include(R"(^\s*#\s*include\s*[<"]([^>"]+)[>"])");
  const std::string wanted = fs::path(foreign).filename().string();
  std::ifstream in(file);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    std::smatch m;
    if (std::regex_search(line, m, include) && fs::path(m[1].str()).filename().string() == wanted) {
      return "line " + std::to_string(number) + ": " + line.substr(line.find('#'));
    }
  }
  return "";
}

}  // namespace grade
