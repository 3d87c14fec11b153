// make bench's reports, from made-up measurements: shares are the ceiling's time over each
// row's; the table, the Markdown page and the SVG chart show every row with its numbers, and a
// row that was not timed as such; the GPU's clocks and the bench's duration are said; the driver's
// and CUDA's versions read right. A solution's row
// from its lab program's run. And the bench program itself, where nvcc-all built it: without a
// GPU it says so and exits 2.
#include <doctest/doctest.h>
#include <unistd.h>

#include <regex>
#include <string>
#include <vector>

#include "harness/bench_report.h"
#include "tests/lab_programs.h"

namespace {

using lab::BenchGroup;
using lab::BenchReport;
using lab::BenchRow;

BenchRow timed(const std::string& name, double median_ms, bool solution) {
  BenchRow row;
  row.name = name;
  row.solution = solution;
  row.status = BenchRow::Status::kTimed;
  row.median_ms = median_ms;
  row.min_ms = median_ms * 0.975;
  row.max_ms = median_ms * 1.025;
  row.runs = 20;
  return row;
}

BenchRow not_timed(const std::string& name, BenchRow::Status status, const std::string& detail, bool solution) {
  BenchRow row;
  row.name = name;
  row.solution = solution;
  row.status = status;
  row.detail = detail;
  return row;
}

// A matrix product at 1024³ (2.147 GFLOP): the naive solution at half cuBLAS's speed, the tiled
// one wrong, cuBLAS the ceiling at 2 ms. A dot product of 2^28 (2 GiB read): the solution 10%
// faster than the copy, Sdot at 80% of it, CUB did not run.
BenchReport sample() {
  BenchReport r;
  r.gpu = "NVIDIA H100 80GB HBM3, sm_90, 132 SMs, 79.1 GiB, 50.0 MiB L2";
  r.driver = "580.159.04 (CUDA 13.0 driver API)";
  r.runtime = "13.0";
  r.date = "2026-11-22 14:03 UTC";
  r.command = "make bench";
  r.clocks_before = "SM 1980 MHz of 1980 MHz max, memory 2619 MHz, 40 C";
  r.clocks_after = "SM 1755 MHz of 1980 MHz max, memory 2619 MHz, 71 C";
  r.seconds = 58.4;
  r.reps = 20;
  r.warmup = 3;

  BenchGroup matmul;
  matmul.problem = lab::Case::matmul(1024, 1024, 1024);
  matmul.note = "its 12.0 MiB fit in the 50.0 MiB L2";
  matmul.rows = {timed("01 matmul_naive", 4.0, true),
                 not_timed("02 matmul_tiled", BenchRow::Status::kWrong, "exit 1: check    FAIL: 7 of 1048576 elements wrong", true),
                 timed("cuBLAS SGEMM (fp32)", 2.0, false)};
  matmul.ceiling = 2;

  BenchGroup dot;
  dot.problem = lab::Case::dot(int64_t(1) << 28);
  dot.rows = {timed("05 dot_reduction", 1.0, true), timed("device-to-device copy", 1.1, false),
              timed("cuBLAS Sdot", 1.375, false),
              not_timed("CUB <reduce> & co", BenchRow::Status::kFailed, "killed by SIGSEGV", false)};
  dot.ceiling = 1;
  r.groups = {matmul, dot};
  return r;
}

using lab_test::contains;

using tools::count_of;

// Each part must occur in TEXT; a failure names the part that is missing.
void check_contains_each(const std::string& text, const std::vector<std::string>& parts) {
  for (const std::string& part : parts) CHECK_MESSAGE(contains(text, part), "missing: " << part);
}

// Each pattern must match somewhere in TEXT; a failure names the pattern.
void check_matches_each(const std::string& text, const std::vector<std::string>& patterns) {
  for (const std::string& pattern : patterns) CHECK_MESSAGE(std::regex_search(text, std::regex(pattern)), "no match: " << pattern);
}

// The width of the chart's bar whose tooltip starts with `name`.
double bar_width(const std::string& svg, const std::string& name) {
  const std::regex bar("width=\"([0-9.]+)\" height=\"[0-9]+\" fill=\"[^\"]+\"><title>" + name + ":");
  std::smatch m;
  REQUIRE_MESSAGE(std::regex_search(svg, m, bar), "no bar for " << name);
  return std::stod(m[1]);
}

}  // namespace

TEST_SUITE("bench") {

TEST_CASE("a row's share is the ceiling's median time over its own") {
  const BenchReport r = sample();
  const BenchGroup& matmul = r.groups[0];
  CHECK(matmul.share(matmul.rows[0]) == doctest::Approx(0.5));
  CHECK(matmul.share(matmul.rows[2]) == doctest::Approx(1.0));
  CHECK(matmul.share(matmul.rows[1]) < 0);  // wrong: no share
  const BenchGroup& dot = r.groups[1];
  CHECK(dot.share(dot.rows[0]) == doctest::Approx(1.1));
  CHECK(dot.share(dot.rows[2]) == doctest::Approx(0.8));

  SUBCASE("no ceiling, no shares") {
    BenchGroup g = dot;
    g.rows[g.ceiling].status = BenchRow::Status::kWrong;
    CHECK(g.share(g.rows[0]) < 0);
    CHECK(g.share(g.rows[2]) < 0);
  }
  CHECK(matmul.title() == "matmul M=1024 N=1024 K=1024");
  CHECK(dot.title() == "dot n=268435456");
}

TEST_CASE("the table has every row, its numbers, and why a row was not timed") {
  const std::string t = lab::format_table(sample());
  CAPTURE(t);
  check_contains_each(t, {"NVIDIA H100 80GB HBM3",
                          "driver 580.159.04 (CUDA 13.0 driver API), CUDA runtime 13.0, 2026-11-22 14:03 UTC",
                          "clocks before: SM 1980 MHz of 1980 MHz max, memory 2619 MHz, 40 C; after: SM 1755 MHz of "
                          "1980 MHz max, memory 2619 MHz, 71 C",
                          "the fastest and the slowest run; 58 s in all",
                          "matmul M=1024 N=1024 K=1024 (its 12.0 MiB fit in the 50.0 MiB L2)",
                          "did not run, not timed\n      killed by SIGSEGV"});
  // 2·1024³ flops in 4 ms: 0.54 TFLOP/s; 2^31 + 4 bytes in 1 ms: 2.15 TB/s.
  check_matches_each(t, {"01 matmul_naive +4\\.000 +3\\.900-4\\.100 +0\\.54 +50\\.0%",
                         "cuBLAS SGEMM \\(fp32\\) \\(ceiling\\) +2\\.000 .* +100\\.0%",
                         "02 matmul_tiled +- +- +- +wrong result, not timed\n +exit 1: check    FAIL",
                         "05 dot_reduction +1\\.000 .* +2\\.15 +110\\.0%",
                         "cuBLAS Sdot +1\\.375 .* +80\\.0%"});
}

TEST_CASE("the Markdown page: the conditions, the chart, one table row per implementation") {
  const std::string md = lab::format_markdown(sample(), "performance.svg");
  CAPTURE(md);
  check_contains_each(md, {"| GPU | NVIDIA H100 80GB HBM3, sm_90, 132 SMs, 79.1 GiB, 50.0 MiB L2 |",
                           "| driver | 580.159.04 (CUDA 13.0 driver API) |",
                           "| CUDA runtime | 13.0 |",
                           "| date | 2026-11-22 14:03 UTC |",
                           "| clocks | before the first run: SM 1980 MHz of 1980 MHz max, memory 2619 MHz, 40 C; after the "
                           "last: SM 1755 MHz of 1980 MHz max, memory 2619 MHz, 71 C (nvidia-smi; the bench never sets them) |",
                           "| duration | 58 s |",
                           "| command | `make bench` |",
                           "the median of 20 runs after 3 warm-up runs",
                           "](performance.svg)"});
  check_contains_each(md, {"| matmul M=1024 N=1024 K=1024 (its 12.0 MiB fit in the 50.0 MiB L2) | 01 matmul_naive | 4.000 | "
                           "3.900-4.100 | 0.54 TFLOP/s | 50.0% |",
                           "|  | 02 matmul_tiled | - | - | - | **wrong result, not timed** |",
                           "|  | cuBLAS SGEMM (fp32) (ceiling) | 2.000 | 1.950-2.050 | 1.07 TFLOP/s | 100.0% |",
                           "| dot n=268435456 | 05 dot_reduction | 1.000 | 0.975-1.025 | 2.15 TB/s | 110.0% |",
                           "|  | device-to-device copy (ceiling) | 1.100 |"});
  CHECK(count_of(md, "\n| ") == 9 + 8);  // the conditions (a header, 8 rows), the table (a header, 7 rows)
  // Why each row was not timed, below the table.
  check_contains_each(md, {"- matmul M=1024 N=1024 K=1024, 02 matmul_tiled: wrong result, not timed (exit 1: check    FAIL: 7 of",
                           "- dot n=268435456, CUB <reduce> & co: did not run, not timed (killed by SIGSEGV)"});
}

TEST_CASE("the chart: a bar per timed row, as long as its share; the others say why not") {
  const std::string svg = lab::format_svg(sample());
  CAPTURE(svg);
  CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(contains(svg, "</svg>\n"));
  // One bar per timed row, colored by kind.
  CHECK(count_of(svg, "<rect class=\"solution\"") == 2);
  CHECK(count_of(svg, "<rect class=\"library\"") == 1);
  CHECK(count_of(svg, "<rect class=\"ceiling\"") == 2);
  // The longest bar is 110%: the axis goes to 125%, which the ceilings' 100% is 4/5 of.
  CHECK(contains(svg, ">125%</text>"));
  CHECK_FALSE(contains(svg, ">150%</text>"));
  const double full = bar_width(svg, "cuBLAS SGEMM \\(fp32\\)");
  CHECK(bar_width(svg, "device-to-device copy") == doctest::Approx(full));
  CHECK(bar_width(svg, "01 matmul_naive") == doctest::Approx(full * 0.5).epsilon(0.01));
  CHECK(bar_width(svg, "05 dot_reduction") == doctest::Approx(full * 1.1).epsilon(0.01));
  CHECK(bar_width(svg, "cuBLAS Sdot") == doctest::Approx(full * 0.8).epsilon(0.01));
  // Each bar's value beside it, every row's label, each group's title.
  check_contains_each(svg, {">50.0% (0.54 TFLOP/s)</text>",
                            ">110.0% (2.15 TB/s)</text>",
                            ">cuBLAS SGEMM (fp32) (ceiling)</text>",
                            ">matmul M=1024 N=1024 K=1024</tspan><tspan fill=\"#777\" dx=\"6\">(its 12.0 MiB fit in the 50.0 MiB L2)</tspan>",
                            ">dot n=268435456</tspan></text>"});
  // Not timed: no bar, the reason; names are escaped.
  check_contains_each(svg, {">02 matmul_tiled</text><text class=\"not-timed\"",
                            "fill=\"#c0392b\">wrong result, not timed</text>",
                            ">CUB &lt;reduce&gt; &amp; co</text><text class=\"not-timed\"",
                            ">did not run, not timed</text>"});
  CHECK_FALSE(contains(svg, "<reduce>"));

  SUBCASE("without a ceiling, the group's timed rows have no bar and say why") {
    BenchReport r = sample();
    r.groups[0].rows[2].status = BenchRow::Status::kWrong;
    const std::string s = lab::format_svg(r);
    CHECK(count_of(s, "<rect class=\"solution\"") == 1);
    CHECK(contains(s, ">01 matmul_naive</text><text class=\"not-timed\""));
    CHECK(contains(s, "timed, but its ceiling was not: no share"));
  }
}

TEST_CASE("the driver's and CUDA's versions") {
  CHECK(lab::driver_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Tue Jul 29 2025\n"
                            "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n") == "580.159.04");
  CHECK(lab::driver_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release Build  "
                            "(dvs-builder@U16-I3-B03-4-3)  Thu Jan 23 2025\n") == "570.86.15");
  CHECK(lab::driver_version("") == "");
  CHECK(lab::cuda_version(13000) == "13.0");
  CHECK(lab::cuda_version(12040) == "12.4");
}

// On the CPU backend's lab programs, which `make test` builds: the same programs and result
// files as the GPU's.
TEST_CASE("a solution's row: its lab program's verdict, its median and spread" * doctest::skip(lab_test::kNoCpuSolutions)) {
  const std::string result = "build/test/bench-solution.result";
  const lab::Case shape = lab::Case::transpose(40, 30);

  SUBCASE("the solution passes and is timed") {
    const BenchRow row = lab::run_solution(lab_test::program("cpu", lab_test::kSolutions, "04_transpose"),
                                           "04_transpose", shape, 3, result);
    CAPTURE(row.detail);
    CHECK(row.status == BenchRow::Status::kTimed);
    CHECK(row.name == "04 transpose");
    CHECK(row.solution);
    CHECK(row.runs == 3);
    CHECK(row.min_ms > 0);
    CHECK(row.min_ms <= row.median_ms);
    CHECK(row.median_ms <= row.max_ms);
  }
  SUBCASE("the skeleton's wrong result is not timed, and says why") {
    const BenchRow row = lab::run_solution(lab_test::program("cpu", lab_test::kSkeletons, "04_transpose"),
                                           "04_transpose", shape, 3, result);
    CHECK(row.status == BenchRow::Status::kWrong);
    CHECK_MESSAGE(contains(row.detail, "exit 1: check    FAIL"), row.detail);
    CHECK(row.runs == 0);
  }
  SUBCASE("a program that does not run") {
    const BenchRow row = lab::run_solution("build/test/no-such-program", "04_transpose", shape, 3, result);
    CHECK(row.status == BenchRow::Status::kFailed);
    CHECK(row.runs == 0);
  }
}

// nvcc-all builds the bench program (CI does, without a GPU); `make test` does not, so a
// checkout that never ran nvcc-all skips this.
const bool kNoBenchProgram = access("build/gpu/bin/bench", X_OK) != 0;

TEST_CASE("the bench program without a GPU says what it needs and exits 2" * doctest::skip(kNoBenchProgram)) {
  const std::string program = "build/gpu/bin/bench";
  // On a machine with a GPU, the unknown lab stops it before it runs anything.
  const tools::RunResult r = lab_test::run(program, {"--labs", "none", "--out", "build/test/bench"});
  CAPTURE(r.output);
  CHECK_MESSAGE(r.exited(2), r.describe());
  if (contains(r.output, "no CUDA GPU found")) {
    CHECK(contains(r.output, "make bench needs a GPU"));
  } else {
    CHECK(contains(r.output, "bench: --labs: no lab 'none'"));
  }
}

}  // TEST_SUITE
