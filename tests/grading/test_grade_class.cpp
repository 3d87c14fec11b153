// make grade-class (grading/course/grade_class.cpp): a class of synthetic submissions, built in a
// scratch folder from a solution, a skeleton and a corpus entry, as folders and zips, beside
// hostile ones (an empty folder, a folder without the labs' layout, a link out of the class, a
// zip with a ../ name, a tar and a tar.gz with a ../ name and links, a name with quotes and a
// $(command), a roster student who handed in nothing): every student gets a row with a clear
// status, the CSV parses, a rerun grades only the student whose file changed, and the summary
// page renders in headless Chromium with its charts and every student. Lab 01 on the fast
// rubric, on the CPU backend. The unpacking itself (grading/course/class/archive.h) is tested on its
// own first: hostile entries, corrupt archives, the limits.
// Without grade-class's libraries (scripts/install-deps grade-class), mk/tests.mk defines
// GRADE_CLASS_MISSING: every test here is skipped, and one more names what is missing.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "grading/course/class/csv.h"
#include "grading/course/class/time_left.h"
#include "tools/subprocess.h"
#ifndef GRADE_CLASS_MISSING
#include "grading/course/class/archive.h"
#endif
#include "tests/grading/grade_class_tests.h"
#include "tests/lab_programs.h"

namespace {

namespace fs = std::filesystem;
using lab_test::contains;
using lab_test::kNoGradeClass;
using lab_test::make_zip;
using lab_test::put;
using lab_test::read_file;

const std::string kOdd = "Jos\xC3\xA9 \"q\" $(touch ran)";  // José "q" $(touch ran)

// One tar entry: its name, its type ('0' a file, '2' a symbolic link, '1' a hard link, '6' a
// FIFO), and its bytes, or the target of a link.
struct TarEntry {
  std::string name;
  char type;
  std::string data;
};

// A ustar archive of ENTRIES, names written as given.
std::string make_tar(const std::vector<TarEntry>& entries) {
  std::string tar;
  for (const TarEntry& e : entries) {
    std::string h(512, '\0');
    const bool link = e.type == '1' || e.type == '2';
    auto field = [&](size_t at, size_t len, const std::string& v) { h.replace(at, std::min(v.size(), len), v.substr(0, len)); };
    auto octal = [](uint64_t v, int digits) {
      char b[32];
      std::snprintf(b, sizeof b, "%0*llo", digits, static_cast<unsigned long long>(v));
      return std::string(b);
    };
    field(0, 100, e.name);
    field(100, 8, octal(0644, 7));
    field(108, 8, octal(0, 7));
    field(116, 8, octal(0, 7));
    field(124, 12, octal(link ? 0 : e.data.size(), 11));
    field(136, 12, octal(0, 11));
    field(148, 8, "        ");
    h[156] = e.type;
    if (link) field(157, 100, e.data);
    field(257, 8, std::string("ustar\0" "00", 8));
    unsigned sum = 0;
    for (unsigned char c : h) sum += c;
    field(148, 8, octal(sum, 6) + std::string("\0 ", 2));
    tar += h;
    if (!link) tar += e.data + std::string((512 - e.data.size() % 512) % 512, '\0');
  }
  return tar + std::string(1024, '\0');
}

// TAR gzipped (by gzip, as a student's tar -czf would).
std::string gzipped(const fs::path& scratch, const std::string& tar) {
  std::ofstream(scratch, std::ios::binary) << tar;
  REQUIRE(tools::run_command({"gzip", "-n", "-f", scratch.string()}).exited(0));
  return read_file(scratch.string() + ".gz");
}

// Hostile tar entries: a ../ name, a symbolic link to the folder OUTSIDE and a file written
// through it, a hard link, an absolute name in OUTSIDE, a FIFO.
std::vector<TarEntry> hostile_tar_entries(const fs::path& outside) {
  return {{"../escaped-tar", '0', "x"},
          {"out", '2', outside.string()},
          {"out/through-link", '0', "y"},
          {"hard", '1', "/etc/passwd"},
          {(outside / "absolute-tar").string(), '0', "z"},
          {"fifo", '6', ""}};
}

// Whether NOTES name each entry of hostile_tar_entries as left out, and why.
void check_hostile_tar_notes(const std::string& notes) {
  CHECK(contains(notes, "../escaped-tar: left out, climbs out of the folder"));
  CHECK(contains(notes, "out: left out, a symbolic link"));
  CHECK(contains(notes, "hard: left out, a hard link"));
  CHECK(contains(notes, "/absolute-tar: left out, an absolute name"));
  CHECK(contains(notes, "fifo: left out, not a plain file"));
}

// Whether nothing of hostile_tar_entries reached OUTSIDE or the folder above DEST.
void check_nothing_escaped(const fs::path& dest, const fs::path& outside) {
  CHECK_FALSE(fs::exists(dest.parent_path() / "escaped-tar"));
  CHECK_FALSE(fs::exists(outside / "through-link"));
  CHECK_FALSE(fs::exists(outside / "absolute-tar"));
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
  std::vector<TarEntry> tar = hostile_tar_entries(dir / "outside");
  tar.push_back({"labs/" + kLabFile, '0', skeleton});
  put(subs / "trudy.tar", make_tar(tar));
  put(subs / "tina.tar.gz", gzipped(dir / "tina.tar", make_tar(tar)));
  put(subs / kOdd / kLabFile, solution);
  fs::create_directories(subs / "empty_eve");
  put(subs / "wrong_wes" / "notes.txt", "my lab is elsewhere");
  fs::create_directory_symlink(fs::absolute("solutions"), subs / "larry");
  fs::create_directories(dir / "outside");
  put(dir / "roster.csv", "id,name,nickname\nalice,\"Alice, A.\",speedy\nbob,Bob <b>,\nmissing_mo,Mo,\n");
}

tools::RunResult grade_class(const fs::path& dir, const std::vector<std::string>& more = {}) {
  tools::RunOptions options;
  options.timeout_s = 1200;
  std::vector<std::string> argv = {"build/host/grade-class", "--submissions", (dir / "submissions").string(), "--out", (dir / "out").string(),
                                   "--roster", (dir / "roster.csv").string(), "--lab", "01", "--rubric", "tests/fixtures/rubric-fast.txt",
                                   "--backend", "cpu", "--seed", "77", "--jobs", "2", "--build-dir", "build/grade-tests"};
  argv.insert(argv.end(), more.begin(), more.end());
  return tools::run_command(argv, options);
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
    const tools::RunResult r = grade_class(d);
    INFO(r.output);
    REQUIRE(r.exited(0));
    return d;
  }();
  return dir;
}

bool have_chromium() { return tools::run_command({"sh", "-c", "command -v chromium"}).exited(0); }

}  // namespace

TEST_SUITE("grade-class") {

// The progress line's estimate: the pace is the time over the students graded in this run, so
// that a resumed run's kept students (no time each) do not make the rest look quick.
TEST_CASE("the time left goes by the students graded in this run, not the kept ones") {
  CHECK(grade::seconds_left(100, 0, 0, 10) == 0);        // no pace yet
  CHECK(grade::seconds_left(100, 4, 4, 10) == 150);      // 25 s a student, 6 to go
  CHECK(grade::seconds_left(80, 2, 94, 100) == 240);     // 92 kept, 2 graded in 80 s: 6 to go at 40 s
  CHECK(grade::seconds_left(0.5, 0, 94, 100) == 0);      // only kept ones so far
  CHECK(grade::seconds_left(300, 10, 100, 100) == 0);    // all done
}

#ifdef GRADE_CLASS_MISSING
TEST_CASE("make grade-class is not built here: the Debian packages " GRADE_CLASS_MISSING
          " are missing (scripts/install-deps grade-class installs them); its tests are skipped" * doctest::skip()) {}
#else
// What unpack_archive made of ENTRIES as a tar (plain, or gzipped) in a fresh folder under DIR.
grade::Unpacked unpack_tar(const fs::path& dir, const std::vector<TarEntry>& entries, bool gzip, const grade::ArchiveLimits& limits = {}) {
  fs::remove_all(dir);
  fs::create_directories(dir / "outside");
  const std::string tar = make_tar(entries);
  const fs::path archive = dir / (gzip ? "s.tar.gz" : "s.tar");
  put(archive, gzip ? gzipped(dir / "g.tar", tar) : tar);
  return grade::unpack_archive(archive.string(), (dir / "dest").string(), limits);
}

TEST_CASE("a tar or tar.gz is unpacked to its plain files only: no .., no absolute name, no link, no FIFO") {
  for (const bool gzip : {false, true}) {
    CAPTURE(gzip);
    const fs::path dir = fs::absolute("build/test/grade-class-archive");
    std::vector<TarEntry> entries = hostile_tar_entries(dir / "outside");
    entries.push_back({"./a//b.txt", '0', "b"});
    entries.push_back({"a/b.txt", '0', "again"});  // the same file twice: never written over
    entries.push_back({"Jos\xC3\xA9 \"q\" $(x).txt", '0', "utf-8"});  // odd names, made as named
    entries.push_back({"bad\xFF.txt", '0', "not utf-8"});
    entries.push_back({"../bad\xFF", '0', ""});  // named in the notes as valid UTF-8
    const grade::Unpacked u = unpack_tar(dir, entries, gzip);
    INFO(u.error);
    REQUIRE(u.ok);
    CHECK(u.files == 4);  // a/b.txt, out/through-link in a folder of its own, the odd names
    std::string notes;
    for (const std::string& n : u.notes) notes += n + "\n";
    CAPTURE(notes);
    check_hostile_tar_notes(notes);
    CHECK(contains(notes, "a/b.txt: left out, cannot be written (File exists)"));
    CHECK(read_file((dir / "dest" / "a" / "b.txt").string()) == "b");
    CHECK(read_file((dir / "dest" / "Jos\xC3\xA9 \"q\" $(x).txt").string()) == "utf-8");
    CHECK(read_file((dir / "dest" / "bad\xFF.txt").string()) == "not utf-8");
    CHECK(contains(notes, "../bad\xEF\xBF\xBD: left out, climbs out of the folder"));
    CHECK(fs::is_directory(fs::symlink_status(dir / "dest" / "out")));
    CHECK_FALSE(fs::exists(fs::symlink_status(dir / "dest" / "hard")));
    CHECK_FALSE(fs::exists(fs::symlink_status(dir / "dest" / "fifo")));
    check_nothing_escaped(dir / "dest", dir / "outside");
  }
}

TEST_CASE("a zip's links are left out, and a corrupt archive is refused whole") {
  const fs::path dir = fs::absolute("build/test/grade-class-archive");
  fs::remove_all(dir);
  put(dir / "link.zip", make_zip({{"link", "/etc/passwd"}}, 0120777));
  grade::Unpacked u = grade::unpack_archive((dir / "link.zip").string(), (dir / "link").string());
  REQUIRE(u.ok);
  CHECK(u.files == 0);
  REQUIRE(u.notes.size() == 1);
  CHECK(u.notes[0] == "link: left out, a symbolic link");

  std::string zip = make_zip({{"a.txt", "hello"}});
  zip[30 + 5] ^= 1;  // a byte of a.txt's data: its CRC no longer matches
  put(dir / "bad-crc.zip", zip);
  u = grade::unpack_archive((dir / "bad-crc.zip").string(), (dir / "bad-crc").string());
  CHECK_FALSE(u.ok);
  CHECK(contains(u.error, "corrupt"));

  const std::string tgz = gzipped(dir / "cut.tar", make_tar({{"a.txt", '0', std::string(5000, 'a')}}));
  put(dir / "cut.tar.gz", tgz.substr(0, tgz.size() / 2));
  u = grade::unpack_archive((dir / "cut.tar.gz").string(), (dir / "cut").string());
  CHECK_FALSE(u.ok);
  CAPTURE(u.error);

  put(dir / "not.zip", "not an archive");
  u = grade::unpack_archive((dir / "not.zip").string(), (dir / "not").string());
  CHECK_FALSE(u.ok);
}

TEST_CASE("an archive over a limit is refused whole: a file's size, the total, the entries") {
  const fs::path dir = fs::absolute("build/test/grade-class-archive");
  grade::ArchiveLimits limits;
  limits.file_bytes = 100;
  limits.total_bytes = 150;
  limits.entries = 3;
  for (const bool gzip : {false, true}) {
    CAPTURE(gzip);
    grade::Unpacked u = unpack_tar(dir, {{"big", '0', std::string(101, 'x')}}, gzip, limits);
    CHECK_FALSE(u.ok);
    CHECK(contains(u.error, "big unpacks to more than 100 bytes"));
    u = unpack_tar(dir, {{"a", '0', std::string(80, 'x')}, {"b", '0', std::string(80, 'x')}}, gzip, limits);
    CHECK_FALSE(u.ok);
    CHECK(contains(u.error, "more than 150 bytes"));
    u = unpack_tar(dir, {{"a", '0', "1"}, {"b", '0', "2"}, {"c", '0', "3"}, {"d", '0', "4"}}, gzip, limits);
    CHECK_FALSE(u.ok);
    CHECK(contains(u.error, "more than 3 entries"));
    u = unpack_tar(dir, {{"a", '0', std::string(100, 'x')}, {"b", '0', std::string(50, 'x')}}, gzip, limits);
    CHECK(u.ok);
  }
  put(dir / "big.zip", make_zip({{"a.txt", std::string(200, 'x')}}));
  const grade::Unpacked u = grade::unpack_archive((dir / "big.zip").string(), (dir / "big").string(), limits);
  CHECK_FALSE(u.ok);
  CHECK(contains(u.error, "a.txt unpacks to more than 100 bytes"));
}
#endif

TEST_CASE("every student of a class gets a row with a clear status, and nothing escapes" *
          doctest::skip(kNoGradeClass || lab_test::kNoCpuSolutions)) {
  const fs::path& dir = graded_class();
  auto rows = gradebook(dir);
  CHECK(rows.size() == 11);
  const std::pair<std::string, std::string> statuses[] = {
      {"alice", "graded"},
      {"bob", "graded"},
      {"carol", "graded"},
      {"mallory", "graded"},
      {"trudy", "graded"},
      {"tina", "graded"},
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
  for (const char* id : {"trudy", "tina"}) {
    CAPTURE(id);
    CHECK(rows[id]["total"] == "0");  // the skeleton, graded
    check_hostile_tar_notes(rows[id]["notes"]);
    check_nothing_escaped(dir / "out" / "students" / id / "unpacked", dir / "outside");
  }
  // Each graded student's own reports, where the gradebook says.
  CHECK(contains(read_file((dir / "out" / rows["alice"]["report"] / "results.json").string()), "\"score\": 8"));
  CHECK(contains(read_file((dir / "out" / rows["alice"]["report"] / "grade.log").string()), "Score: 8/8"));
}

TEST_CASE("a rerun keeps every finished student and grades again only one whose file changed" *
          doctest::skip(kNoGradeClass || lab_test::kNoCpuSolutions)) {
  const fs::path& dir = graded_class();
  const auto before = gradebook(dir);
  fs::copy_file("solutions/" + kLabFile, dir / "submissions" / "bob" / "labs" / kLabFile, fs::copy_options::overwrite_existing);
  const tools::RunResult r = grade_class(dir);
  CAPTURE(r.output);
  REQUIRE(r.exited(0));
  CHECK(tools::count_of(r.output, "(unchanged since the last run: kept)") == 6);
  CHECK(contains(r.output, "] bob: graded 8/8;"));
  auto after = gradebook(dir);
  CHECK(after.size() == before.size());
  CHECK(after["bob"]["total"] == "8");
  for (const char* id : {"alice", "carol", "mallory", "trudy", "tina"}) {
    CAPTURE(id);
    CHECK(after[id]["total"] == before.at(id).at("total"));
    CHECK(after[id]["seed"] == before.at(id).at("seed"));
  }
}

TEST_CASE("REGRADE grades the students it names again, and keeps the others; a name that is no student grades nobody" *
          doctest::skip(kNoGradeClass || lab_test::kNoCpuSolutions)) {
  const fs::path& dir = graded_class();
  const tools::RunResult r = grade_class(dir, {"--regrade", "alice", "--trace-runs"});
  CAPTURE(r.output);
  REQUIRE(r.exited(0));
  CHECK(contains(r.output, "make grade-class: grading alice again (their earlier results forgotten)"));
  CHECK(contains(r.output, "] alice: graded 8/8;"));
  CHECK(tools::count_of(r.output, "(unchanged since the last run: kept)") == 6);
  // --trace-runs: the student graded now has a line per program run; scripts/trace-summary reads them.
  const std::string runs = read_file((dir / "out" / gradebook(dir)["alice"]["report"] / ".." / "runs.tsv").string());
  CHECK(tools::count_of(runs, "\tshared\t01_matmul_naive\t-\tcorrectness-") >= 2);
  const tools::RunResult summary = lab_test::run_tool({"scripts/trace-summary", (dir / "out").string()});
  CAPTURE(summary.output);
  CHECK(summary.exited(0));
  CHECK(std::regex_search(summary.output, std::regex("gradings 1 on [^ ]+:cpu, lab program runs ")));  // the CPU backend
  const tools::RunResult refused = grade_class(dir, {"--regrade", "alice,nobody"});
  CAPTURE(refused.output);
  CHECK(refused.exited(2));
  CHECK(contains(refused.output, "REGRADE: no student 'nobody' in "));
  CHECK(gradebook(dir)["alice"]["total"] == "8");
}

TEST_CASE("COUNTS is model or ncu, and the CPU backend counts with its model only" * doctest::skip(kNoGradeClass)) {
  const fs::path dir = fs::absolute("build/test/grade-class-counts");
  fs::remove_all(dir);
  fs::create_directories(dir / "submissions" / "alice");
  put(dir / "roster.csv", "id\nalice\n");
  for (const auto& [value, message] : std::vector<std::pair<std::string, std::string>>{
           {"nope", "COUNTS must be ncu or model, not 'nope'"},
           {"ncu", "COUNTS=ncu counts with Nsight Compute, on a GPU; the CPU backend counts with its model"}}) {
    const tools::RunResult r = grade_class(dir, {"--counts", value});
    CAPTURE(r.output);
    CHECK(r.exited(2));
    CHECK(contains(r.output, message));
  }
}

TEST_CASE("the instructor's overrides reach the gradebook, the student's report and the LMS files, and survive a regrade" *
          doctest::skip(kNoGradeClass || lab_test::kNoCpuSolutions)) {
  const fs::path& dir = graded_class();
  const fs::path overrides = dir / "out" / "overrides.csv";
  const std::string bob_total = gradebook(dir)["bob"]["total"];
  put(overrides, "id,lab,points,comment\nalice,01,6,\"reviewed by hand: the guard, not the loop\"\nbob,01,,see me\n");
  tools::RunResult r = grade_class(dir, {"--regrade", "alice"});
  CAPTURE(r.output);
  REQUIRE(r.exited(0));
  CHECK(contains(r.output, "make grade-class: 2 overrides from " + overrides.string() + ", applied to the gradebook"));
  CHECK(contains(r.output, "] alice: graded 8/8;"));  // the grader's verdict stands; the gradebook shows the instructor's
  auto rows = gradebook(dir);
  CHECK(rows["alice"]["total"] == "6");
  CHECK(contains(rows["alice"]["notes"], "lab 01: 6 of 8 points, set by the instructor (the grader gave 8): reviewed by hand"));
  CHECK(rows["bob"]["total"] == bob_total);  // a comment alone leaves the points
  CHECK(contains(rows["bob"]["notes"], "lab 01: see me"));
  CHECK(contains(read_file((dir / "out" / rows["alice"]["report"] / "adjustments.txt").string()),
                 "Your instructor adjusted your grade:\n  lab 01: 6 of 8 points"));
  const std::string canvas = read_file((dir / "out" / "canvas.csv").string());
  CHECK(contains(canvas, "Points Possible,,,,,8\r\n"));
  CHECK(contains(canvas, "\"Alice, A.\",,alice,,,6\r\n"));
  CHECK(contains(read_file((dir / "out" / "moodle.csv").string()), "bob,Bob <b>," + bob_total + ",see me\r\n"));

  // A line naming no student is refused before anything is graded; the gradebook stays.
  put(overrides, "id,lab,points\nalicia,01,6\n");
  r = grade_class(dir);
  CHECK(r.exited(2));
  CHECK(contains(r.output, "overrides.csv:2: no student 'alicia' in this class"));
  CHECK(gradebook(dir)["alice"]["total"] == "6");

  // Taken back: the grader's points again, and no adjustments in the report.
  fs::remove(overrides);
  r = grade_class(dir);
  REQUIRE(r.exited(0));
  rows = gradebook(dir);
  CHECK(rows["alice"]["total"] == "8");
  CHECK_FALSE(fs::exists(dir / "out" / rows["alice"]["report"] / "adjustments.txt"));
}

TEST_CASE("a second run into a class folder is refused while the first holds it, and goes once it ends" *
          doctest::skip(kNoGradeClass || lab_test::kNoCpuSolutions)) {
  const fs::path& dir = graded_class();
  // The first run, as far as its lock goes: this test holds it.
  const int fd = open((dir / "out" / ".grade-class.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(flock(fd, LOCK_EX | LOCK_NB) == 0);
  const tools::RunResult refused = grade_class(dir);
  CAPTURE(refused.output);
  CHECK(refused.exited(2));
  CHECK(contains(refused.output, "another make grade-class is grading into " + (dir / "out").string()));
  close(fd);
  const tools::RunResult next = grade_class(dir);
  CAPTURE(next.output);
  CHECK(next.exited(0));
  CHECK(tools::count_of(next.output, "(unchanged since the last run: kept)") == 7);
}

TEST_CASE("the class summary is one page with escaped names, a chart per lab and every student" *
          doctest::skip(kNoGradeClass || lab_test::kNoCpuSolutions)) {
  const std::string html = read_file((graded_class() / "out" / "class.html").string());
  CHECK(contains(html, "<svg class=\"chart\" data-lab=\"01_matmul_naive\""));
  CHECK(contains(html, "Jos\xC3\xA9 &quot;q&quot; $(touch ran)"));
  CHECK(contains(html, "Bob &lt;b&gt;"));
  CHECK_FALSE(contains(html, "<b>"));
  CHECK_FALSE(contains(html, "<script"));
  CHECK_FALSE(contains(html, "http"));
  // Said once for the whole class, not once per lab.
  CHECK(tools::count_of(html, "No timings: the class was graded on the CPU backend, which times nothing.") == 1);
  // The chart counts who tried the lab (alice, carol, the odd name, and bob, whose skeleton the
  // rerun's test above replaced with the solution); the skeletons handed in (mallory, trudy, tina)
  // and the students with no lab file (empty_eve, wrong_wes, larry, missing_mo) apart, and their
  // failures not among the failing checks: carol's alone.
  CHECK(contains(html, "4 tried it; 3 handed in the skeleton as given (not started); 4 handed in nothing for it"));
  CHECK(contains(html, "<tr><td>lab 01 matmul_naive: correctness</td><td>1 of 4</td>"));
  CHECK(contains(html, "<h2>Similarity</h2>"));  // the report's line, made or not (tests/grading/test_similarity.cpp)
}

// Chromium comes from scripts/install-deps chromium (CI's .ci/run installs it); without it this
// test is reported skipped, never passed.
TEST_CASE("the class summary renders in headless Chromium with its charts and every student (skipped without chromium)" *
          doctest::skip(kNoGradeClass || lab_test::kNoCpuSolutions || !have_chromium())) {
  const fs::path page = graded_class() / "out" / "class.html";
  tools::RunOptions options;
  options.timeout_s = 120;
  const tools::RunResult r = tools::run_command({"chromium", "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", "file://" + page.string()}, options);
  CAPTURE(r.output);
  REQUIRE(r.exited(0));
  CHECK(tools::count_of(r.output, "<svg class=\"chart\"") == 1);
  CHECK(tools::count_of(r.output, "<rect class=\"bar\"") == 11);
  CHECK(tools::count_of(r.output, "<tr class=\"student\"") == 11);
  for (const char* id : {"alice", "bob", "carol", "mallory", "trudy", "tina", "empty_eve", "wrong_wes", "larry", "missing_mo"}) {
    CHECK(contains(r.output, std::string("data-id=\"") + id + "\""));
  }
  CHECK(contains(r.output, "Jos\xC3\xA9 \"q\" $(touch ran)"));
}

}
