// A pass's clock (grading/core/pass_clock.h): on a GPU its seconds count from the program's device
// opening, its start held to a limit of its own; a program that never says so is counted from its
// start.
#include "grading/core/pass_clock.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

namespace {

using namespace std::chrono_literals;

// A started file's path of its own, absent.
std::string started_file() {
  const std::string path = "build/test/pass_clock-started-" + std::to_string(getpid());
  std::remove(path.c_str());
  return path;
}

}  // namespace

TEST_SUITE("pass clock") {

TEST_CASE("on a GPU, the seconds before the device is open do not count") {
  const std::string file = started_file();
  grade::PassClock clock(false, file, 10);
  clock.starting();
  clock.started(getpid());
  std::this_thread::sleep_for(200ms);  // a CUDA context being made
  CHECK_FALSE(clock.counting());
  CHECK_FALSE(clock.slow_start());
  std::ofstream(file) << "";
  CHECK(clock.counting());
  CHECK(clock.now() < 0.1);
  std::this_thread::sleep_for(100ms);
  CHECK(clock.now() >= 0.1);
  CHECK_FALSE(clock.from_start());
  // The next run starts with its device closed again.
  clock.ended();
  const double spent = clock.now();
  clock.starting();
  clock.started(getpid());
  CHECK_FALSE(clock.counting());
  CHECK(clock.now() >= spent);
  std::remove(file.c_str());
}

TEST_CASE("a start that takes longer than its limit is slow; the device's opening ends the start") {
  const std::string file = started_file();
  grade::PassClock clock(false, file, 0.1);
  clock.started(getpid());
  std::this_thread::sleep_for(150ms);
  CHECK(clock.slow_start());
  std::ofstream(file) << "";
  CHECK(clock.counting());
  CHECK_FALSE(clock.slow_start());
  std::remove(file.c_str());
}

TEST_CASE("a run that never says its device is open counts from its start once a shape is done") {
  // A student's code can stop the file (a folder in its place): its first shape is then held to
  // its limit from the program's start (grading/core/case_runs.cpp).
  const std::string file = started_file();
  grade::PassClock clock(false, file, 10);
  clock.started(getpid());
  std::this_thread::sleep_for(150ms);
  CHECK_FALSE(clock.counting());
  clock.shape_done();
  CHECK(clock.counting());
  CHECK(clock.from_start());
  CHECK(clock.now() >= 0.15);
  // A file that turns up after that moves nothing.
  std::ofstream(file) << "";
  CHECK(clock.counting());
  CHECK(clock.now() >= 0.15);
  std::remove(file.c_str());
}

TEST_CASE("a wait for the GPU alone counts neither on the clock nor since the start") {
  const std::string file = started_file();
  grade::PassClock clock(false, file, 10);
  clock.started(getpid());
  std::ofstream(file) << "";
  CHECK(clock.counting());
  clock.pause();
  std::this_thread::sleep_for(200ms);
  clock.resume();
  CHECK(clock.now() < 0.1);
  CHECK(clock.since_start() < 0.1);
  std::this_thread::sleep_for(100ms);
  CHECK(clock.since_start() >= 0.1);
  std::remove(file.c_str());
}

TEST_CASE("a first shape is late from its program's start: a started file written late gains at most the start's limit") {
  // Student code can make the harness's file fail, and write one itself just before its slow
  // first shape's result: the clock then counts that shape as quick, but the shape is late.
  const std::string file = started_file();
  grade::PassClock late_file(false, file, 0.1);
  late_file.started(getpid());
  std::this_thread::sleep_for(300ms);  // the first shape's work, before the file
  std::ofstream(file) << "";
  CHECK(late_file.counting());
  late_file.shape_done();
  CHECK(late_file.now() < 0.1);  // quick, by the clock
  CHECK(late_file.first_shape_late(0.15));
  CHECK_FALSE(late_file.first_shape_late(0.25));  // within its limit and the start's
  // No file at all: its limit alone, from the start.
  std::remove(file.c_str());
  grade::PassClock no_file(false, file, 10);
  no_file.started(getpid());
  std::this_thread::sleep_for(200ms);
  no_file.shape_done();
  CHECK(no_file.from_start());
  CHECK(no_file.first_shape_late(0.15));
  CHECK_FALSE(no_file.first_shape_late(0.5));
  // On the CPU backend the CPU-time clock holds every shape to its limit as it runs.
  grade::PassClock cpu(true, file, 0.1);
  cpu.started(getpid());
  std::this_thread::sleep_for(200ms);
  CHECK_FALSE(cpu.first_shape_late(0.05));
}

TEST_CASE("on the CPU backend the clock counts from the start, its CPU time") {
  const std::string file = started_file();
  grade::PassClock clock(true, file, 0.01);
  clock.started(getpid());
  CHECK(clock.counting());
  std::this_thread::sleep_for(50ms);
  CHECK_FALSE(clock.slow_start());
  CHECK_FALSE(clock.from_start());
  CHECK(clock.wall_limit(2) == doctest::Approx(8));
}

}  // TEST_SUITE
