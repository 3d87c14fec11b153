// make debug on the CPU backend: gdb (Debian's, which scripts/install-deps gdb installs) driven in
// batch mode through GDB_COMMANDS, on lab 02's solution stopped at block (1,0) thread (3,2) where
// it has loaded its element of the tiles and waits at the first barrier: its row and column, the
// shared tile element it wrote (equal to the element of A it loaded), then `next` over the barrier
// (the block's other threads run to it meanwhile), the element another thread wrote, equal to A's
// too, and on to the result. And the settings make debug refuses, each with a clear message.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/lab_programs.h"
#include "tools/subprocess.h"

namespace {

namespace fs = std::filesystem;
using lab_test::contains;
using lab_test::read_file;

const bool kNoGdb = !tools::run_command({"sh", "-c", "command -v gdb"}).exited(0);

tools::RunResult make(const std::vector<std::string>& settings) {
  std::vector<std::string> argv = {"make", "--no-print-directory", "-s", "debug"};
  argv.insert(argv.end(), settings.begin(), settings.end());
  tools::RunOptions options;
  options.timeout_s = 300;
  return tools::run_command(argv, options);
}

// The line of FILE that holds TEXT (1 for the first), or 0.
int line_of(const std::string& file, const std::string& text) {
  std::istringstream lines(read_file(file));
  int n = 0;
  for (std::string line; std::getline(lines, line);) {
    ++n;
    if (contains(line, text)) return n;
  }
  return 0;
}

// gdb's value history in OUTPUT: "$3 = 0.25" as {3: "0.25"}.
std::map<int, std::string> values(const std::string& output) {
  std::map<int, std::string> v;
  const std::regex value(R"(^\$(\d+) = (.*)$)");
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_match(line, m, value)) v[std::stoi(m[1])] = m[2];
  }
  return v;
}

}  // namespace

TEST_SUITE("debug") {

TEST_CASE("make debug stops lab 02's kernel at one thread, prints its tile, steps over a barrier and runs on" *
          doctest::skip(lab_test::kNoCpuSolutions || kNoGdb)) {
  const std::string file = "solutions/02_matmul_tiled/matmul_tiled.cu";
  const int barrier = line_of(file, "__syncthreads();  // no thread reads a tile element");
  REQUIRE(barrier > 0);
  const fs::path commands = fs::absolute("build/test/debug/commands.gdb");
  fs::create_directories(commands.parent_path());
  std::ofstream(commands) << "print row\nprint col\nprint a_tile[2][3]\nprint A[row * K + k0 + 3]\n"
                             "next\nprint a_tile[2][0]\nprint A[row * K + k0 + 0]\ndelete\ncontinue\n";
  const tools::RunResult r = make({"LAB=02", "SRC=solutions", "BLOCK=1,0", "THREAD=3,2", "LINE=" + std::to_string(barrier),
                                   "GDB_COMMANDS=" + commands.string(), "ARGS=--m 96 --n 80 --k 72"});
  CAPTURE(r.output);
  REQUIRE(r.exited(0));
  CHECK(contains(r.output, "make debug: stopping thread (3,2,0) of block (1,0,0) at matmul_tiled.cu:" + std::to_string(barrier)));
  CHECK(contains(r.output, "hit Breakpoint 1, matmul_tiled_kernel"));
  const std::map<int, std::string> v = values(r.output);
  REQUIRE(v.size() == 6);
  CHECK(v.at(1) == "2");           // row: tile row 0, y = 2
  CHECK(v.at(2) == "35");          // col: block 1 of 32 columns, x = 3
  CHECK(v.at(3) == v.at(4));       // its own element of the tile, as it loaded it from A
  CHECK(v.at(3) != "nan(0x400000)");
  // next: over the barrier, back in the same thread at the loop that reads the tiles.
  const int reads = line_of(file, "for (int k = 0; k < TILE; ++k) acc = fmaf(");
  CHECK(std::regex_search(r.output, std::regex("\\n" + std::to_string(reads) + "\\s+for \\(int k = 0; k < TILE")));
  CHECK(v.at(5) == v.at(6));       // thread (0,2)'s element, written while this one waited
  CHECK(contains(r.output, "check    PASS"));
  CHECK(contains(r.output, "exited normally"));
}

TEST_CASE("make debug says what is wrong with its settings") {
  struct Refused {
    std::vector<std::string> settings;
    const char* says;
  };
  const Refused refused[] = {
      {{}, "make debug: say which lab"},
      {{"LAB=99"}, "make debug: no lab '99' here"},
      {{"LAB=03"}, "make debug: lab 03 is in steps: say which, e.g. STEP=1"},
      {{"LAB=02", "BLOCK=a"}, "make debug: BLOCK=a: say x,y,z in whole numbers"},
      {{"LAB=02", "THREAD=1,2,3,4"}, "make debug: THREAD=1,2,3,4: at most three numbers"},
      {{"LAB=02", "LINE=here"}, "make debug: LINE=here: say a line number"},
      {{"LAB=02", "GDB_COMMANDS=/nonexistent"}, "make debug: GDB_COMMANDS=/nonexistent: no such file"},
  };
  // The lab program the test above built, where there are solutions (else the skeleton's).
  const std::string src = lab_test::kNoSolutions ? "SRC=labs" : "SRC=solutions";
  for (const Refused& x : refused) {
    CAPTURE(x.says);
    std::vector<std::string> settings = x.settings;
    settings.push_back(src);
    const tools::RunResult r = make(settings);
    CHECK(r.exited(2));
    CHECK(contains(r.output, x.says));
  }
}

}
