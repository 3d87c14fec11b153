// make grade-class given an LMS's download of a class (grading/course/class/download.h): Canvas's
// "Download Submissions" zip and Gradescope's "Export Submissions" zip, each made here as the LMS
// makes it (its names, its folders, its submission_metadata.yml in Ruby's YAML style), and read
// with the class grader's own code: the students, their roster ids and names, Canvas's LATE,
// Gradescope's times, which files count, and each refusal (a corrupt zip, a download that names
// a student twice or none of the roster's, a metadata file this reader cannot read), with
// nothing written outside the import's folder. Then grade-class itself, once per LMS, with one
// student graded (lab 01's solution on the class rubric: seconds, the tests' build folder
// built): the download is taken as SUBMISSIONS, and the gradebook has the roster's ids, the
// LMS's names, Gradescope's time against the due time and Canvas's late mark.
// Without grade-class's libraries every test here is skipped, and one more names what is missing.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "common/labs.h"
#include "tools/subprocess.h"
#ifndef GRADE_CLASS_MISSING
#include "grading/course/class/csv.h"
#include "grading/course/class/download.h"
#include "grading/course/class/gradescope_yml.h"
#include "grading/course/class/submitted.h"
#include "grading/core/late.h"
#endif
#include "tests/grading/grade_class_tests.h"
#include "tests/lab_programs.h"

namespace {

namespace fs = std::filesystem;
using lab_test::contains;
using lab_test::make_zip;
using lab_test::put;
using lab_test::read_file;

const std::string kLab01 = "01_matmul_naive/matmul_naive.cu", kLab02 = "02_matmul_tiled/matmul_tiled.cu";

// A fresh folder for one test.
fs::path scratch(const std::string& name) {
  const fs::path dir = fs::absolute("build/test/downloads") / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Every file under DIR, by its path relative to DIR.
std::vector<std::string> files_under(const fs::path& dir) {
  std::vector<std::string> files;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_directory()) files.push_back(e.path().lexically_relative(dir).string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string all;
  for (const std::string& l : lines) all += l + "\n";
  return all;
}

// An index in the shape Gradescope's export has (Ruby's YAML): symbol keys, a quoted SID, the
// autograder's results and the history nested under each submission. The results hold text
// that looks like a submission (a student's output): it is skipped by its indentation.
const std::string kMetadata = R"(---
submission_101:
  :submitters:
  - :name: Ada Lovelace
    :sid: '222334'
    :email: ada@example.edu
  :created_at: 2026-12-03 22:59:00.123456000 Z
  :score: 6.0
  :status: processed
  :results:
    score: 6.0
    tests:
    - name: 'lab 01: build'
      output: |
        submission_999:
          :submitters:
          - :name: Mallory
        :created_at: 1999-01-01 00:00:00 Z
      score: 1.0
  :history:
  - :submitters: []
    :created_at: 2026-11-30 10:00:00.000000000 Z
    :score: 0.0
submission_102:
  :submitters:
  - :name: "Jos\u00E9 \"q\" O'Brien"
    :sid: 
    :email: jose@example.edu
  - :name: |-
      Grace
      Hopper
    :sid: '7'
    :email: 
  :created_at: 2026-12-01 14:59:00.000000000 -08:00
  :score: 0.0
submission_103:
  :submitters:
  - :name: A very long name that the writer folds over two lines because it is longer
      than eighty columns
    :sid: '8'
    :email: long@example.edu
  :created_at: 2026-12-01 23:00:00.000000000 +01:00
)";

#ifndef GRADE_CLASS_MISSING
std::vector<lab::LabEntry> table() {
  std::vector<lab::LabEntry> labs;
  std::string error;
  REQUIRE(lab::read_labs("labs.txt", &labs, &error));
  return labs;
}

std::vector<grade::Student> roster_of(const fs::path& path, const std::string& text) {
  put(path, text);
  std::vector<grade::Student> roster;
  std::string error;
  REQUIRE_MESSAGE(grade::read_roster(path.string(), &roster, &error), error);
  return roster;
}

grade::DownloadKind kind_of(const fs::path& path) {
  grade::DownloadKind kind = grade::DownloadKind::none;
  std::string error;
  REQUIRE_MESSAGE(grade::download_kind(path.string(), &kind, &error), error);
  return kind;
}
#endif

}  // namespace

TEST_SUITE("LMS downloads") {

#ifdef GRADE_CLASS_MISSING
TEST_CASE("LMS downloads are not tested here: the Debian packages " GRADE_CLASS_MISSING
          " are missing (scripts/install-deps grade-class installs them)" * doctest::skip()) {}
#else
TEST_CASE("a Canvas file name gives the student, LATE, the user and file ids and the file as uploaded") {
  auto one = [](const std::string& name) {
    const std::vector<grade::CanvasFileName> r = grade::read_canvas_file_name(name);
    REQUIRE(!r.empty());
    return r.front();
  };
  grade::CanvasFileName c = one("lovelaceada_340934_208490284_matmul_naive.cu");
  CHECK(c.student == "lovelaceada");
  CHECK_FALSE(c.late);
  CHECK(c.user_id == "340934");
  CHECK(c.file_id == "208490284");
  CHECK(c.file == "matmul_naive.cu");
  c = one("lovelaceada_late_340934_208490284_matmul_naive-1.cu");
  CHECK(c.late);
  CHECK(c.student == "lovelaceada");
  CHECK(c.file == "matmul_naive-1.cu");
  CHECK(one("LovelaceAda_LATE_1_2_x.cu").late);         // upper case
  CHECK(one("lovelace-ada-late_1_2_x.cu").late);        // Canvas before 2017: "-late"
  CHECK(one("lovelace-ada-late_1_2_x.cu").student == "lovelace-ada");
  c = one("late_340934_7_x.cu");                        // names left out (anonymous grading)
  CHECK(c.late);
  CHECK(c.student.empty());
  CHECK(one("340934_7_x_1_2_y.cu").file == "x_1_2_y.cu");
  // A name holding _N_ reads two ways: both are given, the first as Canvas writes most names.
  const std::vector<grade::CanvasFileName> two = grade::read_canvas_file_name("o_2_340934_208490284_x.cu");
  REQUIRE(two.size() == 2);
  CHECK(two[0].user_id == "2");
  CHECK(two[1].user_id == "340934");
  CHECK(two[1].student == "o_2");
  for (const std::string not_canvas : {"notes.txt", "a/b_1_2_c.cu", "bob_1_2_", "bob_1_x_2_c", "bob_1_2", "submission_metadata.yml"}) {
    CAPTURE(not_canvas);
    CHECK(grade::read_canvas_file_name(not_canvas).empty());
  }
}

TEST_CASE("a Canvas download becomes a folder per roster student: the newest upload of each lab, archives opened, LATE kept") {
  const fs::path dir = scratch("canvas");
  const std::vector<lab::LabEntry> labs = table();
  const std::vector<grade::Student> roster =
      roster_of(dir / "roster.csv", "id,name,canvas_id\ns1001,\"Lovelace, Ada\",340934\ns1002,Babbage,340935\ns1003,Hopper,340936\n");
  put(dir / "canvas.zip",
      make_zip({
          {"lovelaceada_340934_1001_matmul_naive.cu", "ada v1"},
          {"lovelaceada_340934_1005_matmul_naive-1.cu", "ada v2"},  // handed in again: Canvas's -1, a later file id
          {"lovelaceada_340934_1002_report.pdf", "%PDF"},
          {"babbagecharles_late_340935_2001_labs.zip",
           make_zip({{"workbook/labs/" + kLab01, "charles old"}, {"workbook/labs/" + kLab02, "charles 02"}, {"../evil", "x"}})},
          {"babbagecharles_late_340935_2002_matmul_naive.cu", "charles new"},
          {"turingalan_340999_3001_matmul_naive.cu", "alan"},
          {"notes.txt", "not Canvas's"},
          {"__MACOSX/._notes.txt", ""},
          {"x_340934_4001_../../escape.cu", "climbs"},  // a name Canvas never writes
          {"x\ny_340935_1_notes\n.txt", "odd"},
      }));
  CHECK(kind_of(dir / "canvas.zip") == grade::DownloadKind::canvas);
  grade::Imported in;
  std::string error;
  REQUIRE_MESSAGE(grade::import_download((dir / "canvas.zip").string(), grade::DownloadKind::canvas, roster, labs, (dir / "out").string(),
                                         &in, &error),
                  error);
  CHECK(in.students == 3);
  CHECK(in.files == 4);
  CHECK(in.late == 1);
  CHECK(in.not_on_roster == std::vector<std::string>{"340999"});
  CHECK(contains(joined(in.notes), "notes.txt: left out, not named as Canvas names a student's file"));
  CHECK(contains(joined(in.notes), "x_340934_4001_../../escape.cu: left out"));
  CHECK_FALSE(contains(joined(in.notes), "__MACOSX"));
  const fs::path students = dir / "out" / "students";
  CHECK(files_under(students) == std::vector<std::string>{"340999/" + kLab01, "340999/lms-download.json", "s1001/" + kLab01,
                                                          "s1001/lms-download.json", "s1002/" + kLab01, "s1002/" + kLab02,
                                                          "s1002/lms-download.json"});
  CHECK(read_file((students / "s1001" / kLab01).string()) == "ada v2");
  CHECK(read_file((students / "s1002" / kLab01).string()) == "charles new");  // the loose file came after the archive
  CHECK(read_file((students / "s1002" / kLab02).string()) == "charles 02");
  // Nothing beside the students' folders: the scratch folder is gone, nothing climbed out.
  CHECK(files_under(dir) == std::vector<std::string>{"canvas.zip", "out/students/340999/" + kLab01, "out/students/340999/lms-download.json",
                                                     "out/students/s1001/" + kLab01, "out/students/s1001/lms-download.json",
                                                     "out/students/s1002/" + kLab01, "out/students/s1002/" + kLab02,
                                                     "out/students/s1002/lms-download.json", "roster.csv"});
  const grade::DownloadRecord ada = grade::read_download_record((students / "s1001").string());
  REQUIRE(ada.found);
  CHECK(ada.source == "Canvas");
  CHECK(ada.name == "lovelaceada");
  CHECK(ada.canvas_id == "340934");
  CHECK_FALSE(ada.late);
  CHECK(ada.created_at.empty());  // Canvas's download has no time: none is made up
  CHECK(contains(joined(ada.notes), "matmul_naive.cu: an earlier upload than matmul_naive-1.cu, left out"));
  CHECK(contains(joined(ada.notes), "report.pdf: left out, neither a lab file nor an archive"));
  const grade::DownloadRecord charles = grade::read_download_record((students / "s1002").string());
  CHECK(charles.late);
  CHECK(contains(joined(charles.notes), "labs.zip: ../evil: left out, climbs out of the folder"));
  CHECK(contains(joined(charles.notes), "labs.zip (its workbook/labs/" + kLab01 + "): an earlier upload than matmul_naive.cu, left out"));
  CHECK(contains(joined(charles.notes), "notes\\x0A.txt: left out"));  // a line break in a name, shown escaped
  // The times: none for Canvas, whatever the files' own.
  CHECK(grade::recorded_times(ada, (students / "s1001").string(), labs)[0] == -1);

  // Without a roster the students are Canvas's users.
  REQUIRE(grade::import_download((dir / "canvas.zip").string(), grade::DownloadKind::canvas, {}, labs, (dir / "out").string(), &in, &error));
  CHECK(fs::is_directory(students / "340934"));
  CHECK(fs::is_directory(students / "340935"));
  CHECK_FALSE(fs::exists(students / "s1001"));  // the import before is replaced
  CHECK(in.not_on_roster.empty());
}

TEST_CASE("a Canvas download is refused whole when the roster names none of its students or a Canvas user twice, or it is corrupt") {
  const fs::path dir = scratch("canvas-refused");
  const std::vector<lab::LabEntry> labs = table();
  put(dir / "canvas.zip", make_zip({{"lovelaceada_340934_1001_matmul_naive.cu", "ada"}}));
  grade::Imported in;
  std::string error;
  // A roster of SIS ids without Canvas's: no student would match, every one would be "missing".
  std::vector<grade::Student> roster = roster_of(dir / "roster.csv", "id,name\ns1001,Ada\n");
  CHECK_FALSE(grade::import_download((dir / "canvas.zip").string(), grade::DownloadKind::canvas, roster, labs, (dir / "out").string(), &in,
                                     &error));
  CHECK(contains(error, "names none of the roster's students: give the roster a canvas_id column"));
  CHECK_FALSE(fs::exists(dir / "out" / "students"));
  roster = roster_of(dir / "roster.csv", "id,canvas_id\ns1001,340934\ns1002,340934\n");
  CHECK_FALSE(grade::import_download((dir / "canvas.zip").string(), grade::DownloadKind::canvas, roster, labs, (dir / "out").string(), &in,
                                     &error));
  CHECK(contains(error, "the roster gives the Canvas user id 340934 to two students"));
  // Two Canvas users who come out as one student: the roster maps one, the other is its id.
  roster = roster_of(dir / "roster.csv", "id,canvas_id\n340934,999\n");
  put(dir / "two.zip", make_zip({{"lovelaceada_340934_1_matmul_naive.cu", "a"}, {"someone_999_2_matmul_naive.cu", "b"}}));
  CHECK_FALSE(grade::import_download((dir / "two.zip").string(), grade::DownloadKind::canvas, roster, labs, (dir / "out").string(), &in,
                                     &error));
  CHECK(contains(error, "names student 340934 twice"));
  // A bad CRC: refused whole, nothing left of the import.
  const std::string name = "lovelaceada_340934_1001_matmul_naive.cu";
  std::string zip = make_zip({{name, "ada's lab"}});
  zip[30 + name.size() + 2] ^= 1;  // a byte of the file's data: its CRC no longer matches
  put(dir / "bad.zip", zip);
  CHECK_FALSE(grade::import_download((dir / "bad.zip").string(), grade::DownloadKind::canvas, {}, labs, (dir / "out").string(), &in, &error));
  CHECK(contains(error, "is corrupt"));
  CHECK_FALSE(fs::exists(dir / "out" / "students"));
  // Not a zip at all, and a zip that neither LMS made.
  put(dir / "not.zip", "not a zip");
  grade::DownloadKind kind;
  CHECK_FALSE(grade::download_kind((dir / "not.zip").string(), &kind, &error));
  CHECK(contains(error, "cannot be opened as a zip"));
  put(dir / "alice.zip", make_zip({{"labs/" + kLab01, "a"}}));
  CHECK_FALSE(grade::download_kind((dir / "alice.zip").string(), &kind, &error));
  CHECK(contains(error, "is neither a Canvas download"));
}

TEST_CASE("Gradescope's submission_metadata.yml: each submission's students and time, the rest skipped by its indentation") {
  std::vector<grade::GradescopeSubmission> subs;
  std::string error;
  REQUIRE_MESSAGE(grade::read_gradescope_metadata(kMetadata, &subs, &error), error);
  REQUIRE(subs.size() == 3);  // submission_999, in a student's output, is no submission
  CHECK(subs[0].folder == "submission_101");
  REQUIRE(subs[0].submitters.size() == 1);
  CHECK(subs[0].submitters[0].name == "Ada Lovelace");
  CHECK(subs[0].submitters[0].sid == "222334");
  CHECK(subs[0].submitters[0].email == "ada@example.edu");
  CHECK(subs[0].created_at == "2026-12-03 22:59:00.123456000 Z");  // the submission's, not its history's
  REQUIRE(subs[1].submitters.size() == 2);
  CHECK(subs[1].submitters[0].name == "Jos\xC3\xA9 \"q\" O'Brien");
  CHECK(subs[1].submitters[0].sid.empty());
  CHECK(subs[1].submitters[1].name == "Grace\nHopper");
  CHECK(subs[1].submitters[1].email.empty());
  CHECK(subs[1].created_at == "2026-12-01 14:59:00.000000000 -08:00");
  CHECK(subs[2].submitters[0].name == "A very long name that the writer folds over two lines because it is longer than eighty columns");
  int64_t t = 0;
  REQUIRE(grade::parse_time(subs[0].created_at, &t));
  CHECK(grade::utc_text(t) == "2026-12-03 22:59:00 UTC");
  REQUIRE(grade::parse_time(subs[1].created_at, &t));
  CHECK(grade::utc_text(t) == "2026-12-01 22:59:00 UTC");

  // What it does not know it refuses, naming the line, rather than guess a name or a time.
  const std::pair<std::string, std::string> refused[] = {
      {"submission_1:\n  :submitters:\n  - *1\n", "line 3: a submitter given as an alias"},
      {"submission_1:\n  :submitters:\n  - :name: !binary |-\n      SGk=\n", "line 3: a tagged value (!binary)"},
      {"submission_1:\n  :submitters:\n  - :name: >-\n      Ada\n", "line 3: a folded block"},
      {"submission_1:\n  :submitters:\n  - :name:\n      Ada\n", "line 4: expected the value on its key's line"},
      {"submission_1:\n  :submitters: []\n   :created_at: x\n", "line 3: submission_1: a line indented unlike"},
      {"submission_1:\n  :created_at: '2026\n  :score: 1\n", "line 3: a quoted value that does not end"},
      {"submission_1:\n  :submitters: []\nsubmission_1:\n  :submitters: []\n", "line 3: submission_1 is listed twice"},
      {"submission_1: 5\n", "line 1: submission_1: expected its keys on the lines below it"},
      {"- submission_1\n", "line 1: expected a submission's folder"},
  };
  for (const auto& [text, message] : refused) {
    CAPTURE(text);
    CHECK_FALSE(grade::read_gradescope_metadata(text, &subs, &error));
    CHECK(contains(error, message));
  }
}

TEST_CASE("a Gradescope export becomes a folder per submitter with the submission's files and time; a group's each get them") {
  const fs::path dir = scratch("gradescope");
  const std::vector<lab::LabEntry> labs = table();
  const std::string top = "assignment_77_export/";
  const std::vector<std::pair<std::string, std::string>> files = {
      {top + "submission_metadata.yml", kMetadata},
      {top + "submission_101/labs/" + kLab01, "ada"},
      {top + "submission_102/matmul_naive.cu", "group"},
      {top + "submission_102/lms-download.json", "{\"created_at\": \"2000-01-01T00:00Z\"}"},  // a student's forged record
      {top + "submission_102/submission_metadata.yml", "a student's file of that name"},
      {top + "submission_102/../../escaped", "climbs"},
      {top + "submission_5/matmul_naive.cu", "in no submission the index lists"},
      {"__MACOSX/" + top + "._submission_metadata.yml", ""},
  };
  put(dir / "export.zip", make_zip(files));
  // The same export unzipped, as a browser may leave it.
  for (const auto& [name, data] : files) {
    if (name.find("..") == std::string::npos) put(dir / "unzipped" / name, data);
  }
  CHECK(kind_of(dir / "export.zip") == grade::DownloadKind::gradescope);
  CHECK(kind_of(dir / "unzipped") == grade::DownloadKind::gradescope);
  CHECK(kind_of(dir / "unzipped" / "assignment_77_export") == grade::DownloadKind::gradescope);
  // Ada by her SID as the roster's id, José by his email; Grace and the long name are not on it.
  const std::vector<grade::Student> roster = roster_of(dir / "roster.csv", "id,name,email\n222334,Ada L.,\ns9,,JOSE@example.edu\n");
  for (const fs::path& download : {dir / "export.zip", dir / "unzipped"}) {
    CAPTURE(download);
    grade::Imported in;
    std::string error;
    REQUIRE_MESSAGE(grade::import_download(download.string(), grade::DownloadKind::gradescope, roster, labs, (dir / "out").string(), &in,
                                           &error),
                    error);
    CHECK(in.students == 4);
    CHECK(in.not_on_roster == std::vector<std::string>{"7", "8"});
    CHECK(contains(joined(in.notes), "submission_5: left out, not a submission submission_metadata.yml lists"));
    const fs::path students = dir / "out" / "students";
    CHECK(files_under(students) == std::vector<std::string>{"222334/labs/" + kLab01, "222334/lms-download.json", "7/lms-download.json",
                                                            "7/matmul_naive.cu", "7/submission_metadata.yml", "8/lms-download.json",
                                                            "s9/lms-download.json", "s9/matmul_naive.cu", "s9/submission_metadata.yml"});
    CHECK(read_file((students / "s9" / "matmul_naive.cu").string()) == "group");
    const grade::DownloadRecord jose = grade::read_download_record((students / "s9").string());
    CHECK(jose.source == "Gradescope");
    CHECK(jose.name == "Jos\xC3\xA9 \"q\" O'Brien");
    CHECK(jose.created_at == "2026-12-01 14:59:00.000000000 -08:00");  // the index's, not the forged one
    CHECK(contains(joined(jose.notes), "a group submission, with Grace\\x0AHopper"));
    CHECK(contains(joined(jose.notes), "lms-download.json: left out, the name of the import's own record"));
    if (download.extension() == ".zip") CHECK(contains(joined(jose.notes), "../../escaped: left out, climbs out of the folder"));
    // The late policy's time for each lab handed in: the submission's, whatever the files' own.
    const std::vector<int64_t> times = grade::recorded_times(grade::read_download_record((students / "222334").string()),
                                                             (students / "222334" / "labs").string(), labs);
    CHECK(grade::utc_text(times[0]) == "2026-12-03 22:59:00 UTC");
    CHECK(times[1] == -1);  // lab 02 not handed in
  }
  CHECK_FALSE(fs::exists(dir / "escaped"));
  CHECK_FALSE(fs::exists(dir / "out" / "escaped"));
}

TEST_CASE("a Gradescope export is refused whole when it names a student twice, lacks its index, or its index cannot be read") {
  const fs::path dir = scratch("gradescope-refused");
  const std::vector<lab::LabEntry> labs = table();
  grade::Imported in;
  std::string error;
  auto import = [&](const std::vector<std::pair<std::string, std::string>>& files) {
    put(dir / "export.zip", make_zip(files));
    return grade::import_download((dir / "export.zip").string(), grade::DownloadKind::gradescope, {}, labs, (dir / "out").string(), &in,
                                  &error);
  };
  const std::string twice = "submission_1:\n  :submitters:\n  - :name: A\n    :sid: '5'\nsubmission_2:\n  :submitters:\n  - :name: B\n"
                            "    :sid: '5'\n";
  CHECK_FALSE(import({{"submission_metadata.yml", twice}, {"submission_1/a.cu", "a"}}));
  CHECK(contains(error, "names student 5 twice (submission_1 and submission_2)"));
  CHECK_FALSE(fs::exists(dir / "out" / "students"));
  CHECK_FALSE(import({{"submission_1/a.cu", "a"}}));
  CHECK(contains(error, "holds no submission_metadata.yml"));
  CHECK_FALSE(import({{"submission_metadata.yml", "submission_1:\n  :submitters:\n  - :name: !ruby/object x\n"}}));
  CHECK(contains(error, "submission_metadata.yml: line 3: a tagged value"));
  // A SID that cannot name a folder: the student's email names it, with a note.
  REQUIRE(import({{"submission_metadata.yml", "submission_1:\n  :submitters:\n  - :name: A\n    :sid: \"../x\"\n    :email: a@b.c\n"}}));
  CHECK(files_under(dir / "out" / "students") == std::vector<std::string>{"a@b.c/lms-download.json"});
  CHECK(contains(joined(grade::read_download_record((dir / "out" / "students" / "a@b.c").string()).notes),
                 "the SID '../x' cannot name a folder"));
}

TEST_CASE("a folder of students, or of their archives, is no download") {
  const fs::path dir = scratch("class-folder");
  put(dir / "class" / "alice" / kLab01, "a");
  put(dir / "class" / "bob" / "submission_metadata.yml", "a student's file");  // an index only beside submission folders
  put(dir / "zips" / "alice.zip", make_zip({{kLab01, "a"}}));
  put(dir / "zips" / "bob.zip", make_zip({{kLab01, "b"}}));
  CHECK(kind_of(dir / "class") == grade::DownloadKind::none);
  CHECK(kind_of(dir / "zips") == grade::DownloadKind::none);
  CHECK(kind_of(dir / "class" / "alice" / kLab01) == grade::DownloadKind::none);
  // Canvas's files unzipped into a folder (a browser does): a download.
  put(dir / "canvas" / "lovelaceada_340934_1001_matmul_naive.cu", "a");
  CHECK(kind_of(dir / "canvas") == grade::DownloadKind::canvas);
}

// grade-class on DOWNLOAD into DIR/out, lab 01 on the class rubric with a due time (10 % a day).
tools::RunResult grade_download(const fs::path& dir, const fs::path& download) {
  put(dir / "rubric.txt", "late.per_day = 10\n" + read_file("tests/fixtures/rubric-class.txt") + "due = 2026-12-01 23:59 +01:00\n");
  tools::RunOptions options;
  options.timeout_s = 600;
  return tools::run_command({"build/host/grade-class", "--submissions", download.string(), "--out", (dir / "out").string(), "--roster",
                             (dir / "roster.csv").string(), "--lab", "01", "--rubric", (dir / "rubric.txt").string(), "--backend", "cpu",
                             "--seed", "77", "--jobs", "2", "--build-dir", "build/grade-tests", "--no-similarity"},
                          options);
}

// The gradebook's rows by id, each a map from column to value.
std::map<std::string, std::map<std::string, std::string>> gradebook(const fs::path& dir) {
  std::vector<std::vector<std::string>> records;
  std::string error;
  REQUIRE_MESSAGE(grade::parse_csv(read_file((dir / "out" / "gradebook.csv").string()), &records, &error), error);
  std::map<std::string, std::map<std::string, std::string>> rows;
  for (size_t r = 1; r < records.size(); ++r) {
    for (size_t c = 0; c < records[0].size() && c < records[r].size(); ++c) rows[records[r][0]][records[0][c]] = records[r][c];
  }
  return rows;
}

TEST_CASE("make grade-class takes either download as SUBMISSIONS: roster ids, the LMS's names, Gradescope's time late, Canvas's mark" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  const std::string solution = read_file("solutions/" + kLab01);
  const std::string lab = "01_matmul_naive";

  // Gradescope: Ada's solution two days late by the export's time; a group that handed in nothing.
  fs::path dir = scratch("grade-gradescope");
  put(dir / "roster.csv", "id,name\n222334,\nmissing_mo,Mo\n");
  put(dir / "export.zip", make_zip({{"assignment_77_export/submission_metadata.yml", kMetadata},
                                    {"assignment_77_export/submission_101/" + kLab01, solution}}));
  tools::RunResult r = grade_download(dir, dir / "export.zip");
  CAPTURE(r.output);
  REQUIRE(r.exited(0));
  CHECK(contains(r.output, "make grade-class: the Gradescope export " + (dir / "export.zip").string() + ": 4 students, 1 file, into "));
  CHECK(contains(r.output, "not on the roster, each given a row all the same: 7, 8, jose@example.edu"));
  auto rows = gradebook(dir);
  CHECK(rows.size() == 5);
  CHECK(rows["222334"]["name"] == "Ada Lovelace");  // the roster has none: the export's
  CHECK(rows["222334"]["status"] == "graded");
  CHECK(rows["222334"][lab] == "6");
  CHECK(rows["222334"][lab + " submitted"] == "2026-12-03 22:59:00 UTC");
  CHECK(rows["222334"][lab + " days late"] == "2");
  CHECK(rows["222334"][lab + " adjusted"] == "4.8");
  CHECK(rows["7"]["name"] == "Grace\\x0AHopper");
  CHECK(rows["7"]["status"] == "empty: nothing handed in");
  CHECK(contains(rows["7"]["notes"], "a group submission, with Jos"));
  CHECK(rows["missing_mo"]["status"] == "missing: nothing handed in");
  // A rerun imports the export again, the same: Ada is kept.
  r = grade_download(dir, dir / "export.zip");
  REQUIRE(r.exited(0));
  CHECK(contains(r.output, "222334: graded 6/6 (unchanged since the last run: kept)"));

  // Canvas: Ada's solution marked LATE, with no time: no penalty here, and the gradebook says why.
  dir = scratch("grade-canvas");
  put(dir / "roster.csv", "id,name,canvas_id\ns1001,\"Lovelace, Ada\",340934\ns1002,Babbage,340935\n");
  put(dir / "canvas.zip", make_zip({{"lovelaceada_late_340934_1001_matmul_naive.cu", solution}, {"stray.txt", "?"}}));
  r = grade_download(dir, dir / "canvas.zip");
  CAPTURE(r.output);
  REQUIRE(r.exited(0));
  CHECK(contains(r.output, "make grade-class: the Canvas download " + (dir / "canvas.zip").string() +
                               ": 1 student, 1 file, 1 marked late (Canvas gives no times)"));
  CHECK(contains(r.output, "  stray.txt: left out, not named as Canvas names a student's file"));
  rows = gradebook(dir);
  CHECK(rows["s1001"]["status"] == "graded");
  CHECK(rows["s1001"][lab + " submitted"] == "");
  CHECK(rows["s1001"][lab + " adjusted"] == "6");
  CHECK(contains(rows["s1001"]["notes"], "Canvas marks the submission late; its download holds no time, so no late penalty is applied here"));
  CHECK(rows["s1002"]["status"] == "missing: nothing handed in");
  // Canvas's import file carries Canvas's user id, which it matches students by.
  CHECK(contains(read_file((dir / "out" / "canvas.csv").string()), "\"Lovelace, Ada\",340934,s1001,,,6\r\n"));

  // A download that cannot be read stops the run before anything is graded (exit 2).
  put(dir / "canvas.zip", "not a zip");
  r = grade_download(dir, dir / "canvas.zip");
  CHECK(r.exited(2));
  CHECK(contains(r.output, "make grade-class: the download " + (dir / "canvas.zip").string() + " cannot be opened as a zip"));
}
#endif

}  // TEST_SUITE
