// The structure drawing's check (scripts/include-graph): the workbook's modules include no cycle
// and nothing up the layers; and the check sees a cycle and an upward include where a tree has one.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "tests/scripts/script_tree.h"
#include "tools/subprocess.h"
#include "tools/text.h"

namespace fs = std::filesystem;

TEST_SUITE("include graph") {

TEST_CASE("the workbook: no cycle among its modules, no include up the layers") {
  const tools::RunResult r = tools::run_command({"scripts/include-graph", "--check"});
  CAPTURE(r.output);
  CHECK(r.exited(0));
  CHECK(tools::contains(r.output, "no cycle, no upward include"));
}

TEST_CASE("a cycle and an upward include are named, and fail the check") {
  const std::string root = script_test::tree_with("scripts/include-graph", {
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
