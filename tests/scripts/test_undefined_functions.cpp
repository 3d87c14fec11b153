// The check that every function the workbook's headers declare is defined by something built
// (scripts/undefined-functions: universal-ctags's prototypes against nm of build/): the
// workbook passes it, a tree with a declaration nothing defines fails it by file and line, and
// without universal-ctags it fails rather than pass unchecked.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "tests/scripts/script_tree.h"
#include "tools/subprocess.h"
#include "tools/text.h"

namespace fs = std::filesystem;

TEST_SUITE("undefined functions") {

TEST_CASE("the workbook: every function its headers declare, something built defines") {
  const tools::RunResult r = tools::run_command({"scripts/undefined-functions"});
  CHECK_MESSAGE(r.exited(0), "scripts/undefined-functions (" << r.describe() << "):\n" << r.output);
  CHECK(tools::contains(r.output, "none declared and undefined"));
}

TEST_CASE("a declaration nothing defines is named by file and line; the rest of a header is not") {
  const std::string root = script_test::tree_with("scripts/undefined-functions", {
      {"common/planted.h",
       "#pragma once\n"
       "namespace lab {\n"
       "void never_defined_function();\n"
       "int defined_function(int a, int b);\n"
       "int defined_function(int a);\n"  // an overload nothing defines
       "inline int inline_function();\n"
       "constexpr int constexpr_function(int n);\n"
       "template <class T> T template_function(T t);\n"
       "template <class T> struct Box { T get() const; };\n"
       "struct Planted {\n"
       "  Planted() = default;\n"
       "  Planted(const Planted&) = delete;\n"
       "  virtual void pure_function() = 0;\n"
       "  void member_function();\n"
       "};\n"
       "int defined_in_header();\n"
       "inline int defined_in_header() { return 1; }\n"
       "}  // namespace lab\n"},
      {"common/planted.cpp",
       "#include \"common/planted.h\"\n"
       "namespace lab {\n"
       "int defined_function(int a, int b) { return a + b; }\n"
       "}  // namespace lab\n"},
      // The allowance: a student's file defines the launchers.
      {"harness/launchers.h", "void planted_launcher(const float* in, float* out, int n);\n"},
      // A source this build compiles into no object (a GPU's, without one): its text counts.
      {"harness/gpu_only.h", "void gpu_only_function();\n"},
      {"harness/gpu_only.cpp", "#include \"harness/gpu_only.h\"\nvoid gpu_only_function() {}\n"},
      // Not the workbook's code.
      {"tests/helper.h", "void test_helper_declared();\n"},
  });
  fs::create_directories(root + "/build/host/common");
  const tools::RunResult cc = tools::run_command(
      {"g++", "-std=c++17", "-I" + root, "-c", root + "/common/planted.cpp", "-o", root + "/build/host/common/planted.o"});
  REQUIRE_MESSAGE(cc.exited(0), cc.output);

  const tools::RunResult r = tools::run_command({root + "/scripts/undefined-functions"});
  CAPTURE(r.output);
  CHECK(r.exited(1));
  CHECK(tools::contains(r.output, "common/planted.h:3: lab::never_defined_function() is declared, and no object defines it"));
  CHECK(tools::contains(r.output, "common/planted.h:5: lab::defined_function(int a) is declared"));
  CHECK(tools::contains(r.output, "common/planted.h:14: lab::Planted::member_function() is declared"));
  CHECK(tools::contains(r.output, "3 declared and undefined"));
  for (const char* fine : {"(int a,int b)", "inline_function", "constexpr_function", "template_function", "Box",
                           "Planted()", "Planted::Planted", "pure_function", "defined_in_header", "planted_launcher",
                           "test_helper_declared"})
    CHECK_MESSAGE(!tools::contains(r.output, fine), fine);
  CHECK(tools::contains(r.output, "note: harness/gpu_only.cpp, of which build/ holds no current object, defines by its "
                                 "text: gpu_only_function"));
  fs::remove_all(root);
}

TEST_CASE("without universal-ctags the check fails, saying what installs it") {
  tools::RunOptions options;
  options.env = {"CTAGS=/nonexistent/ctags"};
  const tools::RunResult r = tools::run_command({"scripts/undefined-functions"}, options);
  CAPTURE(r.output);
  CHECK(r.exited(2));
  CHECK(tools::contains(r.output, "scripts/install-deps ctags"));
}

}  // TEST_SUITE
