// make grade-class (grading/grade_class.cpp): a class of synthetic submissions, built in a
// scratch folder from a solution, a skeleton and a corpus entry, as folders and zips, beside
// hostile ones (an empty folder, a folder without the labs' layout, a link out of the class, a
// zip with a ../ name, a name with quotes and a $(command), a roster student who handed in
// nothing): every student gets a row with a clear status, the CSV parses, a rerun grades only the
// student whose file changed, and the summary page renders in headless Chromium with its charts
// and every student. Lab 01 on the fast rubric, on the CPU backend.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "common/subprocess.h"
#include "grading/class/csv.h"
#include "tests/lab_programs.h"

namespace {

namespace fs = std::filesystem;
using lab_test::contains;
using lab_test::read_file;

const std::string kOdd = "Jos\xC3\xA9 \"q\" $(touch ran)";  // José "q" $(touch ran)

uint32_t crc32_of(const std::string& data) {
  uint32_t crc = 0xFFFFFFFF;
  for (unsigned char c : data) {
    crc ^= c;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
  }
  return ~crc;
}

// A zip of FILES (name, bytes), stored uncompressed: names are written as given, ../ included,
// which is what a hostile archive does.
std::string make_zip(const std::vector<std::pair<std::string, std::string>>& files) {
  auto le = [](uint32_t v, int bytes) {
    std::string s;
    for (int i = 0; i < bytes; ++i) s += char(v >> (8 * i) & 0xFF);
    return s;
  };
  std::string zip, directory;
  for (const auto& [name, data] : files) {
    const std::string common = le(0, 2) + le(0, 2) + le(0, 4) + le(crc32_of(data), 4) + le(uint32_t(data.size()), 4) +
                               le(uint32_t(data.size()), 4) + le(uint32_t(name.size()), 2) + le(0, 2);
    directory += le(0x02014b50, 4) + le(20, 2) + le(20, 2) + common + le(0, 2) + le(0, 2) + le(0, 2) + le(0100644u << 16, 4) +
                 le(uint32_t(zip.size()), 4) + name;
    zip += le(0x04034b50, 4) + le(20, 2) + common + name + data;
  }
  return zip + directory + le(0x06054b50, 4) + le(0, 4) + le(uint32_t(files.size()), 2) + le(uint32_t(files.size()), 2) +
         le(uint32_t(directory.size()), 4) + le(uint32_t(zip.size()), 4) + le(0, 2);
}

void put(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

const std::string kLabFile = "01_matmul_naive/matmul_naive.cu";

// The class: SUBMISSIONS under DIR, and its roster.
void make_class(const fs::path& dir) {
  const std::string solution = read_file("solutions/" + kLabFile), skeleton = read_file("build/skeletons/" + kLabFile);
  const fs::path subs = dir / "submissions";
  put(subs / "alice" / kLabFile, solution);
  put(subs / "bob" / "labs" / kLabFile, skeleton);  // nested one folder down, as a copy of labs/
  put(subs / "carol.zip", make_zip({{"labs/" + kLabFile, read_file("build/corpus/no_guard_01/" + kLabFile)}}));
  put(subs / "mallory.zip", make_zip({{"../escaped", "x"}, {kLabFile, skeleton}}));
  put(subs / kOdd / kLabFile, solution);
  fs::create_directories(subs / "empty_eve");
  put(subs / "wrong_wes" / "notes.txt", "my lab is elsewhere");
  fs::create_directory_symlink(fs::absolute("solutions"), subs / "larry");
  put(dir / "roster.csv", "id,name,nickname\nalice,\"Alice, A.\",speedy\nbob,Bob <b>,\nmissing_mo,Mo,\n");
}

lab::RunResult grade_class(const fs::path& dir) {
  lab::RunOptions options;
  options.timeout_s = 1200;
  return lab::run_command({"build/host/grade-class", "--submissions", (dir / "submissions").string(), "--out", (dir / "out").string(),
                           "--roster", (dir / "roster.csv").string(), "--lab", "01", "--rubric", "tests/fixtures/rubric-fast.txt",
                           "--backend", "cpu", "--seed", "77", "--jobs", "2", "--build-dir", "build/grade-tests"},
                          options);
}

// The gradebook's rows by id, each a map from column to value.
std::map<std::string, std::map<std::string, std::string>> gradebook(const fs::path& dir) {
  std::vector<std::vector<std::string>> records;
  std::string error;
  REQUIRE_MESSAGE(grade::parse_csv(read_file((dir / "out" / "gradebook.csv").string()), &records, &error), error);
  REQUIRE(records.size() > 1);
  std::map<std::string, std::map<std::string, std::string>> rows;
  for (size_t r = 1; r < records.size(); ++r) {
    REQUIRE(records[r].size() == records[0].size());
    for (size_t c = 0; c < records[0].size(); ++c) rows[records[r][0]][records[0][c]] = records[r][c];
  }
  return rows;
}

// The class folder, made and graded once for the tests below.
const fs::path& graded_class() {
  static const fs::path dir = [] {
    const fs::path d = fs::absolute("build/test/grade-class");
    fs::remove_all(d);
    make_class(d);
    const lab::RunResult r = grade_class(d);
    INFO(r.output);
    REQUIRE(r.exited(0));
    return d;
  }();
  return dir;
}

bool have_chromium() { return lab::run_command({"sh", "-c", "command -v chromium"}).exited(0); }

}  // namespace

TEST_SUITE("grade-class") {

TEST_CASE("every student of a class gets a row with a clear status, and nothing escapes" * doctest::skip(lab_test::kNoCpuSolutions)) {
  const fs::path& dir = graded_class();
  auto rows = gradebook(dir);
  CHECK(rows.size() == 9);
  const std::pair<std::string, std::string> statuses[] = {
      {"alice", "graded"},
      {"bob", "graded"},
      {"carol", "graded"},
      {"mallory", "graded"},
      {kOdd, "graded"},
      {"empty_eve", "empty: nothing handed in"},
      {"wrong_wes", "wrong layout: no lab folder"},
      {"larry", "refused: a symbolic link"},
      {"missing_mo", "missing: nothing handed in"},
  };
  for (const auto& [id, status] : statuses) {
    CAPTURE(id);
    REQUIRE(rows.count(id) == 1);
    CHECK(rows[id]["status"].rfind(status, 0) == 0);
    CHECK(rows[id]["seed"] != "");
  }
  CHECK(rows["alice"]["name"] == "Alice, A.");
  CHECK(rows["alice"]["total"] == "8");
  CHECK(rows["alice"]["max"] == "8");
  CHECK(rows["alice"]["gpu"] == "the CPU backend");
  CHECK(rows[kOdd]["total"] == "8");
  CHECK(rows["bob"]["total"] == "0");
  CHECK(rows["carol"]["total"] != "8");  // no_guard_01: correctness fails
  CHECK(rows["missing_mo"]["max"] == "8");
  CHECK(contains(rows["mallory"]["notes"], "../escaped: left out, climbs out of the folder"));
  CHECK(contains(rows[kOdd]["notes"], "not on the roster"));
  CHECK_FALSE(fs::exists(dir / "escaped"));
  CHECK_FALSE(fs::exists(dir / "out" / "students" / "escaped"));
  CHECK_FALSE(fs::exists("ran"));
  // Each graded student's own reports, where the gradebook says.
  CHECK(contains(read_file((dir / "out" / rows["alice"]["report"] / "results.json").string()), "\"score\": 8"));
  CHECK(contains(read_file((dir / "out" / rows["alice"]["report"] / "grade.log").string()), "Score: 8/8"));
}

TEST_CASE("a rerun keeps every finished student and grades again only one whose file changed" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  const fs::path& dir = graded_class();
  const auto before = gradebook(dir);
  fs::copy_file("solutions/" + kLabFile, dir / "submissions" / "bob" / "labs" / kLabFile, fs::copy_options::overwrite_existing);
  const lab::RunResult r = grade_class(dir);
  CAPTURE(r.output);
  REQUIRE(r.exited(0));
  CHECK(text::count_of(r.output, "(unchanged since the last run: kept)") == 4);
  CHECK(contains(r.output, "] bob: graded 8/8;"));
  auto after = gradebook(dir);
  CHECK(after.size() == before.size());
  CHECK(after["bob"]["total"] == "8");
  for (const char* id : {"alice", "carol", "mallory"}) {
    CAPTURE(id);
    CHECK(after[id]["total"] == before.at(id).at("total"));
    CHECK(after[id]["seed"] == before.at(id).at("seed"));
  }
}

TEST_CASE("the class summary is one page with escaped names, a chart per lab and every student" * doctest::skip(lab_test::kNoCpuSolutions)) {
  const std::string html = read_file((graded_class() / "out" / "class.html").string());
  CHECK(contains(html, "<svg class=\"chart\" data-lab=\"01_matmul_naive\""));
  CHECK(contains(html, "Jos\xC3\xA9 &quot;q&quot; $(touch ran)"));
  CHECK(contains(html, "Bob &lt;b&gt;"));
  CHECK_FALSE(contains(html, "<b>"));
  CHECK_FALSE(contains(html, "<script"));
  CHECK_FALSE(contains(html, "http"));
  CHECK(contains(html, "No timings: graded on the CPU backend"));
}

// Chromium comes from scripts/install-deps chromium (CI's .ci/run installs it); without it this
// test is reported skipped, never passed.
TEST_CASE("the class summary renders in headless Chromium with its charts and every student (skipped without chromium)" *
          doctest::skip(lab_test::kNoCpuSolutions || !have_chromium())) {
  const fs::path page = graded_class() / "out" / "class.html";
  lab::RunOptions options;
  options.timeout_s = 120;
  const lab::RunResult r = lab::run_command({"chromium", "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", "file://" + page.string()}, options);
  CAPTURE(r.output);
  REQUIRE(r.exited(0));
  CHECK(text::count_of(r.output, "<svg class=\"chart\"") == 1);
  CHECK(text::count_of(r.output, "<rect class=\"bar\"") == 11);
  CHECK(text::count_of(r.output, "<tr class=\"student\"") == 9);
  for (const char* id : {"alice", "bob", "carol", "mallory", "empty_eve", "wrong_wes", "larry", "missing_mo"}) {
    CHECK(contains(r.output, std::string("data-id=\"") + id + "\""));
  }
  CHECK(contains(r.output, "Jos\xC3\xA9 \"q\" $(touch ran)"));
}

}
