// A timed pass asks for the GPU alone once its inputs are on it (grading/core/ready_pipe.h,
// harness/serve.cpp): the grader sees the ask once, the program waits until let go and then
// times, and a file a student's program puts in the pipe's place is never taken for the ask.
#include "grading/core/ready_pipe.h"

#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "common/fill.h"
#include "common/protocol.h"
#include "tests/lab_programs.h"

namespace fs = std::filesystem;

namespace {

// A fresh folder for one test.
std::string fresh_dir(const std::string& name) {
  const std::string dir = "build/test/ready-pipe-" + name + "-" + std::to_string(getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Asks PIPE until it answers true, for at most SECONDS.
bool asked_within(grade::ReadyPipe& pipe, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (pipe.asked()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

}  // namespace

TEST_SUITE("turns") {
  TEST_CASE("the grader sees a reader's ask once, and go() lets its read return") {
    const std::string dir = fresh_dir("ask");
    grade::ReadyPipe pipe(dir + "/gpu-turn");
    CHECK_FALSE(pipe.asked());  // nobody waits yet
    std::atomic<bool> returned{false};
    std::thread reader([&] {
      const int fd = open(pipe.path().c_str(), O_RDONLY);
      char byte;
      while (fd >= 0 && read(fd, &byte, 1) < 0) {
      }
      if (fd >= 0) close(fd);
      returned = true;
    });
    REQUIRE(asked_within(pipe, 5));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    CHECK_FALSE(returned);  // held until let go
    CHECK_FALSE(pipe.asked());  // once
    pipe.go();
    reader.join();
    CHECK(returned);
    fs::remove_all(dir);
  }

  TEST_CASE("a file put in the pipe's place is never taken for an ask") {
    // The run's folder is the student's: its program may remove the pipe and put another one, a
    // plain file or a link to some other pipe there. None is the grader's, none asks.
    for (const std::string kind : {"fifo", "file", "link"}) {
      CAPTURE(kind);
      const std::string dir = fresh_dir("replaced-" + kind);
      grade::ReadyPipe pipe(dir + "/gpu-turn");
      fs::remove(pipe.path());
      const std::string other = dir + "/other";
      REQUIRE(mkfifo(other.c_str(), 0644) == 0);
      if (kind == "fifo") REQUIRE(mkfifo(pipe.path().c_str(), 0644) == 0);
      if (kind == "file") std::ofstream(pipe.path()) << "ready\n";
      if (kind == "link") fs::create_symlink("other", pipe.path());
      // A reader at what the grader would open: the new pipe, the file, the pipe linked to.
      const std::string read_path = kind == "link" ? other : pipe.path();
      const int replaced = open(read_path.c_str(), O_RDONLY | O_NONBLOCK);
      REQUIRE(replaced >= 0);
      CHECK_FALSE(asked_within(pipe, 0.3));
      close(replaced);
      fs::remove_all(dir);
    }
  }

  TEST_CASE("a lab program's timed pass waits at the pipe, its inputs read, and times once let go" *
            doctest::skip(lab_test::kNoCpuSolutions)) {
    const std::string dir = fresh_dir("serve");
    lab::ServeCase c;
    c.timed = true;
    c.shape = lab::Case::matmul(40, 36, 24);
    c.reps = 3;
    c.warmup = 1;
    const std::vector<std::vector<float>> inputs = lab::make_inputs(c.shape, 5);
    for (size_t j = 0; j < inputs.size(); ++j) {
      REQUIRE(lab::write_floats(dir + "/0.in" + std::to_string(j), inputs[j].data(), inputs[j].size()));
    }
    std::ofstream(dir + "/cases.txt") << lab::format_case_line(c) << "\n";
    grade::ReadyPipe pipe(dir + "/gpu-turn");
    bool asked = false, let_go = false, result_before_go = false;
    auto asked_at = std::chrono::steady_clock::now();
    lab::RunOptions options;
    options.timeout_s = 120;
    options.env = {"LAB_GPU_TURN=" + pipe.path()};
    options.stop_early = [&] {
      if (pipe.asked()) {
        asked = true;
        asked_at = std::chrono::steady_clock::now();
      }
      if (asked && !let_go && std::chrono::steady_clock::now() - asked_at > std::chrono::milliseconds(500)) {
        result_before_go = fs::exists(dir + "/0.result");
        pipe.go();
        let_go = true;
      }
      return false;
    };
    const lab::RunResult r =
        lab::run_command({lab_test::program("cpu", lab_test::kSolutions, "01_matmul_naive"), "--serve", dir}, options);
    CAPTURE(r.output);
    CHECK(r.exited(0));
    CHECK(asked);
    CHECK_FALSE(result_before_go);
    const lab::CaseResult result = lab::parse_result(lab_test::read_file(dir + "/0.result"));
    CHECK(result.calls.size() == 3);
    fs::remove_all(dir);
  }
}
