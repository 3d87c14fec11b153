#include "grading/course/class/similarity.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tools/subprocess.h"
#include "tools/text.h"
#include "grading/course/class/roster.h"
#include "grading/core/report.h"

namespace grade {

namespace {

using nlohmann::json;

// Pairs the class page lists; the report has them all.
constexpr size_t kPagePairs = 50;

// A plain file the grader would read (1 MiB at most), not a link or a FIFO.
bool is_plain_file(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= (1 << 20);
}

// scripts/similarity's input: per lab, its skeleton, its solution where this checkout has it, and
// each student's file that is there, copied into DIR/files/<student's slug>/ (a student's path
// may be any bytes; JSON holds UTF-8).
json files_of(const std::string& dir, const std::vector<StudentFolder>& students, const std::vector<lab::LabEntry>& labs) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::remove_all(dir + "/files", ec);
  json input = {{"labs", json::array()}};
  for (const lab::LabEntry& l : labs) {
    json files = json::array();
    for (const StudentFolder& s : students) {
      const std::string from = s.root + "/" + l.folder + "/" + l.file(), to = dir + "/files/" + student_slug(s.id) + "/" + l.file();
      if (!is_plain_file(from)) continue;
      fs::create_directories(fs::path(to).parent_path(), ec);
      if (fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec)) files.push_back({{"id", printable(s.id)}, {"path", to}});
    }
    json lab = {{"folder", l.folder}, {"skeleton", "labs/" + l.folder + "/" + l.file()}, {"files", files}};
    const std::string solution = "solutions/" + l.folder + "/" + l.file();
    if (is_plain_file(solution)) lab["solution"] = solution;
    input["labs"].push_back(lab);
  }
  return input;
}

// The detector's interpreter: the environment scripts/install-deps similarity made, else the
// system's (where copydetect may be installed otherwise).
std::string python() { return access("build/similarity-env/bin/python3", X_OK) == 0 ? "build/similarity-env/bin/python3" : "python3"; }

// The first line of what scripts/similarity said, without its "similarity: ".
std::string first_line(const std::string& text) {
  const std::string line = tools::trim(text.substr(0, text.find('\n')));
  return line.rfind("similarity: ", 0) == 0 ? line.substr(12) : line;
}

// The flagged pairs and the labs' notes from the detector's similarity.json at PATH.
bool read_summary(const std::string& path, Similarity* s) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const json summary = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!in || summary.is_discarded() || !summary.contains("labs") || !summary["labs"].is_array()) return false;
  for (const json& lab : summary["labs"]) {
    const std::string folder = lab.value("folder", "");
    for (const json& p : lab.value("flagged", json::array())) {
      s->flagged.push_back({folder, p.value("a", ""), p.value("b", ""), p.value("score", 0.0), p.value("overlap", 0)});
    }
    for (const json& c : lab.value("handed_in_solution", json::array())) {
      s->handed_in_solution.push_back({folder, c.value("id", ""), c.value("share", 0.0)});
    }
    if (!lab.value("informative", true)) {
      s->lab_notes.push_back("lab " + folder + ": " + std::to_string(lab.value("above", 0)) + " of " +
                             std::to_string(lab.value("pairs_with_own_code", 0)) +
                             " pairs that wrote code of their own are above the threshold: the class's code for this lab is "
                             "alike, from a task too short or too constrained to tell copying from doing the same work, or from "
                             "a source most of the class shares; its pairs are in the report, not flagged: read it");
    }
  }
  return true;
}

}  // namespace

Similarity similarity_report(const std::string& out, const std::vector<StudentFolder>& students, const std::vector<lab::LabEntry>& labs,
                             int threshold_percent) {
  Similarity s;
  const std::string dir = out + "/similarity";
  if (!write_atomically(dir + "/files.json", files_of(dir, students, labs).dump(1) + "\n")) {
    return s.line = "similarity: not made: cannot write " + dir + "/files.json", s;
  }
  char threshold[16];
  std::snprintf(threshold, sizeof threshold, "%.2f", threshold_percent / 100.0);
  tools::RunOptions options;
  options.timeout_s = 1800;
  const tools::RunResult r =
      tools::run_command({python(), "scripts/similarity", "--files", dir + "/files.json", "--out", dir, "--threshold", threshold}, options);
  if (r.exited(2) && tools::contains(r.output, "scripts/install-deps similarity")) {
    return s.line = "similarity: not made (grading is not affected): " + first_line(r.output), s;
  }
  if (!r.exited(0)) {
    return s.line = "similarity: not made (grading is not affected): " + python() + " scripts/similarity " + r.describe() + ": " +
                    first_line(r.output) + " (scripts/install-deps similarity installs the detector)", s;
  }
  if (!read_summary(dir + "/similarity.json", &s)) return s.line = "similarity: not made: no similarity.json from scripts/similarity", s;
  s.report = "similarity/similarity.html";
  s.line = "similarity: " + std::to_string(s.flagged.size()) + " pairs flagged (a score of " + std::to_string(threshold_percent) +
           "% or more), labs handed in as the solution: " + std::to_string(s.handed_in_solution.size()) + ", in " + dir +
           "/similarity.html";
  return s;
}

std::string similarity_section(const Similarity& s) {
  std::string html = "<h2>Similarity</h2>\n<p id=\"similarity\">" + tools::xml_escape(s.line.substr(s.line.find(": ") + 2));
  if (!s.report.empty()) {
    html += " <a href=\"" + tools::xml_escape(s.report) + "\">The report</a> has every lab's pairs and their code side by side.";
  }
  html += "</p>\n";
  for (const std::string& note : s.lab_notes) html += "<p class=\"small\">" + tools::xml_escape(note) + "</p>\n";
  if (!s.handed_in_solution.empty()) {
    html += "<p>Handed in the instructor's solution (the share of the student's own code that is the solution's; where a "
            "lab's code is a few lines, a right answer of one's own can be the solution token for token: read the file "
            "before concluding):</p>\n"
            "<table id=\"solution-copies\"><tr><th>lab</th><th>student</th><th>share</th></tr>";
    for (size_t i = 0; i < s.handed_in_solution.size() && i < kPagePairs; ++i) {
      const SolutionCopy& c = s.handed_in_solution[i];
      html += "<tr class=\"flagged\"><td>" + tools::xml_escape(c.lab) + "</td><td>" + tools::xml_escape(c.id) + "</td><td>" +
              std::to_string(int(c.share * 100 + 0.5)) + "%</td></tr>";
    }
    html += "</table>\n";
    if (s.handed_in_solution.size() > kPagePairs) {
      html += "<p class=\"small\">and " + std::to_string(s.handed_in_solution.size() - kPagePairs) + " more in the report.</p>\n";
    }
  }
  if (s.flagged.empty()) return html;
  html += "<table id=\"flagged\"><tr><th>lab</th><th>student</th><th>student</th><th>score</th></tr>";
  for (size_t i = 0; i < s.flagged.size() && i < kPagePairs; ++i) {
    const SimilarPair& p = s.flagged[i];
    html += "<tr class=\"flagged\"><td>" + tools::xml_escape(p.lab) + "</td><td>" + tools::xml_escape(p.a) + "</td><td>" +
            tools::xml_escape(p.b) + "</td><td>" + std::to_string(int(p.score * 100 + 0.5)) + "%</td></tr>";
  }
  html += "</table>\n";
  if (s.flagged.size() > kPagePairs) {
    html += "<p class=\"small\">and " + std::to_string(s.flagged.size() - kPagePairs) + " more in the report.</p>\n";
  }
  return html;
}

}  // namespace grade
