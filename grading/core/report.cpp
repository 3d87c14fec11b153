#include "grading/core/report.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "grading/core/utf8.h"

namespace grade {

namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char ch : valid_utf8(s)) {
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      default:
        if (ch < 0x20) {
          char esc[8];
          snprintf(esc, sizeof esc, "\\u%04x", ch);
          out += esc;
        } else {
          out += char(ch);
        }
    }
  }
  return out + "\"";
}

std::string lab_title(const LabResult& lab) {
  return lab.title.empty() ? "lab " + lab.lab.substr(0, 2) + " " + lab.lab.substr(3) : lab.title;
}

}  // namespace

std::string points_text(double p) {
  char text[32];
  snprintf(text, sizeof text, std::fabs(p - std::round(p)) < 0.05 ? "%.0f" : "%.1f", p);
  return text;
}

double LabResult::points() const {
  double p = 0;
  for (const CheckResult& c : checks) p += c.points;
  return p;
}

double LabResult::max_points() const {
  double p = 0;
  for (const CheckResult& c : checks) p += c.max_points;
  return p;
}

const CheckResult* LabResult::find(const std::string& check) const {
  for (const CheckResult& c : checks) {
    if (c.name == check) return &c;
  }
  return nullptr;
}

const char* status_word(Status s) {
  switch (s) {
    case Status::kPass: return "OK";
    case Status::kFail: return "FAIL";
    case Status::kSkip: return "SKIP";
    case Status::kWaived: return "WAIVED";
  }
  return "?";
}

std::string check_text(const CheckResult& c) {
  char head[160];
  std::snprintf(head, sizeof head, "  %s: %s (%.1fs)", c.name.c_str(), status_word(c.status), c.seconds);
  std::string text = head;
  if (c.max_points > 0) text += "  " + points_text(c.points) + "/" + points_text(c.max_points);
  text += "\n";
  for (const std::string& line : c.details) text += "      " + line + "\n";
  return text;
}

std::string summary_line(const LabResult& lab) {
  std::string line = lab_title(lab) + ": " + points_text(lab.points()) + "/" + points_text(lab.max_points()) + " (";
  for (size_t i = 0; i < lab.checks.size(); ++i) {
    if (i > 0) line += ", ";
    line += lab.checks[i].name + " " + status_word(lab.checks[i].status);
  }
  return line + ")";
}

bool write_reports(const std::string& dir, const RunInfo& run, const std::vector<LabResult>& labs) {
  double score = 0, max_score = 0;
  for (const LabResult& l : labs) {
    score += l.points();
    max_score += l.max_points();
  }
  char header[512];
  snprintf(header, sizeof header, "Score: %s/%s (%s on %s, seed %llu: SEED=%llu reproduces the inputs)",
           points_text(score).c_str(), points_text(max_score).c_str(), run.src.c_str(), run.device.c_str(),
           (unsigned long long)run.seed, (unsigned long long)run.seed);

  std::ostringstream json;
  json << "{\n  \"score\": " << score << ",\n  \"execution_time\": " << int(run.seconds)
       << ",\n  \"output\": " << json_string(header + std::string("\nsandbox: ") + run.sandbox +
                                                      (run.counts.empty() ? "" : "\ntechnique counts: " + run.counts)) << ",\n  \"tests\": [";
  bool first = true;
  for (const LabResult& l : labs) {
    for (const CheckResult& c : l.checks) {
      std::string output;
      for (const std::string& line : c.details) output += line + "\n";
      json << (first ? "\n" : ",\n") << "    {\"name\": " << json_string(lab_title(l) + ": " + c.name)
           << ", \"score\": " << c.points << ", \"max_score\": " << c.max_points << ", \"status\": \""
           << (c.status == Status::kFail || c.points < c.max_points ? "failed" : "passed")
           << "\", \"output\": " << json_string(output)
           << ", \"visibility\": \"visible\"}";
      first = false;
    }
  }
  json << "\n  ]\n}\n";

  std::string summary;
  for (const LabResult& l : labs) summary += summary_line(l) + "\n";
  summary += std::string(header) + "\n";

  return write_atomically(dir + "/results.json", json.str()) && write_atomically(dir + "/summary.txt", summary);
}

bool write_could_not_grade(const std::string& dir, const std::string& why) {
  const std::string text = "make grade could not grade this submission: " + why;
  return write_atomically(dir + "/results.json",
                          "{\n  \"score\": 0,\n  \"output\": " + json_string(text) + ",\n  \"tests\": []\n}\n") &&
         write_atomically(dir + "/summary.txt", text + "\n");
}

std::string new_run_folder(const std::string& parent) {
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
  const std::string run = parent + "/" + stamp + "-" + std::to_string(getpid());
  std::error_code ec;
  std::filesystem::create_directories(run, ec);
  return ec ? "" : run;
}

bool point_latest(const std::string& parent, const std::string& run) {
  const std::string link = parent + "/latest", tmp = link + ".tmp-" + std::to_string(getpid());
  std::remove(tmp.c_str());
  const std::string name = run.substr(run.rfind('/') + 1);
  return symlink(name.c_str(), tmp.c_str()) == 0 && std::rename(tmp.c_str(), link.c_str()) == 0;
}

}  // namespace grade
