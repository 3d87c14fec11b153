// The Makefile a student reads: `make help` lists every target from the comment above its rule,
// a parse starts no process but the one question to the GPU's driver, and a checkout without
// its optional folders (a student's copy has no solutions/ and no tests/corpus) still builds.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/lab_programs.h"
#include "tools/subprocess.h"
#include "tools/text.h"

namespace {

namespace fs = std::filesystem;

const char* const kMakefiles[] = {"Makefile", "mk/config.mk", "mk/labs.mk", "mk/variants.mk", "mk/maintainer.mk", "mk/course.mk",
                                  "mk/tests.mk", "cpusim/cpusim.mk"};

using lab_test::contains;
using lab_test::read_file;

// The targets the makefile at PATH declares .PHONY.
std::vector<std::string> phony_targets(const std::string& path) {
  std::vector<std::string> names;
  std::istringstream lines(read_file(path));
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(".PHONY:", 0) != 0) continue;
    std::istringstream words(line.substr(7));
    for (std::string w; words >> w;) names.push_back(w);
  }
  return names;
}

}  // namespace

TEST_CASE("make help-all lists every target, each with the comment above its rule; make help the students' on one screen") {
  const tools::RunResult all = tools::run_command({"make", "-s", "--no-print-directory", "help-all"});
  REQUIRE(all.exited(0));
  size_t count = 0;
  for (const char* makefile : kMakefiles) {
    for (const std::string& target : phony_targets(makefile)) {
      CAPTURE(makefile);
      CAPTURE(target);
      CHECK(std::regex_search(all.output, std::regex("\n  make " + target + " +[a-z]")));
      ++count;
    }
  }
  CHECK(count >= 20);
  // make help: the top-level Makefile's targets alone, what a student uses, on one screen; the
  // instructors' and maintainers' in help-all only.
  const tools::RunResult help = tools::run_command({"make", "-s", "--no-print-directory", "help"});
  REQUIRE(help.exited(0));
  CAPTURE(help.output);
  CHECK(tools::count_of(help.output, "\n") <= 24);
  for (const char* target : {"run", "debug", "profile", "check", "grade", "status", "test", "doctor", "help-all"}) {
    CHECK(contains(help.output, "  make " + std::string(target) + " "));
  }
  for (const char* target : {"grade-class", "release", "bench", "gradescope", "skeletons", "From mk/"}) {
    CHECK_FALSE(contains(help.output, "make " + std::string(target) + " "));
    CHECK_FALSE(contains(help.output, target + std::string(":")));
  }
}

TEST_CASE("make help and make help-all write nothing: a copy without build/ has none after them") {
  namespace fs = std::filesystem;
  const fs::path copy = fs::absolute("build/test/help-copy");
  fs::remove_all(copy);
  fs::create_directories(copy);
  REQUIRE(lab_test::copy_checkout(copy.string()));
  for (const char* goal : {"help", "help-all"}) {
    tools::RunOptions options;
    options.cwd = copy.string();
    CHECK(tools::run_command({"make", "-s", "--no-print-directory", goal}, options).exited(0));
  }
  CHECK_FALSE(fs::exists(copy / "build"));
  fs::remove_all(copy);
}

TEST_CASE("a parse of the Makefile starts no process but one question to the driver") {
  // Every $(shell ...) is a process each time make reads the Makefile (each make run, each
  // recursive make): only nvidia-smi's, for the backend and the architecture, is worth it.
  size_t shells = 0;
  for (const char* makefile : kMakefiles) {
    std::istringstream lines(read_file(makefile));
    for (std::string line; std::getline(lines, line);) {
      if (line.find("$(shell") == std::string::npos || line.find('#') < line.find("$(shell")) continue;
      CAPTURE(makefile);
      CAPTURE(line);
      CHECK(line.find("nvidia-smi") != std::string::npos);
      ++shells;
    }
  }
  CHECK(shells == 1);
}

TEST_CASE("make clean removes the builds and keeps what grading wrote: gradebooks, reports, make status's history") {
  const std::string build = fs::temp_directory_path() / ("clean-build-" + std::to_string(getpid()));
  fs::remove_all(build);
  for (const char* folder : {"class", "grade", "check", "progress", "cpu/bin", "host", "grade-build/cpu"}) {
    fs::create_directories(build + "/" + folder);
    std::ofstream(build + "/" + folder + "/file") << "x\n";
  }
  std::ofstream(build + "/stamp") << "x\n";
  tools::RunOptions options;
  options.env = {"MAKEFLAGS=", "MAKELEVEL="};
  const tools::RunResult r = tools::run_command({"make", "-s", "clean", "BUILD=" + build}, options);
  CAPTURE(r.output);
  CHECK(r.exited(0));
  for (const std::string kept : {"class/file", "grade/file", "check/file", "progress/file"}) CHECK_MESSAGE(fs::exists(build + "/" + kept), kept);
  for (const std::string gone : {"cpu", "host", "grade-build", "stamp"}) CHECK_MESSAGE(!fs::exists(build + "/" + gone), gone);
  // And with nothing built yet.
  fs::remove_all(build);
  CHECK(tools::run_command({"make", "-s", "clean", "BUILD=" + build}, options).exited(0));
}

TEST_CASE("a checkout without solutions/ or tests/corpus builds, tests' targets aside") {
  const std::string copy = fs::temp_directory_path() / ("makefile-copy-" + std::to_string(getpid()));
  fs::remove_all(copy);
  fs::create_directories(copy);
  REQUIRE(lab_test::copy_checkout(copy));
  fs::remove_all(copy + "/solutions");
  fs::remove_all(copy + "/tests/corpus");
  tools::RunOptions options;
  options.cwd = copy;
  for (const std::vector<std::string>& argv : std::vector<std::vector<std::string>>{
           {"make", "-s", "help"}, {"make", "-n", "all", "BACKEND=cpu"}, {"make", "-n", "grade", "BACKEND=cpu"},
           {"make", "-s", "check-skeletons"}, {"make", "-n", "run", "LAB=01", "BACKEND=cpu"}}) {
    const tools::RunResult r = tools::run_command(argv, options);
    CAPTURE(argv.back());
    CAPTURE(r.output);
    CHECK(r.exited(0));
  }
  fs::remove_all(copy);
}

TEST_CASE("make profile shows each kernel's memory traffic on the CPU backend, and asks for a lab" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  tools::RunOptions options;
  options.env = {"MAKEFLAGS=", "MAKELEVEL="};  // a make of its own, not a job of the tests' make
  options.timeout_s = 600;
  const tools::RunResult r = tools::run_command({"make", "-s", "--no-print-directory", "profile", "LAB=02", "SRC=solutions",
                                                 "BACKEND=cpu", "ARGS=--m 64 --n 64 --k 32"},
                                            options);
  CAPTURE(r.output);
  CHECK(r.exited(0));
  CHECK(lab_test::contains(r.output, "matmul_tiled_kernel<kTile>: 1 launch, grid 2,2,1 x block 32,32,1"));
  // The tile's loads are broadcasts along a row and consecutive banks along a column.
  const std::regex conflicts(R"(\n  bank conflicts +none +none\n)");
  CHECK(std::regex_search(r.output, conflicts));
  // Each element of A and B loaded once per block that needs it: 32 KB for 64·64·32 FMAs.
  CHECK(lab_test::contains(r.output, "global bytes loaded per multiply-add   0.25"));
  CHECK(lab_test::contains(r.output, "findings:"));
  const tools::RunResult no_lab = tools::run_command({"make", "-s", "--no-print-directory", "profile"}, options);
  CHECK(no_lab.exited(2));
  CHECK(lab_test::contains(no_lab.output, "make profile: say which lab, e.g. make profile LAB=02"));
}
