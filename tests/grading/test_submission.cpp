// What a student's build read (grading/core/submission.h, foreign_include): the student's own file, as
// copied, and the headers under the allowed roots pass; anything else is named.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "grading/core/submission.h"
#include "tools/subprocess.h"

namespace {

namespace fs = std::filesystem;

const std::string kDir = "build/test/submission";

std::string write(const std::string& name, const std::string& text) {
  fs::create_directories(kDir);
  std::ofstream(kDir + "/" + name) << text;
  return kDir + "/" + name;
}

}  // namespace

TEST_SUITE("grading") {

TEST_CASE("a build that read the student's copies and allowed headers read nothing foreign") {
  const std::string copy = write("private.cu", "__global__ void k() {}\n");
  const std::string compiled = write("compiled.cu", "#line 1 \"" + copy + "\"\n__global__ void k() {}\n");
  const std::string header = write("allowed.h", "\n");
  const std::string root = fs::canonical(kDir).string();
  const std::string deps = write("ok.d", "x.o: " + compiled + " \\\n  " + copy + " \\\n  " + header + "\n");
  CHECK(grade::foreign_include(deps, {compiled, copy}, {}) == fs::canonical(header).string());
  CHECK(grade::foreign_include(deps, {compiled, copy}, {root}) == "");
  const std::string other = write("solution.cu", "\n");
  const std::string foreign = write("foreign.d", "x.o: " + compiled + " " + other + "\n");
  CHECK(grade::foreign_include(foreign, {compiled, copy}, {"/usr/include"}) == fs::canonical(other).string());
  CHECK(grade::foreign_include(kDir + "/missing.d", {compiled}, {}) == kDir + "/missing.d");
}

TEST_CASE("nvcc lists the file a #line names among what it read, and that file is the student's" *
          doctest::skip(!tools::run_command({"sh", "-c", "command -v nvcc"}).exited(0))) {
  // make compiles a copy of the private copy whose #line names the private copy (mk/labs.mk);
  // nvcc's dependency file lists both (g++'s only the first), and neither is foreign.
  const std::string copy = fs::absolute(write("named.cu", "__global__ void k() {}\n")).string();
  const std::string compiled = write("lined.cu", "#line 1 \"" + copy + "\"\n__global__ void k() {}\n");
  const tools::RunResult r = tools::run_command({"nvcc", "-c", compiled, "-o", kDir + "/lined.o", "-MD"});
  REQUIRE_MESSAGE(r.exited(0), r.output);
  std::ifstream in(kDir + "/lined.d");
  const std::string deps((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(deps.find(copy) != std::string::npos);
  const std::string found = grade::foreign_include(kDir + "/lined.d", {compiled, copy}, grade::system_include_roots());
  CHECK_MESSAGE(found.empty(), found);
}

}  // TEST_SUITE
