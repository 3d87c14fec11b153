#include "grading/student/access_page.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "tools/text.h"

namespace grade {

namespace {

// The instructions of a line that access memory alike: a line can hold several accesses
// (a[k] and B[k * N + col]), and an unrolled loop repeats each; a drawn request's lanes,
// relative to its first lane, tell them apart.
struct Pattern {
  std::string shape;  // each lane's number, offset from the first lane's, and width
  std::vector<LaneAccess> sample;
  Accesses traffic;
};

// One source line's requests of one space and kind: the model's, summed over the line's
// instructions, and Nsight Compute's when measured.
struct LineUse {
  std::string file, space, kind;
  int line = 0, width = 0;
  Accesses model;
  std::optional<Accesses> measured;
  std::vector<Pattern> patterns;  // the model's, busiest first
};

std::string shape_of(const std::vector<LaneAccess>& sample) {
  std::string shape;
  for (const LaneAccess& l : sample)
    shape += std::to_string(l.lane) + ":" + std::to_string(l.offset - sample.front().offset) + ":" + std::to_string(l.bytes) + ",";
  return shape;
}

void add_pattern(LineUse* u, const SiteCounts& s) {
  if (s.sample.empty()) return;
  const std::string shape = shape_of(s.sample);
  auto p = std::find_if(u->patterns.begin(), u->patterns.end(), [&](const Pattern& p) { return p.shape == shape; });
  if (p == u->patterns.end()) p = u->patterns.insert(u->patterns.end(), {shape, s.sample, {}});
  p->traffic.add(s.traffic);
}

using LineKey = std::tuple<std::string, int, std::string, std::string>;  // file, line, space, kind

// How many times the ideal a line's requests cost: sectors (global) or wavefronts (shared) per
// ideal one; the measured figure where there is one.
double cost(const std::string& space, const Accesses& a) {
  const double actual = space == "global" ? a.sectors : a.wavefronts, ideal = space == "global" ? a.ideal_sectors : a.ideal_wavefronts;
  return ideal > 0 ? actual / ideal : 1;
}

double times_ideal(const LineUse& u) { return cost(u.space, u.measured ? *u.measured : u.model); }

// The colour class of that: near the ideal, twice it, or worse.
const char* grade_class(double ratio) { return ratio <= 1.25 ? "ideal" : ratio <= 2 ? "near" : "far"; }

std::string number(double v, int decimals = 1) {
  char text[32];
  snprintf(text, sizeof text, "%.*f", decimals, v);
  return text;
}

std::map<LineKey, LineUse> lines_of(const RunCounts* model, const std::vector<MeasuredLine>& measured) {
  std::map<LineKey, LineUse> lines;
  if (model != nullptr)
    for (const KernelCounts& k : model->kernels)
      for (const SiteCounts& s : k.sites) {
        const size_t colon = s.location.rfind(':');
        if (colon == std::string::npos || (s.space != "global" && s.space != "shared") || s.kind == "atomic") continue;
        const std::string file = s.location.substr(0, colon);
        const int line = std::atoi(s.location.c_str() + colon + 1);
        LineUse& u = lines[{file, line, s.space, s.kind}];
        u.file = file, u.line = line, u.space = s.space, u.kind = s.kind;
        u.width = std::max(u.width, s.width);
        u.model.add(s.traffic);
        add_pattern(&u, s);
      }
  for (auto& [key, u] : lines)
    std::stable_sort(u.patterns.begin(), u.patterns.end(), [&](const Pattern& a, const Pattern& b) { return cost(u.space, a.traffic) > cost(u.space, b.traffic); });
  for (const MeasuredLine& m : measured) {
    LineUse& u = lines[{m.file, m.line, m.space, m.kind}];
    u.file = m.file, u.line = m.line, u.space = m.space, u.kind = m.kind;
    u.measured = m.traffic;
  }
  return lines;
}

// ---- one warp's request, drawn ----

constexpr int kLaneWidth = 24, kLeft = 70, kLaneTop = 24, kTargetTop = 140, kBoxHeight = 20;

std::string svg_text(int x, int y, const std::string& text, const char* anchor = "start") {
  return "<text x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) + "\" text-anchor=\"" + anchor + "\">" +
         tools::xml_escape(text) + "</text>";
}

std::string lane_row(const std::vector<LaneAccess>& sample) {
  std::string svg = svg_text(4, kLaneTop + 14, "lanes");
  for (const LaneAccess& l : sample)
    svg += "<rect class=\"lane\" x=\"" + std::to_string(kLeft + l.lane * kLaneWidth) + "\" y=\"" + std::to_string(kLaneTop) +
           "\" width=\"" + std::to_string(kLaneWidth - 2) + "\" height=\"" + std::to_string(kBoxHeight) + "\"/>" +
           svg_text(kLeft + l.lane * kLaneWidth + kLaneWidth / 2 - 1, kLaneTop + 14, std::to_string(l.lane), "middle");
  return svg;
}

// A link from a lane to the box it falls in; `target` names the box for a reader of the page
// (data-sector or data-bank).
std::string link(const LaneAccess& l, int x, const std::string& target) {
  return "<line class=\"link\" data-lane=\"" + std::to_string(l.lane) + "\" " + target + " x1=\"" +
         std::to_string(kLeft + l.lane * kLaneWidth + kLaneWidth / 2 - 1) + "\" y1=\"" + std::to_string(kLaneTop + kBoxHeight) +
         "\" x2=\"" + std::to_string(x) + "\" y2=\"" + std::to_string(kTargetTop) + "\"/>";
}

// A row of `count` boxes of the ideal, under the actual ones, its figure beside it.
std::string ideal_row(int count, int box, const std::string& label) {
  const int top = kTargetTop + kBoxHeight + 24;
  std::string svg = svg_text(4, top + 14, "ideal");
  for (int i = 0; i < count; ++i)
    svg += "<rect class=\"ideal-box\" x=\"" + std::to_string(kLeft + i * box) + "\" y=\"" + std::to_string(top) + "\" width=\"" +
           std::to_string(box - 2) + "\" height=\"" + std::to_string(kBoxHeight) + "\"/>";
  return svg + svg_text(std::max(kLeft + count * box, kLeft + 32 * kLaneWidth) + 8, top + 14, label);
}

// The figure beside the actual row, at the same place as the ideal's.
std::string actual_label(int right, const std::string& label) {
  return svg_text(std::max(right, kLeft + 32 * kLaneWidth) + 8, kTargetTop + 14, label);
}

// Global memory: the 32-byte sectors the lanes' bytes lie in, in address order, a gap where
// they are not adjacent; coloured by how many times the ideal they are (each one's share of
// bytes used in its tooltip).
std::string draw_global(const std::vector<LaneAccess>& sample, std::string* caption) {
  std::map<long long, int> used;  // sector -> bytes the lanes ask for in it
  std::set<long long> bytes;
  for (const LaneAccess& l : sample)
    for (long long b = l.offset; b < l.offset + l.bytes; ++b)
      if (bytes.insert(b).second) ++used[b / 32];
  const int count = int(used.size()), gaps = int(std::count_if(used.begin(), used.end(), [&](const auto& s) {
                                         return s.first != used.begin()->first && !used.count(s.first - 1);
                                       }));
  // A sector as wide as the 8 lanes whose floats it holds, when they fit: coalesced lanes then
  // fall straight down into it.
  const int box = std::clamp((32 * kLaneWidth - 8 * gaps) / std::max(count, 1), 6, 8 * kLaneWidth);
  const int ideal = int((bytes.size() + 31) / 32);
  const char* colour = grade_class(double(count) / std::max(ideal, 1));
  std::map<long long, int> x_of;
  std::string svg = svg_text(4, kTargetTop + 14, "sectors");
  int x = kLeft;
  for (const auto& [sector, n] : used) {
    if (x != kLeft && !used.count(sector - 1)) x += 8;  // not adjacent to the last one
    x_of[sector] = x;
    svg += "<rect class=\"sector " + std::string(colour) + "\" data-sector=\"" + std::to_string(sector) + "\" x=\"" +
           std::to_string(x) + "\" y=\"" + std::to_string(kTargetTop) + "\" width=\"" + std::to_string(box - 2) + "\" height=\"" +
           std::to_string(kBoxHeight) + "\"><title>bytes " + std::to_string(sector * 32) + "-" + std::to_string(sector * 32 + 31) +
           ": " + std::to_string(n) + " of 32 used</title></rect>";
    x += box;
  }
  // Each lane to where its bytes lie in the sector.
  for (const LaneAccess& l : sample)
    svg += link(l, x_of[l.offset / 32] + int((l.offset % 32 + std::min(l.bytes, 32) / 2.0) * (box - 2) / 32),
                "data-sector=\"" + std::to_string(l.offset / 32) + "\"");
  *caption = std::to_string(sample.size()) + " lanes ask for " + std::to_string(bytes.size()) + " bytes; " + std::to_string(count) +
             (count == 1 ? " sector of 32 bytes moves" : " sectors of 32 bytes move") + ", where " + std::to_string(ideal) +
             " would hold them";
  // The ideal's sectors as wide as 8 floats' lanes where they fit, whatever the actual row's width.
  const int ideal_box = std::clamp(32 * kLaneWidth / std::max(ideal, 1), 6, 8 * kLaneWidth);
  return svg + actual_label(x, std::to_string(count) + " sector" + (count == 1 ? "" : "s")) +
         ideal_row(ideal, ideal_box, std::to_string(ideal) + " sector" + (ideal == 1 ? "" : "s"));
}

// The ideal of a shared request: the 32 banks, each asked for IDEAL words (one wavefront each).
std::string shared_ideal_row(size_t ideal) {
  const int top = kTargetTop + kBoxHeight + 24;
  std::string svg = svg_text(4, top + 14, "ideal");
  for (int bank = 0; bank < 32; ++bank) {
    svg += "<rect class=\"ideal-box\" x=\"" + std::to_string(kLeft + bank * kLaneWidth) + "\" y=\"" + std::to_string(top) +
           "\" width=\"" + std::to_string(kLaneWidth - 2) + "\" height=\"" + std::to_string(kBoxHeight) + "\"/>";
    if (ideal > 1) svg += svg_text(kLeft + bank * kLaneWidth + kLaneWidth / 2 - 1, top + 14, "×" + std::to_string(ideal), "middle");
  }
  return svg;
}

// Shared memory: the 32 banks of 4-byte words; each shaded by the distinct words the warp asks
// of it (more than one: a bank conflict, served one wavefront per word).
std::string draw_shared(const std::vector<LaneAccess>& sample, std::string* caption) {
  std::map<int, std::set<long long>> words;  // bank -> words asked of it
  for (const LaneAccess& l : sample)
    for (long long w = l.offset / 4; w <= (l.offset + l.bytes - 1) / 4; ++w) words[int(w % 32)].insert(w);
  size_t worst = 0, distinct = 0;
  for (const auto& [bank, w] : words) worst = std::max(worst, w.size()), distinct += w.size();
  std::string svg = svg_text(4, kTargetTop + 14, "banks");
  for (int bank = 0; bank < 32; ++bank) {
    const size_t n = words.count(bank) ? words[bank].size() : 0;
    svg += "<rect class=\"bank ways" + std::to_string(std::min<size_t>(n, 4)) + "\" data-bank=\"" + std::to_string(bank) +
           "\" x=\"" + std::to_string(kLeft + bank * kLaneWidth) + "\" y=\"" + std::to_string(kTargetTop) + "\" width=\"" +
           std::to_string(kLaneWidth - 2) + "\" height=\"" + std::to_string(kBoxHeight) + "\"><title>bank " + std::to_string(bank) +
           ": " + std::to_string(n) + " word" + (n == 1 ? "" : "s") + "</title></rect>";
    if (n > 1) svg += svg_text(kLeft + bank * kLaneWidth + kLaneWidth / 2 - 1, kTargetTop + 14, "×" + std::to_string(n), "middle");
    svg += "<text class=\"bank-number\" x=\"" + std::to_string(kLeft + bank * kLaneWidth + kLaneWidth / 2 - 1) + "\" y=\"" +
           std::to_string(kTargetTop + kBoxHeight + 11) + "\" text-anchor=\"middle\">" + std::to_string(bank) + "</text>";
  }
  for (const LaneAccess& l : sample) {
    const int bank = int(l.offset / 4 % 32);
    svg += link(l, kLeft + bank * kLaneWidth + kLaneWidth / 2 - 1, "data-bank=\"" + std::to_string(bank) + "\"");
  }
  const size_t ideal = (distinct + 31) / 32;
  *caption = std::to_string(sample.size()) + " lanes ask for " + std::to_string(distinct) + " distinct word" + (distinct == 1 ? "" : "s") +
             (worst > 1 ? "; the busiest bank holds " + std::to_string(worst) + " of them, a " + std::to_string(worst) +
                              "-way bank conflict: one wavefront per word of that bank"
                        : ", no two in the same bank: no conflict");
  if (std::any_of(sample.begin(), sample.end(), [](const LaneAccess& l) { return l.bytes > 4; }))
    *caption += " (accesses of 8 and 16 bytes are served half a warp at a time: the figures above count that)";
  // The ideal in the same unit: every bank asked for as few words as the banks can share them.
  const std::string ideal_text = std::to_string(ideal) + " wavefront" + (ideal == 1 ? "" : "s") + " for " + std::to_string(distinct) + " words";
  std::string row = shared_ideal_row(ideal);
  return svg + actual_label(kLeft + 32 * kLaneWidth, "busiest bank: " + std::to_string(worst) + " word" + (worst == 1 ? "" : "s")) + row +
         svg_text(kLeft + 32 * kLaneWidth + 8, kTargetTop + kBoxHeight + 24 + 14, ideal_text);
}

// "4.0 sectors per request (ideal 4.0)"
std::string per_request(const std::string& space, const Accesses& a) {
  const double requests = std::max(a.requests, 1.0);
  return space == "global" ? number(a.sectors / requests) + " sectors per request (ideal " + number(a.ideal_sectors / requests) + ")"
                           : number(a.wavefronts / requests) + " wavefronts per request (ideal " + number(a.ideal_wavefronts / requests) + ")";
}

std::string pattern_drawing(const LineUse& u, const Pattern& p) {
  std::string caption;
  const std::string body = lane_row(p.sample) + (u.space == "global" ? draw_global(p.sample, &caption) : draw_shared(p.sample, &caption));
  return "<svg class=\"warp\" width=\"" + std::to_string(kLeft + 32 * kLaneWidth + 240) + "\" height=\"" +
         std::to_string(kTargetTop + 2 * kBoxHeight + 34) + "\" role=\"img\">" + body + "</svg>\n<p class=\"caption\">" +
         (u.patterns.size() > 1 ? "One of the line's " + std::to_string(u.patterns.size()) + " accesses, " + per_request(u.space, p.traffic) + ": " : "") +
         (u.patterns.size() > 1 ? "one" : "One") + std::string(" warp's request (the first warp of the first block, as the model ran it): ") +
         tools::xml_escape(caption) + ".</p>\n";
}

std::string drawing(const LineUse& u, const std::string& code, bool measured, const std::string& id_prefix) {
  const Accesses& a = u.measured ? *u.measured : u.model;
  const std::string per = per_request(u.space, a);
  std::string html = "<section class=\"use " + std::string(grade_class(times_ideal(u))) + "\" id=\"" + id_prefix + "use-" + std::to_string(u.line) + "-" +
                     u.space + "-" + u.kind + "\" data-line=\"" + std::to_string(u.line) + "\" data-space=\"" + u.space + "\" data-kind=\"" +
                     u.kind + "\">\n<h3>" + (id_prefix.empty() ? "<a href=\"#L" + std::to_string(u.line) + "\">line " + std::to_string(u.line) + "</a>" : "line " + std::to_string(u.line)) + ": " + u.space +
                     " " + u.kind + ", " + tools::xml_escape(per) + ", " + number(times_ideal(u)) + "&times; the ideal <span class=\"source\">" +
                     (measured && u.measured ? (u.patterns.empty() ? "measured" : "figures measured, lanes modelled") : "modelled") + "</span></h3>\n<pre>" + tools::xml_escape(code) + "</pre>\n";
  if (u.patterns.empty()) return html + "<p>No lanes to draw: the model did not run this line.</p>\n</section>\n";
  for (const Pattern& p : u.patterns) html += pattern_drawing(u, p);
  return html + "</section>\n";
}

// ---- the page ----

std::vector<std::string> read_lines(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

const char kStyle[] =
    "body{font-family:sans-serif;margin:1.5em;max-width:1200px}pre{margin:0}h3{font-size:1em;margin:.2em 0}"
    ".use{border-left:6px solid #999;padding:.3em .8em;margin:1em 0}.use.ideal{border-color:#2e7d32}.use.near{border-color:#f9a825}"
    ".use.far{border-color:#c62828}.use:target{background:#fffde7}.source{font-weight:normal;color:#555;font-size:.85em}"
    "svg text{font-size:11px;font-family:monospace}.bank-number{font-size:8px;fill:#666}.lane{fill:#e3f2fd;stroke:#1565c0}.link{stroke:#1565c0;stroke-width:1;opacity:.7}"
    ".sector,.bank{stroke:#333}.sector.ideal{fill:#81c784}.sector.near{fill:#fff59d}.sector.far{fill:#ef9a9a}"
    ".ways0{fill:#fafafa}.ways1{fill:#81c784}.ways2{fill:#fff59d}.ways3{fill:#ffcc80}.ways4{fill:#ef9a9a}.ideal-box{fill:#81c784;stroke:#333}"
    "table.code{border-collapse:collapse;font-family:monospace;font-size:13px}table.code td{padding:0 .5em;white-space:pre}"
    "td.n{color:#888;text-align:right}tr.ideal td.m{background:#2e7d32}tr.near td.m{background:#f9a825}tr.far td.m{background:#c62828}"
    "tr:target{background:#fffde7}.caption{color:#333;font-size:.9em}";

std::string source_listing(const std::string& file, const std::vector<std::string>& code, const std::map<int, std::vector<const LineUse*>>& uses) {
  std::string html = "<h2>" + tools::xml_escape(file) + "</h2>\n<table class=\"code\">\n";
  for (size_t i = 0; i < code.size(); ++i) {
    const int n = int(i + 1);
    auto it = uses.find(n);
    std::string mark, cls;
    if (it != uses.end()) {
      double worst = 0;
      for (const LineUse* u : it->second) {
        worst = std::max(worst, times_ideal(*u));
        mark += (mark.empty() ? "" : " ") + std::string("<a href=\"#use-") + std::to_string(n) + "-" + u->space + "-" + u->kind + "\">" +
                u->space + " " + u->kind + " " + number(times_ideal(*u)) + "&times;</a>";
      }
      cls = std::string(" class=\"") + grade_class(worst) + "\"";
    }
    html += "<tr id=\"L" + std::to_string(n) + "\"" + cls + "><td class=\"m\"></td><td class=\"n\">" + std::to_string(n) + "</td><td>" +
            tools::xml_escape(code[i]) + "</td><td>" + mark + "</td></tr>\n";
  }
  return html + "</table>\n";
}

// A run's lines, the furthest from the ideal first, with the source files they are in.
class Lines {
 public:
  Lines(std::map<LineKey, LineUse> lines, const std::string& root) : lines_(std::move(lines)) {
    for (const auto& [key, u] : lines_) worst_first.push_back(&u);
    // Ties: shared memory first (a tile's lines, where the lessons of labs 02-04 are), then in line order.
    std::stable_sort(worst_first.begin(), worst_first.end(), [](const LineUse* a, const LineUse* b) {
      return std::make_tuple(-times_ideal(*a), a->space != "shared", a->line) < std::make_tuple(-times_ideal(*b), b->space != "shared", b->line);
    });
    for (const LineUse* u : worst_first)
      if (!sources_.count(u->file)) sources_[u->file] = read_lines(root.empty() || u->file.front() == '/' ? u->file : root + "/" + u->file);
  }
  std::string drawings(bool measured, const std::string& id_prefix) const {
    std::string html;
    for (const LineUse* u : worst_first) {
      const std::vector<std::string>& code = source(u->file);
      html += drawing(*u, u->line >= 1 && u->line <= int(code.size()) ? code[u->line - 1] : "", measured, id_prefix);
    }
    return html;
  }
  std::map<std::string, std::map<int, std::vector<const LineUse*>>> by_file() const {
    std::map<std::string, std::map<int, std::vector<const LineUse*>>> files;
    for (const LineUse* u : worst_first) files[u->file][u->line].push_back(u);
    return files;
  }
  const std::vector<std::string>& source(const std::string& file) const { return sources_.at(file); }
  std::vector<const LineUse*> worst_first;

 private:
  std::map<LineKey, LineUse> lines_;
  std::map<std::string, std::vector<std::string>> sources_;
};

}  // namespace

std::string access_page_html(const AccessPage& page) {
  const bool measured = !page.measured_by.empty();
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>make profile: " + tools::xml_escape(page.title) +
                     "</title><style>" + kStyle + "</style></head><body>\n<h1>Memory access per line: " + tools::xml_escape(page.title) + "</h1>\n<p>";
  html += measured ? "Sectors and wavefronts per request of each line: <b>measured</b> by " + tools::xml_escape(page.measured_by) +
                         " (its source counters). The lanes: <b>modelled</b> by the CPU backend's memory model" +
                         (page.model_problem.empty() ? "" : " at " + tools::xml_escape(page.model_problem)) + "; a GPU does not say which lane went where."
                   : std::string("Every figure here is <b>modelled</b> by the CPU backend's memory model of an H100's L1 (cpusim/memory-model.md), not measured.");
  html += "</p>\n<p>Each line that reads or writes memory, the furthest from the ideal first: green within 1.25&times; of it, amber within "
          "2&times;, red beyond. For global memory the ideal is the fewest 32-byte sectors that hold the bytes the warp asks for; for shared "
          "memory, one wavefront per 32 distinct words (no bank conflict).</p>\n";
  Lines student(lines_of(page.model, page.measured), page.root);
  const bool launched = (page.model != nullptr && !page.model->kernels.empty()) || !page.measured.empty();
  if (!launched) {
    html += "<p>No kernel ran: there is nothing to draw. Fill in the lab's kernel and its launch, then run make profile again.</p>\n";
  } else if (student.worst_first.empty()) {
    html += "<p>No line of the run touched global or shared memory, or the lines are unknown.</p>\n";
  }
  html += student.drawings(measured, "");
  if (page.solution != nullptr) {
    Lines solution(lines_of(page.solution, {}), page.root);
    html += "<h2 id=\"solution\">The solution's lines, for comparison (modelled)</h2>\n" + solution.drawings(false, "solution-");
  }
  for (const auto& [file, uses] : student.by_file()) html += source_listing(file, student.source(file), uses);
  return html + "</body></html>\n";
}

std::vector<MeasuredLine> read_ncu_source_csv(const std::string& path, const std::string& root) {
  std::map<LineKey, MeasuredLine> lines;
  std::ifstream in(path);
  std::string file, kernel;
  int line = 0;
  std::map<std::string, size_t> column;  // the first column of each name
  for (std::string text; std::getline(in, text);) {
    const std::vector<std::string> cells = csv_cells(text);
    if (cells.size() < 2) continue;  // ncu's own messages
    if (cells[0] == "File Path") {
      file = cells[1];
      if (!root.empty() && file.rfind(root + "/", 0) == 0) file = file.substr(root.size() + 1);
    } else if (cells[0] == "Function Name") {
      kernel = kernel_base_name(cells[1]);
    } else if (cells[0] == "Line No") {
      column.clear();
      for (size_t i = 0; i < cells.size(); ++i) column.emplace(cells[i], i);
    } else if (!cells[0].empty()) {
      line = std::atoi(cells[0].c_str());  // a CUDA line: its instructions follow
    } else if (!column.empty()) {
      auto cell = [&](const char* name) {
        const auto c = column.find(name);
        return c == column.end() || c->second >= cells.size() ? std::string() : cells[c->second];
      };
      auto value = [&](const char* name) { return std::atof(cell(name).c_str()); };
      const std::string space = cell("Address Space") == "Global" ? "global" : cell("Address Space") == "Shared" ? "shared" : "";
      const std::string kind = cell("Access Operation") == "Load" ? "load" : cell("Access Operation") == "Store" ? "store" : "";
      if (space.empty() || kind.empty() || line == 0) continue;  // not a load or store of either
      MeasuredLine& m = lines[{kernel + "\t" + file, line, space, kind}];
      m.kernel = kernel, m.file = file, m.line = line, m.space = space, m.kind = kind;
      m.traffic.requests += value("Instructions Executed");
      if (space == "global") {
        m.traffic.sectors += value("L2 Theoretical Sectors Global");
        m.traffic.ideal_sectors += value("L2 Theoretical Sectors Global Ideal");
      } else {
        m.traffic.wavefronts += value("L1 Wavefronts Shared");
        m.traffic.ideal_wavefronts += value("L1 Wavefronts Shared Ideal");
      }
    }
  }
  std::vector<MeasuredLine> measured;
  for (const auto& [key, m] : lines) measured.push_back(m);
  return measured;
}

}  // namespace grade
