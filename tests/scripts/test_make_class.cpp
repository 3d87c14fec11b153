// scripts/make-class: a synthetic class for trying and timing make grade-class. Each student's
// lab file is the solution, the skeleton or one of that lab's corpus entries; every tenth hands
// in a .tar.gz; the same seed makes the same class; a folder that is not empty, or a count that
// is not one, is refused.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "tests/lab_programs.h"
#include "tools/subprocess.h"

namespace {

namespace fs = std::filesystem;
using lab_test::read_file;

const std::string kLabs[] = {"01_matmul_naive/matmul_naive.cu", "02_matmul_tiled/matmul_tiled.cu",
                             "03_matmul_register/matmul_register.cu", "04_transpose/transpose.cu",
                             "05_dot_reduction/dot_reduction.cu"};

// Every file of a class folder, by its path in it, and its bytes.
std::map<std::string, std::string> files_of(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) files[fs::relative(e.path(), dir).string()] = read_file(e.path().string());
  }
  return files;
}

}  // namespace

TEST_CASE("make-class: solutions, skeletons and wrong submissions, folders and archives, the same for the same seed" *
          doctest::skip(lab_test::kNoSolutions)) {
  const std::string root = "build/test/make-class-" + std::to_string(getpid());
  fs::remove_all(root);
  tools::RunResult r = tools::run_command({"scripts/make-class", "12", root + "/a", "7"});
  REQUIRE_MESSAGE(r.exited(0), r.output);
  std::set<std::string> entries;
  for (const auto& e : fs::directory_iterator(root + "/a")) entries.insert(e.path().filename().string());
  CHECK(entries.size() == 12);
  CHECK(entries.count("s001") == 1);
  CHECK(entries.count("s010.tar.gz") == 1);
  CHECK(entries.count("s012") == 1);
  // Each lab file of each folder: the solution, the skeleton, or a wrong submission (none of those two).
  std::map<std::string, int> kinds;
  for (const std::string& e : entries) {
    if (e == "s010.tar.gz") continue;
    for (const std::string& lab : kLabs) {
      const std::string text = read_file(root + "/a/" + e + "/" + lab);
      REQUIRE_MESSAGE(!text.empty(), e << "/" << lab);
      ++kinds[text == read_file("solutions/" + lab) ? "solution" : text == read_file("labs/" + lab) ? "skeleton" : "corpus"];
    }
  }
  CHECK(kinds["solution"] > 0);
  CHECK(kinds["skeleton"] > 0);
  CHECK(kinds["corpus"] > 0);
  // The archive holds a labs/ folder with the five files.
  fs::create_directories(root + "/x");
  r = tools::run_command({"tar", "-xzf", root + "/a/s010.tar.gz", "-C", root + "/x"});
  REQUIRE(r.exited(0));
  for (const std::string& lab : kLabs) CHECK(fs::is_regular_file(root + "/x/labs/" + lab));
  // The same count and seed: the same class, byte for byte (the archive's lab files too).
  r = tools::run_command({"scripts/make-class", "12", root + "/b", "7"});
  REQUIRE(r.exited(0));
  fs::remove(root + "/a/s010.tar.gz");
  fs::remove(root + "/b/s010.tar.gz");
  CHECK(files_of(root + "/a") == files_of(root + "/b"));
  // Refused: a folder that holds something, a count that is not a number, no folder.
  CHECK(tools::run_command({"scripts/make-class", "3", root + "/a"}).exited(2));
  CHECK(tools::run_command({"scripts/make-class", "0", root + "/c"}).exited(2));
  CHECK(tools::run_command({"scripts/make-class", "three", root + "/c"}).exited(2));
  CHECK(tools::run_command({"scripts/make-class", "3"}).exited(2));
  fs::remove_all(root);
}
