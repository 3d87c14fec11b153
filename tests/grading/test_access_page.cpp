// make profile's access page (grading/student/access_page.h): rendered in headless Chromium,
// the drawing of a warp's lanes shows what each lab's lesson is about. Lab 04's unpadded tile
// sends all 32 lanes into one bank, the padded one into 32; lab 01's solution reads and writes
// a few adjacent sectors per warp, the kernel with threadIdx.x down a column of C 32 apart. And
// from a GPU, Nsight Compute's source counters (a recorded H200 run) give the per-line figures.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "grading/student/access_page.h"
#include "tests/lab_programs.h"
#include "tools/subprocess.h"

namespace {

namespace fs = std::filesystem;
using lab_test::contains;

bool have_chromium() { return tools::run_command({"sh", "-c", "command -v chromium"}).exited(0); }

// make profile on the CPU backend with ARGS, then the page it wrote as Chromium renders it.
std::string rendered_page(const std::vector<std::string>& make_args, const std::string& lab) {
  tools::RunOptions options;
  options.env = {"MAKEFLAGS=", "MAKELEVEL="};  // a make of its own, not a job of the tests' make
  options.timeout_s = 600;
  std::vector<std::string> argv = {"make", "-s", "--no-print-directory", "profile", "BACKEND=cpu"};
  argv.insert(argv.end(), make_args.begin(), make_args.end());
  const tools::RunResult made = tools::run_command(argv, options);
  CAPTURE(made.output);
  REQUIRE(made.exited(0));
  REQUIRE(contains(made.output, "the access page, a warp's lanes drawn per memory line: build/profile/" + lab + ".html"));
  const fs::path page = fs::temp_directory_path() / ("access-page-" + std::to_string(getpid()) + "-" + lab + ".html");
  fs::copy_file("build/profile/" + lab + ".html", page, fs::copy_options::overwrite_existing);
  const tools::RunResult r =
      tools::run_command({"chromium", "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", "file://" + page.string()}, options);
  fs::remove(page);
  REQUIRE(r.exited(0));
  return r.output;
}

// For each drawing of the student's lines of one space and kind (a line can hold several
// accesses), the distinct banks or sectors (TARGET: "bank" or "sector") its lanes link to.
std::vector<std::set<std::string>> linked(const std::string& dom, const std::string& space, const std::string& kind, const std::string& target) {
  std::vector<std::set<std::string>> drawings;
  const std::regex section("<section class=\"use [a-z]+\" id=\"use-[^\"]*\" data-line=\"[0-9]+\" data-space=\"" + space +
                           "\" data-kind=\"" + kind + "\">([\\s\\S]*?)</section>");
  const std::regex svg("<svg[\\s\\S]*?</svg>"), link("<line class=\"link\" data-lane=\"[0-9]+\" data-" + target + "=\"(-?[0-9]+)\"");
  for (std::sregex_iterator s(dom.begin(), dom.end(), section), end; s != end; ++s) {
    const std::string body = (*s)[1];
    for (std::sregex_iterator d(body.begin(), body.end(), svg); d != end; ++d) {
      std::set<std::string> targets;
      const std::string drawing = d->str();
      for (std::sregex_iterator l(drawing.begin(), drawing.end(), link); l != end; ++l) targets.insert((*l)[1]);
      drawings.push_back(targets);
    }
  }
  return drawings;
}

std::vector<size_t> sizes(const std::vector<std::set<std::string>>& drawings) {
  std::vector<size_t> n;
  for (const auto& d : drawings) n.push_back(d.size());
  return n;
}

}  // namespace

TEST_CASE("the access page draws a warp's banks and sectors as the lessons say (headless Chromium; skipped without chromium)" *
          doctest::skip(lab_test::kNoCpuSolutions || !have_chromium())) {
  SUBCASE("lab 04: the unpadded tile's column read lands 32 lanes in one bank, the padded one in 32") {
    const std::string unpadded = rendered_page({"LAB=04", "VARIANT=unpadded", "ARGS=--rows 64 --cols 96"}, "04_transpose");
    CHECK(contains(unpadded, "<b>modelled</b>"));
    CHECK(sizes(linked(unpadded, "shared", "load", "bank")) == std::vector<size_t>{1});
    CHECK(contains(unpadded, "<section class=\"use far\" id=\"use-"));  // the conflict, in red
    CHECK(contains(unpadded, "a 32-way bank conflict"));
    const std::string padded = rendered_page({"LAB=04", "SRC=solutions", "ARGS=--rows 64 --cols 96"}, "04_transpose");
    CHECK(sizes(linked(padded, "shared", "load", "bank")) == std::vector<size_t>{32});
    CHECK(sizes(linked(padded, "shared", "store", "bank")) == std::vector<size_t>{32});
    CHECK_FALSE(contains(padded, "class=\"use far\""));
  }
  SUBCASE("lab 01: the solution's warp reads a row of B and writes a row of C in 4 sectors; threadIdx.x down a column, 32") {
    const std::string solution = rendered_page({"LAB=01", "SRC=solutions", "ARGS=--m 64 --n 64 --k 32"}, "01_matmul_naive");
    std::vector<size_t> loads = sizes(linked(solution, "global", "load", "sector"));
    std::sort(loads.begin(), loads.end());
    CHECK(loads == std::vector<size_t>{1, 4});  // A's element, the same for the warp; B's row
    CHECK(sizes(linked(solution, "global", "store", "sector")) == std::vector<size_t>{4});
    const std::string rows_on_x = rendered_page({"LAB=01", "VARIANT=rows_on_x", "ARGS=--m 64 --n 64 --k 32"}, "01_matmul_naive");
    loads = sizes(linked(rows_on_x, "global", "load", "sector"));
    std::sort(loads.begin(), loads.end());
    CHECK(loads == std::vector<size_t>{1, 32});  // B's element, now the same for the warp; A's column
    CHECK(sizes(linked(rows_on_x, "global", "store", "sector")) == std::vector<size_t>{32});
  }
}

// Nsight Compute's source page of lab 04's unpadded variant on the H200 (make profile
// BACKEND=gpu, 2026-11-29), three lines and their SASS kept, their text blanked (it is lab 04's
// answer, and the students' copy has this file): per line and kind, the instructions' requests,
// sectors and wavefronts summed.
TEST_CASE("a GPU's per-line figures: Nsight Compute's source counters, loads and stores apart") {
  const std::vector<grade::MeasuredLine> lines = grade::read_ncu_source_csv("tests/fixtures/ncu-source-unpadded-h200.csv", "/work/main");
  auto find = [&](int line, const std::string& space, const std::string& kind) -> grade::Accesses {
    for (const grade::MeasuredLine& m : lines)
      if (m.line == line && m.space == space && m.kind == kind) {
        CHECK(m.file == "build/variants/unpadded/04_transpose/transpose.cu");
        return m.traffic;
      }
    FAIL_CHECK("no line " << line << " " << space << " " << kind);
    return {};
  };
  REQUIRE(lines.size() == 4);
  const grade::Accesses column = find(115, "shared", "load");
  CHECK(column.requests == 8 * 262144.0);  // 8 unrolled reads, 262,144 warps each
  CHECK(column.wavefronts == 32 * column.ideal_wavefronts);
  const grade::Accesses store = find(115, "global", "store");
  CHECK(store.sectors == 4 * store.requests);
  CHECK(store.sectors == store.ideal_sectors);
  CHECK(find(95, "global", "load").sectors == 8388608);
  CHECK(find(98, "shared", "store").wavefronts == find(98, "shared", "store").ideal_wavefronts);

  // The page says which figures were measured, and marks the conflict from the measurement
  // even where the model drew nothing.
  grade::AccessPage page;
  page.title = "lab 04 (transpose), rows=8192 cols=8192";
  page.measured_by = "Nsight Compute on NVIDIA H200";
  page.measured = lines;
  const std::string html = grade::access_page_html(page);
  CHECK(contains(html, "<b>measured</b> by Nsight Compute on NVIDIA H200"));
  CHECK(contains(html, "<section class=\"use far\" id=\"use-115-shared-load\""));
  CHECK(contains(html, "32.0 wavefronts per request (ideal 1.0), 32.0&times; the ideal <span class=\"source\">measured</span>"));
  CHECK(contains(html, "No lanes to draw"));

  // A run that launched nothing (an untouched skeleton) says so, not that no line touched memory.
  grade::RunCounts none;
  grade::AccessPage empty;
  empty.title = "lab 01 (matmul_naive)";
  empty.model = &none;
  CHECK(contains(grade::access_page_html(empty), "No kernel ran: there is nothing to draw."));
}
