#include "grading/course/class/submitted.h"

#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "grading/core/late.h"

namespace grade {

namespace {

// The created_at of the submission_metadata.json in FOLDER, or -1.
int64_t metadata_time(const std::string& folder) {
  std::ifstream in(folder + "/submission_metadata.json", std::ios::binary);
  if (!in) return -1;
  std::stringstream text;
  text << in.rdbuf();
  // Parsed without exceptions: a file that is not JSON is a discarded value, and counts as none.
  const nlohmann::json metadata = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  int64_t seconds = -1;
  if (!metadata.is_object() || !metadata.contains("created_at") || !metadata["created_at"].is_string()) return -1;
  return parse_time(metadata["created_at"].get<std::string>(), &seconds) ? seconds : -1;
}

}  // namespace

std::vector<int64_t> submission_times(const std::string& top, const std::string& root, const std::vector<lab::LabEntry>& labs) {
  int64_t recorded = metadata_time(top);
  if (recorded < 0 && root != top) recorded = metadata_time(root);
  std::vector<int64_t> times;
  for (const lab::LabEntry& l : labs) {
    struct stat st;
    const std::string file = root + "/" + l.folder + "/" + l.file();
    const bool handed_in = lstat(file.c_str(), &st) == 0;
    times.push_back(!handed_in ? -1 : recorded >= 0 ? recorded : int64_t(st.st_mtim.tv_sec));
  }
  return times;
}

}  // namespace grade
