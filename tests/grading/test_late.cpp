// make grade-class's late policy (grading/core/late.h, grading/course/class/submitted.h, the gradebook's late
// columns): the arithmetic of days late and penalties, the rubric's keys, a gradebook without due
// times unchanged, and a small class graded with a due time: one student on time, one a few days
// late by the lab file's time, one late by its LMS metadata though its file is on time, and one
// archive whose entries are a week late (the cap). Without grade-class's libraries
// (scripts/install-deps grade-class) only the arithmetic and the rubric are tested; the rest is
// reported skipped, with one more test naming what is missing.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <utime.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "tools/subprocess.h"
#ifndef GRADE_CLASS_MISSING
#include "grading/course/class/csv.h"
#include "grading/course/class/gradebook.h"
#endif
#include "grading/core/late.h"
#include "grading/core/rubric.h"
#include "tests/lab_programs.h"

namespace {

namespace fs = std::filesystem;
using lab_test::contains;
using lab_test::read_file;

constexpr int64_t kDue = 1796165940;  // 2026-12-01 22:59:00 UTC (date -u -d "2026-12-01 22:59" +%s)
constexpr int64_t kHour = 3600, kDay = 86400;

void put(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

void set_mtime(const fs::path& path, int64_t seconds) {
  const utimbuf times{time_t(seconds), time_t(seconds)};
  REQUIRE(utime(path.c_str(), &times) == 0);
}

std::string rubric_error(const std::string& text) {
  const fs::path path = fs::absolute("build/test/late-rubric.txt");
  put(path, text);
  std::vector<lab::LabEntry> labs;
  std::string error;
  REQUIRE(lab::read_labs("labs.txt", &labs, &error));
  grade::Rubric rubric;
  return grade::read_rubric(path.string(), labs, &rubric, &error) ? "" : error;
}

// rubric-class.txt with a due time for lab 01 and a rule: 10 % a day, at most 50 %, 15 minutes' grace.
std::string late_rubric(const std::string& due) {
  return "late.per_day = 10\nlate.max = 50\nlate.grace_minutes = 15\n" + read_file("tests/fixtures/rubric-class.txt") + "due = " + due + "\n";
}

}  // namespace

TEST_SUITE("late policy") {

TEST_CASE("a due time is read with its zone, and a time without one or that is no time is refused") {
  int64_t t = 0;
  REQUIRE(grade::parse_time("2026-12-01 23:59 +01:00", &t));
  CHECK(t == kDue);
  REQUIRE(grade::parse_time("2026-12-01T22:59:00Z", &t));
  CHECK(t == kDue);
  REQUIRE(grade::parse_time("2026-12-01 17:59 -0500", &t));
  CHECK(t == kDue);
  REQUIRE(grade::parse_time("2018-07-01T14:22:32.365935-07:00", &t));  // Gradescope's created_at
  CHECK(t == 1530480152);
  CHECK(grade::utc_text(kDue) == "2026-12-01 22:59:00 UTC");
  for (const char* bad : {"2026-12-01 23:59", "2026-02-30 10:00 Z", "2026-12-01 24:00 Z", "2026-12-01 23:59 +01:00 x", "tomorrow", ""}) {
    CAPTURE(bad);
    CHECK_FALSE(grade::parse_time(bad, &t));
  }
}

TEST_CASE("days late count each day begun since the due time, once past the grace; the penalty stops at its cap") {
  grade::LatePolicy p;
  p.per_day = 10;
  p.max = 50;
  p.grace_minutes = 15;
  CHECK(grade::days_late(kDue - kDay, kDue, p) == 0);
  CHECK(grade::days_late(kDue, kDue, p) == 0);
  CHECK(grade::days_late(kDue + 15 * 60, kDue, p) == 0);      // within the grace
  CHECK(grade::days_late(kDue + 15 * 60 + 1, kDue, p) == 1);  // past it: the first day begun
  CHECK(grade::days_late(kDue + kDay, kDue, p) == 1);
  CHECK(grade::days_late(kDue + kDay + 1, kDue, p) == 2);
  CHECK(grade::days_late(kDue + 49 * kHour, kDue, p) == 3);
  CHECK(grade::late_points(8, 0, p) == doctest::Approx(8));
  CHECK(grade::late_points(8, 1, p) == doctest::Approx(7.2));
  CHECK(grade::late_points(8, 3, p) == doctest::Approx(5.6));
  CHECK(grade::late_points(8, 7, p) == doctest::Approx(4));  // 70 % capped at 50 %
  p.max = 100;
  CHECK(grade::late_points(8, 12, p) == doctest::Approx(0));  // never below 0
}

TEST_CASE("the rubric's late keys: a due time per lab, once per lab in steps, the rule before the first section") {
  const std::string fast = read_file("tests/fixtures/rubric-fast.txt");
  CHECK(rubric_error(late_rubric("2026-12-01 23:59 +01:00")) == "");
  CHECK(contains(rubric_error(late_rubric("2026-12-01 23:59")), "due takes a date, a time and its zone"));
  CHECK(contains(rubric_error("late.per_day = 110\n" + fast), "late.per_day is a percent, at most 100"));
  CHECK(contains(rubric_error("late.days = 1\n" + fast), "unknown setting 'late.days'"));
  std::string steps = fast;
  steps.replace(steps.find("[03_matmul_register.2d]"), 23, "[03_matmul_register.2d]\ndue = 2026-12-01 23:59 Z");
  CHECK(rubric_error(steps) == "");
  steps.replace(steps.find("[03_matmul_register]\n"), 21, "[03_matmul_register]\ndue = 2026-12-02 23:59 Z\n");
  CHECK(contains(rubric_error(steps), "lab 03_matmul_register's steps give different due times"));
}

#ifdef GRADE_CLASS_MISSING
TEST_CASE("the gradebook's late columns are not tested here: the Debian packages " GRADE_CLASS_MISSING
          " are missing (scripts/install-deps grade-class installs them)" * doctest::skip()) {}
#else
TEST_CASE("without due times the gradebook has its usual columns; with one, each late row shows raw and adjusted points") {
  std::vector<lab::LabEntry> labs;
  std::string error;
  REQUIRE(lab::read_labs("labs.txt", &labs, &error));
  labs.resize(2);
  grade::GradebookRow row;
  row.student.id = "ann";
  row.status = "graded";
  row.lab_points = {8, 10};
  row.lab_max = {8, 12};
  row.submitted = {kDue + 2 * kDay, kDue + 3 * kDay};
  grade::GradebookRow missing;
  missing.student.id = "mo";
  missing.status = "missing: nothing handed in";
  std::vector<std::vector<std::string>> records;
  REQUIRE(grade::parse_csv(grade::gradebook_csv({row, missing}, labs), &records, &error));
  CHECK(records[0] == std::vector<std::string>{"id", "name", "status", labs[0].folder, labs[1].folder, "total", "max", "seed", "gpu",
                                                "notes", "report"});
  grade::Deadlines deadlines;
  deadlines.due = {kDue, -1};  // lab 2 has none: its points count as they are
  deadlines.policy.per_day = 25;
  REQUIRE(grade::parse_csv(grade::gradebook_csv({row, missing}, labs, deadlines), &records, &error));
  const std::string lab = labs[0].folder;
  CHECK(records[0].size() == 15);
  CHECK(std::vector<std::string>(records[0].begin() + 11, records[0].end()) ==
        std::vector<std::string>{lab + " submitted", lab + " days late", lab + " adjusted", "adjusted total"});
  CHECK(std::vector<std::string>(records[1].begin() + 11, records[1].end()) ==
        std::vector<std::string>{"2026-12-03 22:59:00 UTC", "2", "4", "14"});
  CHECK(records[1][5] == "18");  // the raw total stays
  CHECK(std::vector<std::string>(records[2].begin() + 11, records[2].end()) == std::vector<std::string>{"", "", "0", "0"});
}

TEST_CASE("a class graded with a due time: on time, late by its file's time, late by its LMS metadata, late by its archive's times" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  const fs::path dir = fs::absolute("build/test/grade-class-late");
  fs::remove_all(dir);
  const std::string lab_file = "01_matmul_naive/matmul_naive.cu", solution = read_file("solutions/" + lab_file);
  const fs::path subs = dir / "submissions";
  put(subs / "ontime" / lab_file, solution);
  set_mtime(subs / "ontime" / lab_file, kDue - kHour);
  put(subs / "late" / lab_file, solution);
  set_mtime(subs / "late" / lab_file, kDue + 49 * kHour);  // 3 days begun: 30 %
  // The metadata wins over the file's time: an LMS's copy has the time it was copied.
  put(subs / "meta" / lab_file, solution);
  set_mtime(subs / "meta" / lab_file, kDue - kDay);
  put(subs / "meta" / "submission_metadata.json", R"({"id": 1, "created_at": "2026-12-02T01:00:00.123456+01:00"})");
  put(dir / "packed" / "labs" / lab_file, solution);
  set_mtime(dir / "packed" / "labs" / lab_file, kDue + 7 * kDay);  // a week: 70 %, capped at 50 %
  REQUIRE(tools::run_command({"tar", "-czf", (subs / "packed.tar.gz").string(), "-C", (dir / "packed").string(), "labs"}).exited(0));
  put(dir / "rubric.txt", late_rubric("2026-12-01 23:59 +01:00"));

  tools::RunOptions options;
  options.timeout_s = 600;
  const tools::RunResult r = tools::run_command({"build/host/grade-class", "--submissions", subs.string(), "--out", (dir / "out").string(), "--lab",
                                                 "01", "--rubric", (dir / "rubric.txt").string(), "--backend", "cpu", "--seed", "77",
                                                 "--jobs", "2", "--build-dir", "build/grade-tests"},
                                            options);
  INFO(r.output);
  REQUIRE(r.exited(0));
  std::vector<std::vector<std::string>> records;
  std::string error;
  REQUIRE(grade::parse_csv(read_file((dir / "out" / "gradebook.csv").string()), &records, &error));
  std::map<std::string, std::map<std::string, std::string>> rows;
  for (size_t i = 1; i < records.size(); ++i) {
    for (size_t c = 0; c < records[0].size(); ++c) rows[records[i][0]][records[0][c]] = records[i][c];
  }
  REQUIRE(rows.size() == 4);
  const std::string lab = "01_matmul_naive";
  const std::map<std::string, std::vector<std::string>> expected = {
      // raw, submitted, days late, adjusted, adjusted total
      {"ontime", {"6", "2026-12-01 21:59:00 UTC", "0", "6", "6"}},
      {"late", {"6", "2026-12-03 23:59:00 UTC", "3", "4.2", "4.2"}},
      {"meta", {"6", "2026-12-02 00:00:00 UTC", "1", "5.4", "5.4"}},
      {"packed", {"6", "2026-12-08 22:59:00 UTC", "7", "3", "3"}},
  };
  for (const auto& [id, want] : expected) {
    CAPTURE(id);
    CHECK(rows[id]["status"] == "graded");
    CHECK(std::vector<std::string>{rows[id][lab], rows[id][lab + " submitted"], rows[id][lab + " days late"], rows[id][lab + " adjusted"],
                                   rows[id]["adjusted total"]} == want);
  }
}
#endif

}  // TEST_SUITE
