// A solution's row from its lab program, and the renderings of bench_report.h, written out by
// hand: the workbook depends on no plotting or templating tool, and an SVG of bars and text is
// a few lines of markup.
#include "harness/bench_report.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "common/exit_codes.h"
#include "common/protocol.h"
#include "tools/subprocess.h"
#include "tools/text.h"

namespace lab {

namespace {

std::string first_line(const std::string& text) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const size_t start = line.find_first_not_of(' ');
    if (start != std::string::npos) return line.substr(start);
  }
  return "";
}

// The cells every rendering shows for a row. Not-timed rows have "-" for numbers and say
// why in `share`.
struct Cells {
  std::string name, median, spread, rate, share;
};

std::string row_name(const BenchGroup& g, const BenchRow& row) {
  return &row == &g.rows[g.ceiling] ? row.name + " (ceiling)" : row.name;
}

std::string status_text(const BenchRow& row) {
  return row.status == BenchRow::Status::kWrong ? "wrong result, not timed" : "did not run, not timed";
}

std::string number(const char* format, double value) {
  char text[64];
  snprintf(text, sizeof text, format, value);
  return text;
}

Cells cells_of(const BenchGroup& g, const BenchRow& row) {
  Cells c;
  c.name = row_name(g, row);
  if (row.status != BenchRow::Status::kTimed) {
    c.median = c.spread = c.rate = "-";
    c.share = status_text(row);
    return c;
  }
  c.median = number("%.3f", row.median_ms);
  c.spread = number("%.3f", row.min_ms) + "-" + number("%.3f", row.max_ms);
  c.rate = number("%.2f ", g.problem.rate(row.median_ms)) + g.problem.rate_unit();
  const double share = g.share(row);
  c.share = share < 0 ? "-" : number("%.1f%%", 100 * share);
  return c;
}

std::string pad(const std::string& text, size_t width, bool right) {
  if (text.size() >= width) return text;
  const std::string fill(width - text.size(), ' ');
  return right ? fill + text : text + fill;
}

// A Markdown table cell: a '|' would end it.
std::string md_cell(const std::string& text) {
  std::string out;
  for (char ch : text) out += ch == '|' ? std::string("\\|") : std::string(1, ch);
  return out;
}

constexpr const char* kSolutionColor = "#3b6fb6";
constexpr const char* kLibraryColor = "#9aa5b1";
constexpr const char* kCeilingColor = "#4a4a4a";

// The chart's layout, in pixels: labels right-aligned before the bars, the bars from bar_x, a
// share of axis_max spanning bar_span, the value after each bar.
struct SvgLayout {
  static constexpr double width = 900, label_x = 290, bar_x = 300, bar_span = 430, row_h = 22, bar_h = 14;
  static constexpr double group_head = 26, group_gap = 8, top = 120;
  double axis_max = 1.0;
  double height = top;

  double x_of(double share) const { return bar_x + bar_span * share / axis_max; }
};

SvgLayout svg_layout(const BenchReport& report) {
  SvgLayout l;
  for (const BenchGroup& g : report.groups) {
    for (const BenchRow& row : g.rows) l.axis_max = std::max(l.axis_max, g.share(row));
  }
  l.axis_max = std::ceil(l.axis_max * 4 - 1e-9) / 4;  // to the next 25%
  for (const BenchGroup& g : report.groups) l.height += l.group_head + l.row_h * double(g.rows.size()) + l.group_gap;
  l.height += 30;
  return l;
}

// The opening tag, the background, the title and what the chart shows.
void svg_heading(std::ostream& svg, const BenchReport& report, const SvgLayout& l) {
  char text[1024];
  snprintf(text, sizeof text,
           "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
           "font-family=\"sans-serif\" font-size=\"12\">\n",
           l.width, l.height, l.width, l.height);
  svg << text << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg << "<text x=\"16\" y=\"24\" font-size=\"16\" font-weight=\"bold\">The labs' solutions against their ceilings, "
      << tools::xml_escape(report.gpu.substr(0, report.gpu.find(','))) << "</text>\n";
  svg << "<text x=\"16\" y=\"44\" fill=\"#555\">Speed as a share of the ceiling's (the ceiling's median time over each "
         "one's), medians of "
      << report.reps << " runs</text>\n<text x=\"16\" y=\"60\" fill=\"#555\">" << tools::xml_escape(report.date) << "; "
      << tools::xml_escape(report.command) << "</text>\n";
}

// What each color is.
void svg_legend(std::ostream& svg) {
  const char* legend[][2] = {{kSolutionColor, "lab solution"}, {kLibraryColor, "library or copy"},
                             {kCeilingColor, "the group's ceiling"}};
  char text[1024];
  for (size_t i = 0; i < 3; ++i) {
    snprintf(text, sizeof text,
             "<rect x=\"%zu\" y=\"72\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%zu\" y=\"82\">%s</text>\n",
             16 + 150 * i, legend[i][0], 32 + 150 * i, legend[i][1]);
    svg << text;
  }
}

// A line and a label every 25%, 100% drawn darker.
void svg_axis(std::ostream& svg, const SvgLayout& l) {
  char text[1024];
  for (double s = 0; s <= l.axis_max + 1e-9; s += 0.25) {
    const bool full = std::fabs(s - 1.0) < 1e-9;
    snprintf(text, sizeof text,
             "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"%s\"%s/>"
             "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\" fill=\"#555\">%.0f%%</text>\n",
             l.x_of(s), l.top - 8, l.x_of(s), l.height - 24, full ? kCeilingColor : "#dddddd",
             full ? " stroke-dasharray=\"4 3\"" : "", l.x_of(s), l.top - 14, 100 * s);
    svg << text;
  }
}

// A row's label, and its bar with the share and the rate, or why it has none; at height y.
void svg_row(std::ostream& svg, const BenchGroup& g, const BenchRow& row, const SvgLayout& l, double y) {
  const bool ceiling = &row == &g.rows[g.ceiling];
  const char* kind = ceiling ? "ceiling" : row.solution ? "solution" : "library";
  const char* color = ceiling ? kCeilingColor : row.solution ? kSolutionColor : kLibraryColor;
  const double share = g.share(row);
  char text[1024];
  snprintf(text, sizeof text, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%s</text>", l.label_x,
           y + l.bar_h - 2, tools::xml_escape(row_name(g, row)).c_str());
  svg << text;
  if (share >= 0) {
    const double w = l.x_of(share) - l.bar_x;
    snprintf(text, sizeof text,
             "<rect class=\"%s\" x=\"%.0f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\" fill=\"%s\"><title>%s: %.1f%%"
             "</title></rect><text x=\"%.1f\" y=\"%.1f\">%.1f%% (%.2f %s)</text>\n",
             kind, l.bar_x, y, w, l.bar_h, color, tools::xml_escape(row.name).c_str(), 100 * share, l.bar_x + w + 6,
             y + l.bar_h - 2, 100 * share, g.problem.rate(row.median_ms), g.problem.rate_unit());
  } else {
    const bool timed = row.status == BenchRow::Status::kTimed;
    snprintf(text, sizeof text, "<text class=\"not-timed\" x=\"%.0f\" y=\"%.1f\" fill=\"%s\">%s</text>\n",
             l.bar_x + 6, y + l.bar_h - 2, timed ? "#555" : "#c0392b",
             timed ? "timed, but its ceiling was not: no share" : status_text(row).c_str());
  }
  svg << text;
}

}  // namespace

std::string BenchGroup::title() const { return std::string(op_name(problem.op)) + " " + problem.describe(); }

double BenchGroup::share(const BenchRow& row) const {
  const BenchRow& top = rows[ceiling];
  if (row.status != BenchRow::Status::kTimed || top.status != BenchRow::Status::kTimed) return -1;
  if (row.median_ms <= 0 || top.median_ms <= 0) return -1;
  return top.median_ms / row.median_ms;
}

BenchRow run_solution(const std::string& program, const std::string& lab_name, const Case& c, int reps,
                      const std::string& result_file) {
  BenchRow row;
  row.name = lab_name.substr(0, 2) + " " + lab_name.substr(3);  // "01 matmul_naive"
  row.solution = true;
  std::vector<std::string> argv = {program};
  for (const std::string& arg : c.size_args()) argv.push_back(arg);
  for (const std::string& arg : {std::string("--reps"), std::to_string(reps), std::string("--quiet"),
                                 std::string("--no-edges"), std::string("--result"), result_file}) {
    argv.push_back(arg);
  }
  // Generous: an 8192³ product takes the naive solution seconds, its fp64 check a few more.
  tools::RunOptions options;
  options.timeout_s = 600;
  // The file of an earlier run must not be read for a run that dies before writing its own.
  std::remove(result_file.c_str());
  const tools::RunResult r = tools::run_command(argv, options);
  const ResultFields f = read_result_file(result_file);
  if (r.exited(kExitPass) && f.count("check") && f.at("check") == "pass" && f.count("min_ms")) {
    row.status = BenchRow::Status::kTimed;
    row.median_ms = std::stod(f.at("median_ms"));
    row.min_ms = std::stod(f.at("min_ms"));
    row.max_ms = std::stod(f.at("max_ms"));
    row.runs = std::stoi(f.at("runs"));
    return row;
  }
  row.status = r.exited(kExitWrong) ? BenchRow::Status::kWrong : BenchRow::Status::kFailed;
  const std::string said = r.exited(kExitPass) ? "no timing in its result file" : first_line(r.output);
  row.detail = r.describe() + (said.empty() ? "" : ": " + said);
  return row;
}

std::string format_table(const BenchReport& report) {
  std::ostringstream out;
  out << "make bench on " << report.gpu << "\n  driver " << report.driver << ", CUDA runtime " << report.runtime
      << ", " << report.date << "\n  clocks before: " << report.clocks_before << "; after: " << report.clocks_after
      << "\n  medians of " << report.reps << " runs after " << report.warmup
      << " warm-up runs, L2 flushed before each; spread: the fastest and the slowest run; "
      << number("%.0f", report.seconds) << " s in all\n";
  const size_t name_width = 36;
  for (const BenchGroup& g : report.groups) {
    out << "\n" << g.title() << (g.note.empty() ? "" : " (" + g.note + ")") << "\n";
    out << "  " << pad("", name_width, false) << pad("median ms", 11, true) << pad("min-max ms", 17, true)
        << pad(g.problem.rate_unit(), 15, true) << pad("of ceiling", 13, true) << "\n";
    for (const BenchRow& row : g.rows) {
      const Cells c = cells_of(g, row);
      const bool timed = row.status == BenchRow::Status::kTimed;
      out << "  " << pad(c.name, name_width, false) << pad(c.median, 11, true) << pad(c.spread, 17, true)
          << pad(timed ? number("%.2f", g.problem.rate(row.median_ms)) : "-", 15, true)
          << (timed ? pad(c.share, 13, true) : "  " + c.share) << "\n";
      if (!row.detail.empty()) out << "      " << row.detail << "\n";
    }
  }
  return out.str();
}

namespace {

// The page's head: the run's facts, the chart, and how to read the table.
std::string markdown_head(const BenchReport& report, const std::string& chart_file) {
  std::ostringstream out;
  out << "# The labs' solutions against their ceilings\n\n"
      << "Generated by `make bench` (harness/bench.cpp): do not edit; `make bench BENCH_OUT=docs` "
         "measures and writes this page and its chart anew.\n\n"
      << "| | |\n|---|---|\n"
      << "| GPU | " << md_cell(report.gpu) << " |\n"
      << "| driver | " << md_cell(report.driver) << " |\n"
      << "| CUDA runtime | " << md_cell(report.runtime) << " |\n"
      << "| date | " << md_cell(report.date) << " |\n"
      << "| clocks | before the first run: " << md_cell(report.clocks_before) << "; after the last: "
      << md_cell(report.clocks_after) << " (nvidia-smi; the bench never sets them) |\n"
      << "| duration | " << number("%.0f", report.seconds) << " s |\n"
      << "| command | `" << md_cell(report.command) << "` |\n"
      << "| timing | the median of " << report.reps << " runs after " << report.warmup
      << " warm-up runs, the L2 cache flushed before each run; the spread is the fastest and the "
         "slowest run |\n\n"
      << "![Each solution's speed as a share of its ceiling's](" << chart_file << ")\n\n"
      << "**The ceilings.** A matrix product (labs 01-03) is compared with cuBLAS SGEMM in true fp32 "
         "(`cublasGemmEx` with `CUBLAS_COMPUTE_32F`, TF32 off), on the same sizes. The transpose (lab 04) "
         "and the dot product (lab 05) are memory-bound: their ceiling is a device-to-device copy "
         "(`cudaMemcpyAsync`) moving the same bytes, each input read once and the output written once; "
         "cuBLAS's transpose (`cublasSgeam`), `cublasSdot` and CUB's reduction "
         "(`cub::DeviceReduce::TransformReduce` of a[i]·b[i]) stand beside them. \"Of ceiling\" is the "
         "ceiling's median time over the row's: a memory-bound kernel can pass 100%, since a copy is "
         "not the last word on bandwidth.\n\n"
      << "**Checked first.** Every implementation's result, the libraries' included, is checked against "
         "the fp64 reference before it is timed (the lab programs' check; large matrix products on "
         "sampled rows, every element checked for being written). A result that fails is shown as "
         "such, and not timed.\n\n"
      << "**Sizes.** Larger than the L2 cache wherever the shape allows, so that the flush before each "
         "run leaves the data in device memory. A problem whose data fit in the L2 (said beside it) cannot "
         "be: the flush still empties the cache before each run, but the kernel's own re-reads within a "
         "run hit it.\n\n"
      << "**Stretch** rows are versions of a lab's solution that try to go further, kept beside it and not graded. How "
         "the solutions were tuned, what each attempt predicted and measured, and what stands between "
         "them and their targets: docs/tuning.md. The strassen row does fewer multiply-adds than the classical "
         "product (Strassen's algorithm, two levels at this bench's sizes: 49/64 of them): its TFLOP/s "
         "count the classical 2·M·N·K, an effective rate.\n\n";
  return out.str();
}

// The table, a row per implementation, then the rows that were not timed, and why.
std::string markdown_table(const BenchReport& report) {
  std::ostringstream out;
  out << "| problem | implementation | median ms | min-max ms | throughput | of ceiling |\n"
      << "|---|---|--:|--:|--:|--:|\n";
  for (const BenchGroup& g : report.groups) {
    for (size_t i = 0; i < g.rows.size(); ++i) {
      const Cells c = cells_of(g, g.rows[i]);
      const std::string problem = i > 0 ? "" : g.title() + (g.note.empty() ? "" : " (" + g.note + ")");
      const std::string share = g.rows[i].status == BenchRow::Status::kTimed ? c.share : "**" + c.share + "**";
      out << "| " << md_cell(problem) << " | " << md_cell(c.name) << " | " << c.median << " | " << c.spread
          << " | " << c.rate << " | " << md_cell(share) << " |\n";
    }
  }

  std::string problems;
  for (const BenchGroup& g : report.groups) {
    for (const BenchRow& row : g.rows) {
      if (row.status == BenchRow::Status::kTimed) continue;
      problems += "- " + g.title() + ", " + row.name + ": " + status_text(row) +
                  (row.detail.empty() ? "" : " (" + row.detail + ")") + "\n";
    }
  }
  if (!problems.empty()) out << "\n**Not timed.**\n\n" << problems;
  return out.str();
}

}  // namespace

std::string format_markdown(const BenchReport& report, const std::string& chart_file) {
  return markdown_head(report, chart_file) + markdown_table(report);
}

std::string format_svg(const BenchReport& report) {
  const SvgLayout l = svg_layout(report);
  std::ostringstream svg;
  svg_heading(svg, report, l);
  svg_legend(svg);
  svg_axis(svg, l);
  double y = l.top;
  for (const BenchGroup& g : report.groups) {
    svg << "<text x=\"16\" y=\"" << y + 16 << "\"><tspan font-weight=\"bold\">" << tools::xml_escape(g.title()) << "</tspan>";
    if (!g.note.empty()) svg << "<tspan fill=\"#777\" dx=\"6\">(" << tools::xml_escape(g.note) << ")</tspan>";
    svg << "</text>\n";
    y += l.group_head;
    for (const BenchRow& row : g.rows) {
      svg_row(svg, g, row, l, y);
      y += l.row_h;
    }
    y += l.group_gap;
  }
  svg << "</svg>\n";
  return svg.str();
}

std::string driver_version(const std::string& proc_text) {
  std::istringstream words(proc_text.substr(0, proc_text.find('\n')));
  for (std::string w; words >> w;) {
    const bool digits_and_dots = std::all_of(w.begin(), w.end(), [](char ch) { return std::isdigit(ch) || ch == '.'; });
    if (digits_and_dots && std::isdigit(w.front()) && w.find('.') != std::string::npos) return w;
  }
  return "";
}

std::string cuda_version(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

}  // namespace lab
