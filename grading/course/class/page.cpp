#include "grading/course/class/page.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "grading/core/report.h"
#include "tools/text.h"

namespace grade {

namespace {

Attempt attempt(const GradebookRow& r, size_t i) { return i < r.attempts.size() ? r.attempts[i] : Attempt::none; }

// How many students got each share of lab I's points (ten bins), as an inline SVG bar chart,
// among those who tried it; then how many did not.
std::string score_chart(const std::vector<GradebookRow>& rows, size_t i, const lab::LabEntry& lab) {
  std::vector<int> bins(11, 0);
  int tried = 0, not_started = 0, none = 0;
  for (const GradebookRow& r : rows) {
    if (attempt(r, i) != Attempt::tried) {
      ++(attempt(r, i) == Attempt::not_started ? not_started : none);
      continue;
    }
    ++tried;
    const double max = r.lab_max.size() > i ? r.lab_max[i] : 0;
    const double share = max > 0 && r.lab_points.size() > i ? r.lab_points[i] / max : 0;
    ++bins[size_t(std::lround(std::clamp(share, 0.0, 1.0) * 10))];
  }
  const int most = std::max(1, *std::max_element(bins.begin(), bins.end()));
  std::string svg = "<svg class=\"chart\" data-lab=\"" + lab.folder + "\" width=\"360\" height=\"150\" viewBox=\"0 0 360 150\" "
                    "role=\"img\" aria-label=\"lab " + lab.number + " scores\">";
  for (size_t b = 0; b < bins.size(); ++b) {
    const int h = 110 * bins[b] / most, x = 10 + int(b) * 31;
    svg += "<rect class=\"bar\" x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(120 - h) + "\" width=\"26\" height=\"" +
           std::to_string(h) + "\"><title>" + std::to_string(b * 10) + "%: " + std::to_string(bins[b]) + " students</title></rect>";
    svg += "<text x=\"" + std::to_string(x + 13) + "\" y=\"138\" text-anchor=\"middle\">" + std::to_string(b * 10) + "</text>";
    if (bins[b] > 0) svg += "<text x=\"" + std::to_string(x + 13) + "\" y=\"" + std::to_string(116 - h) + "\" text-anchor=\"middle\">" + std::to_string(bins[b]) + "</text>";
  }
  return svg + "</svg><p class=\"small attempts\">" + std::to_string(tried) + " tried it; " + std::to_string(not_started) +
         " handed in the skeleton as given (not started); " + std::to_string(none) + " handed in nothing for it</p>";
}

// The checks failed most often among the students who tried their lab (a lab not started fails
// its correctness as handed out: no news), each with its most common hint.
std::string failing_checks(const std::vector<GradebookRow>& rows, size_t labs) {
  std::map<std::string, int> count;
  std::map<std::string, size_t> lab_of;
  std::map<std::string, std::map<std::string, int>> hints;
  std::vector<int> tried(labs, 0);
  for (const GradebookRow& r : rows) {
    for (size_t i = 0; i < labs; ++i) tried[i] += attempt(r, i) == Attempt::tried;
    for (const FailedCheck& f : r.failed) {
      if (attempt(r, f.lab) != Attempt::tried) continue;
      ++count[f.check];
      lab_of[f.check] = f.lab;
      ++hints[f.check][f.hint];
    }
  }
  std::vector<std::pair<int, std::string>> order;
  for (const auto& [check, n] : count) order.push_back({-n, check});
  std::sort(order.begin(), order.end());
  if (order.empty()) return "<p>No check failed among the students who tried each lab.</p>";
  std::string html = "<table id=\"failing\"><tr><th>check</th><th>students who failed it, of those who tried the lab</th>"
                     "<th>most common hint</th></tr>";
  for (size_t k = 0; k < order.size() && k < 15; ++k) {
    const auto& h = hints[order[k].second];
    const auto top = std::max_element(h.begin(), h.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    html += "<tr><td>" + tools::xml_escape(order[k].second) + "</td><td>" + std::to_string(-order[k].first) + " of " +
            std::to_string(tried[lab_of[order[k].second]]) + "</td><td>" + tools::xml_escape(top->first) + "</td></tr>";
  }
  return html + "</table>";
}

// Lab I's fastest launchers among the students with a nickname (opt-in), fastest first.
std::string leaderboard(const std::vector<GradebookRow>& rows, size_t i, const ClassInfo& info) {
  std::vector<std::pair<double, std::string>> times;
  for (const GradebookRow& r : rows) {
    if (!r.student.nickname.empty() && r.launcher_ms.size() > i && r.launcher_ms[i] > 0) times.push_back({r.launcher_ms[i], r.student.nickname});
  }
  if (times.empty()) return "<p class=\"leaderboard\">No timings from students with a nickname.</p>";
  std::sort(times.begin(), times.end());
  std::string html = "<table class=\"leaderboard\"><tr><th>#</th><th>nickname</th><th>median (ms)</th></tr>";
  for (size_t k = 0; k < times.size() && k < 10; ++k) {
    char ms[32];
    std::snprintf(ms, sizeof ms, "%.3f", times[k].first);
    html += "<tr><td>" + std::to_string(k + 1) + "</td><td>" + tools::xml_escape(times[k].second) + "</td><td>" + ms + "</td></tr>";
  }
  return html + "</table><p class=\"small\">" + tools::xml_escape(info.device) + ", " + tools::xml_escape(info.date) + "</p>";
}

std::string student_rows(const std::vector<GradebookRow>& rows, const std::vector<lab::LabEntry>& labs) {
  std::string html = "<table id=\"students\"><tr><th>id</th><th>name</th><th>status</th>";
  for (const lab::LabEntry& l : labs) html += "<th>" + l.number + "</th>";
  html += "<th>total</th><th>notes</th><th>report</th></tr>";
  for (const GradebookRow& r : rows) {
    html += "<tr class=\"student\" data-id=\"" + tools::xml_escape(printable(r.student.id)) + "\"><td>" + tools::xml_escape(printable(r.student.id)) +
            "</td><td>" + tools::xml_escape(printable(r.student.name)) + "</td><td>" + tools::xml_escape(r.status) + "</td>";
    for (size_t i = 0; i < labs.size(); ++i) html += "<td>" + points_text(i < r.lab_points.size() ? r.lab_points[i] : 0) + "</td>";
    std::string notes;
    for (const std::string& n : r.notes) notes += (notes.empty() ? "" : "<br>") + tools::xml_escape(n);
    html += "<td>" + points_text(r.total()) + "/" + points_text(r.max_total()) + "</td><td class=\"small\">" + notes + "</td><td>";
    if (!r.report.empty()) html += "<a href=\"" + tools::xml_escape(r.report) + "/grade.log\">report</a> <a href=\"" + tools::xml_escape(r.report) + "/results.json\">json</a>";
    html += "</td></tr>";
  }
  return html + "</table>";
}

}  // namespace

std::string class_page(const std::vector<GradebookRow>& rows, const std::vector<lab::LabEntry>& labs, const ClassInfo& info) {
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Class summary</title><style>"
      "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:2px 6px}"
      ".bar{fill:#4a7ab5}.chart text{font-size:10px}.lab{display:inline-block;vertical-align:top;margin-right:2em}.small{font-size:smaller}"
      "</style></head><body>\n<h1>Class summary</h1>\n<p>" + std::to_string(rows.size()) + " students, graded on " + tools::xml_escape(info.device) +
      ", " + tools::xml_escape(info.date) + "; class seed " + std::to_string(info.class_seed) + " (each student's seed is in gradebook.csv).</p>\n";
  html += "<h2>Scores per lab</h2>\n<p class=\"small\">Students who tried the lab, per share of its points (0 to 100%); "
          "those who did not are counted apart.</p>\n";
  for (size_t i = 0; i < labs.size(); ++i) {
    html += "<div class=\"lab\"><h3>lab " + labs[i].number + " " + labs[i].stem + "</h3>" + score_chart(rows, i, labs[i]) + "</div>\n";
  }
  html += "<h2>Most common failing checks</h2>\n" + failing_checks(rows, labs.size()) + "\n<h2>Leaderboard</h2>\n";
  if (info.backend == "cpu") {
    // Said once: every lab's board would be empty for the same reason.
    html += "<p class=\"leaderboard\">No timings: the class was graded on the CPU backend, which times nothing.</p>\n";
  } else {
    html += "<p class=\"small\">Students who chose a nickname (the roster's nickname column), by their launcher's median time.</p>\n";
    for (size_t i = 0; i < labs.size(); ++i) html += "<h3>lab " + labs[i].number + " " + labs[i].stem + "</h3>" + leaderboard(rows, i, info) + "\n";
  }
  html += similarity_section(info.similarity);
  return html + "<h2>Students</h2>\n" + student_rows(rows, labs) + "\n</body></html>\n";
}

}  // namespace grade
