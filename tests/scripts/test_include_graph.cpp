// The structure drawing's check (scripts/include-graph): the workbook's modules include no cycle
// and nothing up the layers; and the check sees a cycle and an upward include where a tree has one.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tools/subprocess.h"
#include "tools/text.h"

namespace {

namespace fs = std::filesystem;

// A tree of its own, with the script and the files named, each holding its includes.
std::string tree_with(const std::vector<std::pair<std::string, std::string>>& files) {
  const fs::path root = fs::temp_directory_path() / ("include-graph-" + std::to_string(getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "scripts");
  fs::copy_file("scripts/include-graph", root / "scripts/include-graph");
  for (const auto& [path, text] : files) {
    fs::create_directories((root / path).parent_path());
    std::ofstream(root / path) << text;
  }
  return root.string();
}

}  // namespace

TEST_SUITE("include graph") {

TEST_CASE("the workbook: no cycle among its modules, no include up the layers") {
  const tools::RunResult r = tools::run_command({"scripts/include-graph", "--check"});
  CAPTURE(r.output);
  CHECK(r.exited(0));
  CHECK(tools::contains(r.output, "no cycle, no upward include"));
}

TEST_CASE("a cycle and an upward include are named, and fail the check") {
  const std::string root = tree_with({
      {"grading/core/a.h", "#include \"grading/core/b.h\"\n"},
      {"grading/core/b.h", "#include \"grading/core/a.h\"\n"},
      {"grading/core/c.cpp", "#include \"grading/course/d.h\"\n"},
      {"grading/course/d.h", "\n"},
  });
  const tools::RunResult r = tools::run_command({root + "/scripts/include-graph", "--check"});
  CAPTURE(r.output);
  CHECK(r.exited(1));
  CHECK(tools::contains(r.output, "cycle: grading/core/a <-> grading/core/b"));
  CHECK(tools::contains(r.output, "upward include: grading/core/c includes grading/course/d"));
  fs::remove_all(root);
}

TEST_CASE("the drawing: a box per folder and an edge per include") {
  const tools::RunResult r = tools::run_command({"scripts/include-graph", "--dot"});
  CHECK(r.exited(0));
  CHECK(tools::contains(r.output, "digraph workbook"));
  CHECK(tools::contains(r.output, "label=\"grading/core\""));
  CHECK(tools::contains(r.output, "\"grading/core/grade\" -> \"grading/core/checks\";"));
}

}  // TEST_SUITE
