// The grader's reports are written through a temporary file renamed over the old one: a reader
// sees the old text or the new, whole. Writers of one path at once (Slurm tasks starting together
// on a shared output folder all write its class seed) each succeed, and leave no temporary behind.
#include <doctest/doctest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "grading/core/report.h"

namespace fs = std::filesystem;

TEST_CASE("writers of one path at once all succeed, and one of their texts is there, whole") {
  const fs::path dir = fs::absolute("build/test/report-writers");
  fs::remove_all(dir);
  const std::string path = (dir / "class-seed").string();
  std::atomic<int> failed{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < 8; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; i < 200; ++i) {
        if (!grade::write_atomically(path, std::string(1000, char('a' + w)) + "\n")) ++failed;
      }
    });
  }
  for (std::thread& t : writers) t.join();
  CHECK(failed == 0);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string got = text.str();
  REQUIRE(got.size() == 1001);
  CHECK(got.find_first_not_of(got[0]) == 1000);  // one writer's text, not a mix
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  CHECK(files == 1);  // no temporary file left behind
  fs::remove_all(dir);
}

TEST_CASE("a path that cannot be written is reported, and leaves nothing behind") {
  const fs::path dir = fs::absolute("build/test/report-unwritable");
  fs::remove_all(dir);
  fs::create_directories(dir / "taken");  // a folder where the file should go: the rename fails
  CHECK_FALSE(grade::write_atomically((dir / "taken").string(), "text\n"));
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir)) entries += bool(e.exists());
  CHECK(entries == 1);
  fs::remove_all(dir);
}
