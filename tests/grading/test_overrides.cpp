// An instructor's overrides (grading/course/class/overrides.h) and the gradebook for Canvas and
// Moodle (grading/course/class/lms.h): a file with a mistake is refused with its line, an
// override replaces the grader's points and says so, and the LMS files carry the points as they
// stand (override, then late penalty), an empty cell for a student not graded. make grade-class
// applying them across a regrade is tested in test_grade_class.cpp. Without grade-class's
// libraries this is reported skipped.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/labs.h"
#ifndef GRADE_CLASS_MISSING
#include "grading/course/class/csv.h"
#include "grading/course/class/lms.h"
#include "grading/course/class/overrides.h"
#endif

namespace {

#ifdef GRADE_CLASS_MISSING
TEST_CASE("overrides and the LMS exports are not tested here: the Debian packages " GRADE_CLASS_MISSING
          " are missing (scripts/install-deps grade-class installs them)" * doctest::skip()) {}
#else
std::vector<lab::LabEntry> all_labs() {
  std::vector<lab::LabEntry> labs;
  std::string error;
  REQUIRE(lab::read_labs("labs.txt", &labs, &error));
  return labs;
}

std::vector<lab::LabEntry> two_labs() {
  std::vector<lab::LabEntry> labs = all_labs();
  labs.resize(2);
  return labs;
}

// Reads TEXT as an overrides file of the students ann and bo.
bool read(const std::string& text, std::vector<grade::Override>* overrides, std::string* error) {
  const std::string path = "build/test/overrides-" + std::to_string(getpid()) + ".csv";
  std::ofstream(path) << text;
  const bool ok = grade::read_overrides(path, all_labs(), {"ann", "bo"}, overrides, error);
  std::filesystem::remove(path);
  return ok;
}

std::vector<std::vector<std::string>> records_of(const std::string& csv) {
  std::vector<std::vector<std::string>> records;
  std::string error;
  REQUIRE(grade::parse_csv(csv, &records, &error));
  return records;
}

grade::GradebookRow graded(const std::string& id, std::vector<double> points) {
  grade::GradebookRow row;
  row.student.id = id;
  row.status = "graded";
  row.lab_points = points;
  row.lab_max = {8, 10};
  return row;
}

TEST_CASE("an overrides file with a mistake is refused, naming its line") {
  std::vector<grade::Override> o;
  std::string error;
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"id,lab,points\ncarl,01,3\n", ":2: no student 'carl' in this class"},
      {"id,lab,points\nann,01,3\nann,09,3\n", ":3: no lab '09' in labs.txt"},
      {"id,lab,points\nann,01,three\n", ":2: points 'three' is not a number from 0"},
      {"id,lab,points\nann,01,-1\n", ":2: points '-1' is not a number from 0"},
      {"id,lab,points,comment\nann,01,,\n", ":2: it gives neither points nor a comment"},
      {"id,points\nann,3\n", "its header must name the columns id, lab, and points or comment"},
      {"", "the overrides is empty"},
  };
  for (const auto& [text, says] : bad) {
    CAPTURE(text);
    CHECK_FALSE(read(text, &o, &error));
    CHECK_MESSAGE(error.find(says) != std::string::npos, error);
  }
  REQUIRE(read("ID,Lab,Points,Comment\nann,1,7.5,\"reviewed by hand, fine\"\nbo,02_matmul_tiled,,see me\n", &o, &error));
  REQUIRE(o.size() == 2);
  CHECK(o[0].lab == "01_matmul_naive");
  CHECK(*o[0].points == 7.5);
  CHECK(o[1].comment == "see me");
  CHECK_FALSE(o[1].points.has_value());
}

TEST_CASE("an override replaces the grader's points and says so; a lab this run does not grade keeps its line for later") {
  const std::vector<lab::LabEntry> labs = two_labs();
  std::vector<grade::GradebookRow> rows = {graded("ann", {5.5, 10}), graded("bo", {8, 4})};
  grade::Override ann{"ann", labs[0].folder, 7.0, "reviewed by hand"};
  grade::Override bo{"bo", labs[1].folder, std::nullopt, "see me"};
  grade::Override later{"bo", "05_dot_reduction", 1.0, ""};
  grade::apply_overrides({ann, bo, later}, labs, &rows);
  CHECK(rows[0].lab_points == std::vector<double>{7, 10});
  CHECK(rows[0].adjustments ==
        std::vector<std::string>{"lab 01: 7 of 8 points, set by the instructor (the grader gave 5.5): reviewed by hand"});
  CHECK(rows[0].notes == rows[0].adjustments);
  CHECK(rows[1].lab_points == std::vector<double>{8, 4});
  CHECK(rows[1].adjustments == std::vector<std::string>{"lab 02: see me"});
}

TEST_CASE("Canvas's and Moodle's files carry each lab's points as they stand, empty for a student not graded") {
  const std::vector<lab::LabEntry> labs = two_labs();
  grade::GradebookRow ann = graded("ann", {8, 10});
  ann.student.name = "Ann O'Neil, Jr.";
  ann.submitted = {2000 + 86400, -1};  // a day late in lab 01
  grade::GradebookRow bo = graded("bo", {5.5, 4});
  grade::GradebookRow mo;
  mo.student.id = "mo";
  mo.status = "missing: nothing handed in";
  std::vector<grade::GradebookRow> rows = {ann, bo, mo};
  grade::apply_overrides({{"bo", labs[0].folder, 6.0, "partial credit"}}, labs, &rows);
  grade::Deadlines deadlines;
  deadlines.due = {2000, -1};
  deadlines.policy.per_day = 25;
  const std::string lab1 = "Lab 01 matmul_naive", lab2 = "Lab 02 matmul_tiled";

  const auto canvas = records_of(grade::canvas_csv(rows, labs, deadlines));
  REQUIRE(canvas.size() == 5);
  CHECK(canvas[0] == std::vector<std::string>{"Student", "ID", "SIS User ID", "SIS Login ID", "Section", lab1, lab2});
  CHECK(canvas[1] == std::vector<std::string>{"Points Possible", "", "", "", "", "8", "10"});
  CHECK(canvas[2] == std::vector<std::string>{"Ann O'Neil, Jr.", "", "ann", "", "", "6", "10"});  // 25% off lab 01
  CHECK(canvas[3] == std::vector<std::string>{"bo", "", "bo", "", "", "6", "4"});
  CHECK(canvas[4] == std::vector<std::string>{"mo", "", "mo", "", "", "", ""});

  const auto moodle = records_of(grade::moodle_csv(rows, labs, deadlines));
  REQUIRE(moodle.size() == 4);
  CHECK(moodle[0] == std::vector<std::string>{"ID number", "Full name", lab1, lab2, lab1 + " feedback", lab2 + " feedback"});
  CHECK(moodle[2] ==
        std::vector<std::string>{"bo", "", "6", "4", "6 of 8 points, set by the instructor (the grader gave 5.5): partial credit", ""});
  CHECK(moodle[3] == std::vector<std::string>{"mo", "", "", "", "", ""});
}
#endif

}  // namespace
