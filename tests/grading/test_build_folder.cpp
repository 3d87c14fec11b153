// The build folder the grader keeps between runs (grading/core/build_folder.h): kept while the
// grader and makefiles stay the same, emptied when they change, and never a folder of other
// files.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "grading/core/build_folder.h"
#include "tools/text.h"

namespace {

namespace fs = std::filesystem;

}  // namespace

TEST_SUITE("grading") {

TEST_CASE("the build folder is kept while its stamp holds, emptied when it changes, and never one of other files") {
  const std::string folder = fs::temp_directory_path() / ("build-folder-" + std::to_string(getpid()));
  fs::remove_all(folder);
  std::string error;
  REQUIRE_MESSAGE(grade::prepare_build_folder(folder, "grader 1", &error), error);
  std::ofstream(folder + "/built.o") << "object";
  CHECK(grade::prepare_build_folder(folder, "grader 1", &error));
  CHECK(fs::exists(folder + "/built.o"));
  { const grade::BuildLock lock(folder); }
  CHECK(grade::prepare_build_folder(folder, "grader 2", &error));
  CHECK_FALSE(fs::exists(folder + "/built.o"));

  // A folder of someone's files, named by --build-dir: refused, every file kept.
  const std::string other = folder + "-other";
  fs::create_directories(other);
  std::ofstream(other + "/thesis.tex") << "years of work";
  CHECK_FALSE(grade::prepare_build_folder(other, "grader 1", &error));
  CHECK(tools::contains(error, "it is not a folder the grader made"));
  CHECK(fs::exists(other + "/thesis.tex"));
  fs::remove_all(folder);
  fs::remove_all(other);
}

}  // TEST_SUITE
