// The check of issue 38's sizes (scripts/size-limits: no production source over 600 lines, no
// function over 60 unless the comment right above it says "long because"): the workbook passes
// it; a tree with a file and functions over the limits fails it by file and line, where a long
// function with its reason and what is no production source pass; without universal-ctags it
// fails rather than pass unchecked.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "tools/subprocess.h"
#include "tools/text.h"
#include "tests/scripts/script_tree.h"

namespace fs = std::filesystem;

namespace {

// N lines, each LINE (which ends in a newline).
std::string lines(int n, const std::string& line) {
  std::string text;
  for (int i = 0; i < n; ++i) text += line;
  return text;
}

}  // namespace

TEST_SUITE("size limits") {

TEST_CASE("the workbook: no production source over 600 lines, no function over 60 without its reason") {
  const tools::RunResult r = tools::run_command({"scripts/size-limits"});
  CHECK_MESSAGE(r.exited(0), "scripts/size-limits (" << r.describe() << "):\n" << r.output);
  CHECK(tools::contains(r.output, "within the limits"));
}

TEST_CASE("a file over 600 lines and a function over 60 are named by file and line; a long function with its reason is not") {
  const std::string body = "  x += 1;\n";
  const std::string root = script_test::tree_with("scripts/size-limits", {
      {"common/planted.h", "#pragma once\n" + lines(600, "// a line\n")},  // 601 lines
      {"common/six_hundred.h", "#pragma once\n" + lines(599, "// a line\n")},
      {"grading/core/planted.cpp",
       "// Functions around the limit.\n"
       "int sixty_lines(int x) {\n" + lines(57, body) + "  return x;\n}\n"  // lines 2-61
       "\n"
       "int sixty_one_lines(int x) {\n" + lines(58, body) + "  return x;\n}\n"  // lines 63-123: line 63 named
       "\n"
       "// Its steps share one state. Long because helpers would each be handed all of it.\n"
       "template <class T>\n"
       "T explained(T x) {\n" + lines(70, body) + "  return x;\n}\n"  // lines 127-199
       "\n"
       "// A comment that says nothing of its length.\n"
       "int unexplained(int x) {\n"  // lines 202-267, named
       "  auto add = [&](int y) {\n" + lines(60, "    y += x;\n") + "    return y;\n  };\n"
       "  return add(x);\n}\n"},
      {"scripts/planted", "#!/usr/bin/env python3\ndef long_python(x):\n" + lines(59, "    x += 1\n") + "    return x\n"},
      {"mk/planted.mk", lines(601, "# a line\n")},
      // Checked for its length only: a lab file may hold a long kernel.
      {"solutions/01_planted/planted.cu", "void long_kernel() {\n" + lines(98, "  ;\n") + "}\n"},
      {"solutions/02_planted/planted.cu", lines(601, "// a line\n")},
      // No production source.
      {"tests/planted/test_planted.cpp", lines(700, "// a line\n")},
      {"labs/01_planted/planted.cu", lines(700, "// a line\n")},
      {"docs/results/planted.cu", lines(700, "// a line\n")},
      {"build/host/planted.cpp", lines(700, "// a line\n")},
  });
  const tools::RunResult r = tools::run_command({root + "/scripts/size-limits"});
  CAPTURE(r.output);
  CHECK(r.exited(1));
  CHECK(tools::contains(r.output, "common/planted.h:601: 601 lines, over 600"));
  CHECK(tools::contains(r.output, "grading/core/planted.cpp:63: sixty_one_lines is 61 lines (63-123), over 60"));
  CHECK(tools::contains(r.output, "grading/core/planted.cpp:202: unexplained is 66 lines (202-267), over 60"));
  CHECK(tools::contains(r.output, "scripts/planted:2: long_python is 61 lines (2-62), over 60"));
  CHECK(tools::contains(r.output, "mk/planted.mk:601: 601 lines, over 600"));
  CHECK(tools::contains(r.output, "solutions/02_planted/planted.cu:601: 601 lines, over 600"));
  CHECK(tools::contains(r.output, "6 over the limits"));
  CHECK(tools::contains(r.output, "(1 long with a reason)"));
  for (const char* fine : {"six_hundred", "sixty_lines ", "planted.cpp:2:", "planted.cpp:127:", "__anon", "long_kernel", "tests/", "labs/", "docs/",
                           "build/"})
    CHECK_MESSAGE(!tools::contains(r.output, fine), fine);
  fs::remove_all(root);
}

TEST_CASE("without universal-ctags (no ctags, or another one) the check fails, saying what installs it") {
  for (const std::string ctags : {"/nonexistent/ctags", "true"}) {
    tools::RunOptions options;
    options.env = {"CTAGS=" + ctags};
    const tools::RunResult r = tools::run_command({"scripts/size-limits"}, options);
    CAPTURE(ctags);
    CAPTURE(r.output);
    CHECK(r.exited(2));
    CHECK(tools::contains(r.output, "'" + ctags + "' is not universal-ctags, or not there: scripts/install-deps ctags"));
  }
}

}  // TEST_SUITE
