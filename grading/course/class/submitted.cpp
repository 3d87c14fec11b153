#include "grading/course/class/submitted.h"

#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "grading/core/late.h"

namespace grade {

namespace {

// FOLDER/NAME parsed as JSON; a discarded value when it is missing or no JSON (no exceptions).
nlohmann::json read_json(const std::string& folder, const char* name) {
  std::ifstream in(folder + "/" + name, std::ios::binary);
  if (!in) return nlohmann::json(nlohmann::json::value_t::discarded);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
}

// The created_at of the submission_metadata.json in FOLDER, or -1.
int64_t metadata_time(const std::string& folder) {
  const nlohmann::json metadata = read_json(folder, "submission_metadata.json");
  int64_t seconds = -1;
  if (!metadata.is_object() || !metadata.contains("created_at") || !metadata["created_at"].is_string()) return -1;
  return parse_time(metadata["created_at"].get<std::string>(), &seconds) ? seconds : -1;
}

bool handed_in(const std::string& root, const lab::LabEntry& l, struct stat* st) {
  return lstat((root + "/" + l.folder + "/" + l.file()).c_str(), st) == 0;
}

}  // namespace

std::vector<int64_t> submission_times(const std::string& top, const std::string& root, const std::vector<lab::LabEntry>& labs) {
  int64_t recorded = metadata_time(top);
  if (recorded < 0 && root != top) recorded = metadata_time(root);
  std::vector<int64_t> times;
  for (const lab::LabEntry& l : labs) {
    struct stat st;
    times.push_back(!handed_in(root, l, &st) ? -1 : recorded >= 0 ? recorded : int64_t(st.st_mtim.tv_sec));
  }
  return times;
}

std::string download_record_json(const DownloadRecord& r) {
  nlohmann::json j = {{"source", r.source}, {"name", r.name}, {"canvas_id", r.canvas_id}, {"late", r.late}, {"notes", r.notes}};
  j["created_at"] = r.created_at.empty() ? nlohmann::json() : nlohmann::json(r.created_at);
  return j.dump(2) + "\n";
}

DownloadRecord read_download_record(const std::string& folder) {
  const nlohmann::json j = read_json(folder, kDownloadRecord);
  DownloadRecord r;
  if (!j.is_object()) return r;
  auto text = [&](const char* key) { return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string(); };
  r.found = true;
  r.source = text("source");
  r.name = text("name");
  r.canvas_id = text("canvas_id");
  r.created_at = text("created_at");
  r.late = j.contains("late") && j["late"].is_boolean() && j["late"].get<bool>();
  if (j.contains("notes") && j["notes"].is_array()) {
    for (const nlohmann::json& n : j["notes"]) {
      if (n.is_string()) r.notes.push_back(n.get<std::string>());
    }
  }
  return r;
}

std::vector<int64_t> recorded_times(const DownloadRecord& record, const std::string& root, const std::vector<lab::LabEntry>& labs) {
  int64_t seconds = -1;
  if (!parse_time(record.created_at, &seconds)) seconds = -1;
  std::vector<int64_t> times;
  for (const lab::LabEntry& l : labs) {
    struct stat st;
    times.push_back(handed_in(root, l, &st) ? seconds : -1);
  }
  return times;
}

}  // namespace grade
