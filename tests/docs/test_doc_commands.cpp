// Every command the READMEs show a reader, run as the reader would type it, in a copy of the
// checkout: the lines of ```sh blocks, and the `$ ` lines of ```console blocks (a command and
// what it printed), at the margin or indented in a list item. A command that cannot run fails
// the test, whatever its doc says around it.
//
// What counts as working: exit status 0. A command that builds the student's own labs/ (no
// SRC=, no VARIANT=) may also end in the lab program's or the grader's verdict "wrong" (exit 1,
// which make reports as "Error 1"): a fresh checkout's labs are unsolved skeletons. So may any
// make grade or make check: below full marks they exit 1 once the reports are written. A compile
// error, a missing target, a missing file or a program that could not run (exit 2) never
// counts. `make test` is not run: it is the command running this test. The commands run with
// RUBRIC=tests/fixtures/rubric-fast.txt in their environment, the rubric a command that names
// none then grades with: the same checks on fewer shapes (what every shape of grading/rubric.txt
// gives the solutions is test_grade's to check; here it cost 4 minutes of CPU).
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "tests/docs/doc_commands.h"
#include "tests/lab_programs.h"
#include "tools/subprocess.h"
#include "tools/text.h"

namespace {

namespace fs = std::filesystem;
using doc_test::DocCommand;
using doc_test::doc_commands;

// Whether a verdict "wrong" (exit 1) is a working end for LINE: it builds the student's labs,
// or grades (SRC= a wrong submission, as the instructor's guide shows).
bool may_end_wrong(const std::string& line) {
  const bool builds_student_labs =
      line.find("make ") != std::string::npos && !tools::contains(line, "SRC=") && !tools::contains(line, "VARIANT=");
  static const std::regex grades(R"(\bmake (grade|check)( |$))");
  return builds_student_labs || std::regex_search(line, grades);
}

// make's last word on a failed recipe: "Error 1" when the program it ran exited 1.
bool ends_in_a_verdict(const std::string& output) {
  static const std::regex last_error(R"(make: \*\*\* \[[^\]]*\] Error ([0-9]+)\s*$)");
  std::smatch m;
  return std::regex_search(output, m, last_error) && m[1] == "1";
}

bool needs_nvcc(const std::string& line) { return line.rfind("nvcc ", 0) == 0; }

bool have_nvcc() { return tools::run_command({"sh", "-c", "command -v nvcc"}).exited(0); }

// Runs the commands that PICK selects in a copy of the checkout (its files, and its builds so
// that nothing is built twice), one after another as a reader would, and checks each.
template <class Pick>
void run_doc_commands(Pick pick) {
  std::vector<std::string> untagged;
  const std::vector<DocCommand> all = doc_commands(&untagged);
  const std::string copy = fs::temp_directory_path() / ("doc-commands-" + std::to_string(getpid()));
  fs::remove_all(copy);
  fs::create_directories(copy + "/build");
  REQUIRE(lab_test::copy_checkout(copy));
  for (const char* made : {"host", "cpusim", "cpu", "skeletons", "lists.mk"}) {
    if (fs::exists(std::string("build/") + made)) {
      REQUIRE(tools::run_command({"cp", "-a", std::string("build/") + made, copy + "/build/"}).exited(0));
    }
  }
  lab_test::reuse_builds(copy);  // and the grader's, warm (make grade there builds only a student's file)
  tools::RunOptions options;
  options.cwd = copy;
  options.env = {"MAKEFLAGS=", "MAKELEVEL=",  // a reader's make, not a job of the tests' make
                 "RUBRIC=tests/fixtures/rubric-fast.txt"};
  options.timeout_s = 900;
  std::set<std::string> done;
  int ran = 0;
  for (const DocCommand& c : all) {
    const std::string command = tools::trim(c.line.substr(0, c.line.find(" #")));
    if (!pick(command) || command == "make test" || !done.insert(command).second) continue;
    ++ran;
    const tools::RunResult r = tools::run_command({"sh", "-c", command}, options);
    const bool works = r.exited(0) || (may_end_wrong(command) && ends_in_a_verdict(r.output));
    INFO(c.where, ": ", command, "\n", r.output.size() > 3000 ? r.output.substr(r.output.size() - 3000) : r.output);
    CHECK_MESSAGE(works, c.where, ": `", command, "` does not work");
    MESSAGE(c.where, ": `", command, "` ", r.seconds, " s");  // where the test's time goes
  }
  MESSAGE(ran, " commands of the documents ran");
  CHECK(ran > 0);
  fs::remove_all(copy);
}

}  // namespace

TEST_SUITE("docs") {

TEST_CASE("every block of commands in the documents is tagged, so that this test sees it") {
  std::vector<std::string> untagged;
  const std::vector<DocCommand> commands = doc_commands(&untagged);
  CHECK_MESSAGE(untagged.empty(), "blocks showing commands without an sh or console tag:\n", tools::joined(untagged));
  CHECK(commands.size() > 40);
}

TEST_CASE("the documents' commands work in a copy of the checkout" * doctest::skip(lab_test::kNoCpuSolutions)) {
  run_doc_commands([](const std::string& command) { return !needs_nvcc(command); });
}

TEST_CASE("the documents' nvcc commands compile" * doctest::skip(!have_nvcc())) {
  run_doc_commands(needs_nvcc);
}

}  // TEST_SUITE
