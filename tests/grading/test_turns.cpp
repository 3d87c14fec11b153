// The turns at running lab programs (grading/core/turns.h): who may run beside whom, and in what order.
#include "grading/core/turns.h"

#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

using grade::Turns;
using Kind = Turns::Kind;

// The orders below hold as long as no thread waits a whole tick to be scheduled; a loaded
// machine (CI runs two test programs at once, each of which may be grading) takes tens of ms.
constexpr int tick_ms = 400;

// Runs that each hold a turn for a while, started one after another in the order given, and
// the order and overlap in which they ran. GRADERS: each its own turns, as separate graders'
// processes have, sharing the GPU's lock file when LOCK is given.
struct Runs {
  std::vector<Turns> graders;
  std::mutex mutex;
  std::vector<std::string> events;  // "+name" when a run got its turn, "-name" when it ended
  std::vector<std::thread> threads;

  // SIDE_BY_SIDE: the graders of a class's run.
  explicit Runs(size_t count = 1, const std::string& lock = "", bool side_by_side = false) : graders(count) {
    for (Turns& t : graders) t.share_with_graders(lock, side_by_side);
  }
  void log(const std::string& event) {
    const std::lock_guard<std::mutex> hold(mutex);
    events.push_back(event);
  }
  // Starts a run of KIND that holds its turn for TICKS ticks, once it has asked for it
  // here, of grader GRADER: the runs ask in the order they are started.
  void start(const std::string& name, Kind kind, double ticks, size_t grader = 0) {
    Turns& turns = graders[grader];
    const uint64_t ticket = turns.ask();
    const int ms = int(ticks * tick_ms);
    threads.emplace_back([this, &turns, name, kind, ms, ticket] {
      turns.enter(ticket, kind);
      turns.hold_gpu(kind);
      log("+" + name);
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
      log("-" + name);
      turns.release_gpu();
      turns.leave();
    });
  }
  // Starts a timed pass's run of grader GRADER (a Turn with TIMED): its program sets its case up
  // for SETUP ticks, times for TIME ticks once it may, then writes for a tick more.
  void start_timed(const std::string& name, double setup, double time, size_t grader = 0) {
    Turns& turns = graders[grader];
    threads.emplace_back([this, &turns, name, setup, time] {
      grade::Turn turn(turns, Kind::student, true);
      log("+setup " + name);
      std::this_thread::sleep_for(std::chrono::milliseconds(int(setup * tick_ms)));
      turn.ready();
      log("+time " + name);
      std::this_thread::sleep_for(std::chrono::milliseconds(int(time * tick_ms)));
      log("-time " + name);
      turn.timed();
      std::this_thread::sleep_for(std::chrono::milliseconds(tick_ms));
      log("-" + name);
    });
  }
  std::vector<std::string> finish() {
    for (std::thread& t : threads) t.join();
    return events;
  }
};

// The files of the GPU's lock LOCK (turns.h names them), which a test leaves behind.
void remove_lock_files(const std::string& lock) {
  for (const char* file : {"", ".gate", ".wanted", ".timer", ".queue"}) std::remove((lock + file).c_str());
}

// The events in one line, for a failing check's message.
std::string joined(const std::vector<std::string>& events) {
  std::string all;
  for (const std::string& e : events) all += e + ", ";
  return all;
}

}  // namespace

TEST_SUITE("turns") {
  TEST_CASE("student runs share their turn; so do the solution's, but never with a student's") {
    Runs runs;
    runs.start("s1", Kind::student, 2);
    runs.start("s2", Kind::student, 2);
    runs.start("sol1", Kind::solution, 2);
    runs.start("sol2", Kind::solution, 2);
    const std::vector<std::string> events = runs.finish();
    REQUIRE(events.size() == 8);
    // The two students side by side (in either order), then the two solutions side by side.
    const auto phase = [&](size_t first) { return std::set<std::string>(events.begin() + first, events.begin() + first + 2); };
    CHECK(phase(0) == std::set<std::string>{"+s1", "+s2"});
    CHECK(phase(2) == std::set<std::string>{"-s1", "-s2"});
    CHECK(phase(4) == std::set<std::string>{"+sol1", "+sol2"});
    CHECK(phase(6) == std::set<std::string>{"-sol1", "-sol2"});
  }

  TEST_CASE("a run alone waits for those under way, and the runs that asked after it wait for it") {
    Runs runs;
    runs.start("s1", Kind::student, 2);
    runs.start("timed", Kind::alone, 1);
    runs.start("s2", Kind::student, 0.5);  // asks while s1 still runs: it must not go in beside s1
    const std::vector<std::string> events = runs.finish();
    CHECK(events == std::vector<std::string>{"+s1", "-s1", "+timed", "-timed", "+s2", "-s2"});
  }

  TEST_CASE("two runs alone never overlap") {
    Runs runs;
    runs.start("t1", Kind::alone, 1);
    runs.start("t2", Kind::alone, 1);
    const std::vector<std::string> events = runs.finish();
    CHECK(events == std::vector<std::string>{"+t1", "-t1", "+t2", "-t2"});
  }

  // Two graders of one GPU (make grade-class), as two Turns sharing a lock file: flock's locks
  // belong to each open file, so two in one process stand for two processes.
  TEST_CASE("graders sharing a GPU take it one at a time: the other's timed pass waits for all of one's runs") {
    const std::string lock = "build/test/turns-" + std::to_string(getpid()) + ".lock";
    Runs runs(2, lock);
    runs.start("a1", Kind::student, 4, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(tick_ms));
    runs.start("b-timed", Kind::alone, 1, 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(tick_ms));
    runs.start("a2", Kind::student, 1, 0);  // grader a holds the GPU still: a2 goes in beside a1
    const std::vector<std::string> events = runs.finish();
    CHECK(events == std::vector<std::string>{"+a1", "+a2", "-a2", "-a1", "+b-timed", "-b-timed"});
    remove_lock_files(lock);
  }

  TEST_CASE("graders sharing a GPU: no run of one goes beside a run of the other") {
    const std::string lock = "build/test/turns-side-" + std::to_string(getpid()) + ".lock";
    Runs runs(2, lock);
    runs.start("a", Kind::student, 3, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(tick_ms));
    runs.start("b", Kind::student, 1, 1);
    const std::vector<std::string> events = runs.finish();
    CHECK(events == std::vector<std::string>{"+a", "-a", "+b", "-b"});
    remove_lock_files(lock);
  }

  // A class's graders (make grade-class): their untimed runs share the GPU, a timed pass has it
  // alone, and one waiting to time keeps later runs of any grader out.
  TEST_CASE("a class's graders run side by side, but a timed pass waits for all their runs and holds the others back") {
    const std::string lock = "build/test/turns-class-" + std::to_string(getpid()) + ".lock";
    Runs runs(3, lock, true);
    runs.start("a", Kind::student, 4, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(tick_ms));
    runs.start("b", Kind::student, 1, 1);  // goes in beside a
    std::this_thread::sleep_for(std::chrono::milliseconds(2 * tick_ms));
    runs.start("c-timed", Kind::alone, 1, 2);  // waits for a
    std::this_thread::sleep_for(std::chrono::milliseconds(tick_ms / 2));
    runs.start("b2", Kind::student, 1, 1);  // grader b has no run under way: it waits behind c's timed pass
    const std::vector<std::string> events = runs.finish();
    CHECK(events == std::vector<std::string>{"+a", "+b", "-b", "-a", "+c-timed", "-c-timed", "+b2", "-b2"});
    remove_lock_files(lock);
  }

  TEST_CASE("a class's grader still takes the GPU from a grader of its own (make grade) one at a time") {
    const std::string lock = "build/test/turns-mixed-" + std::to_string(getpid()) + ".lock";
    Runs runs(2, lock, true);
    runs.graders[1].share_with_graders(lock, false);  // make grade beside the class's run
    runs.start("class", Kind::student, 2, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(tick_ms));
    runs.start("grade", Kind::student, 1, 1);
    const std::vector<std::string> events = runs.finish();
    CHECK(events == std::vector<std::string>{"+class", "-class", "+grade", "-grade"});
    remove_lock_files(lock);
  }

  TEST_CASE("a class's grader whose runs overlap lets a waiting timed pass in once its runs under way end") {
    const std::string lock = "build/test/turns-overlap-" + std::to_string(getpid()) + ".lock";
    Runs runs(2, lock, true);
    runs.start("a1", Kind::student, 2, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(tick_ms / 2));
    runs.start("b-timed", Kind::alone, 1, 1);  // waits for a1
    std::this_thread::sleep_for(std::chrono::milliseconds(tick_ms / 2));
    runs.start("a2", Kind::student, 2, 0);  // would go in beside a1, and a3 beside a2...
    std::this_thread::sleep_for(std::chrono::milliseconds(tick_ms));
    runs.start("a3", Kind::student, 1, 0);
    const std::vector<std::string> events = runs.finish();
    REQUIRE(events.size() == 8);
    CHECK(std::vector<std::string>(events.begin(), events.begin() + 4) == std::vector<std::string>{"+a1", "-a1", "+b-timed", "-b-timed"});
    remove_lock_files(lock);
  }

  // A grading times its labs last, one pass after another (grading/core/grade_labs.cpp): the GPU
  // kept alone from its first timed pass to its last, another grader's run waits for them all.
  TEST_CASE("a class's grader that keeps the GPU alone runs its timed passes one after another, the others' runs after") {
    const std::string lock = "build/test/turns-kept-" + std::to_string(getpid()) + ".lock";
    Runs runs(2, lock, true);
    runs.graders[0].keep_alone();
    runs.start("t1", Kind::alone, 1, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(tick_ms / 2));
    runs.start("b", Kind::student, 0.5, 1);  // waits for t1, and then (kept) for t2
    std::this_thread::sleep_for(std::chrono::milliseconds(tick_ms));
    runs.start("t2", Kind::alone, 1, 0);  // after t1 ended: no turn of b's between them
    std::this_thread::sleep_for(std::chrono::milliseconds(3 * tick_ms / 2));
    runs.graders[0].end_keeping();
    const std::vector<std::string> events = runs.finish();
    CHECK(events == std::vector<std::string>{"+t1", "-t1", "+t2", "-t2", "+b", "-b"});
    remove_lock_files(lock);
  }

  TEST_CASE("a grader keeping the GPU lets go when it ends keeping, whether its last run ended before or after") {
    const std::string lock = "build/test/turns-let-go-" + std::to_string(getpid()) + ".lock";
    Runs runs(2, lock, true);
    runs.graders[0].keep_alone();
    runs.start("t1", Kind::alone, 1, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(tick_ms / 2));
    runs.start("b1", Kind::student, 0.5, 1);  // waits: t1, then the GPU kept
    std::this_thread::sleep_for(std::chrono::milliseconds(3 * tick_ms / 2));
    runs.log("end");  // t1 ended half a tick ago: the GPU goes now, to b1
    runs.graders[0].end_keeping();
    std::this_thread::sleep_for(std::chrono::milliseconds(tick_ms));
    runs.graders[0].keep_alone();
    runs.start("t2", Kind::alone, 2, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(tick_ms / 2));
    runs.log("end2");  // t2 still runs: the GPU goes when it ends, to b2
    runs.graders[0].end_keeping();
    runs.start("b2", Kind::student, 0.5, 1);
    const std::vector<std::string> events = runs.finish();
    CHECK(events == std::vector<std::string>{"+t1", "-t1", "end", "+b1", "-b1", "+t2", "end2", "-t2", "+b2", "-b2"});
    remove_lock_files(lock);
  }

  // A round of timed passes (grading/core/grade_labs.cpp's time_labs): the GPU alone from its
  // programs' start, so they wait for another grader's run under way; their calls go one at a time.
  TEST_CASE("a round's timed programs wait for the others' runs, set up, then time one after another") {
    const std::string lock = "build/test/turns-round-" + std::to_string(getpid()) + ".lock";
    Runs runs(2, lock, true);
    runs.start("b", Kind::student, 2, 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(tick_ms / 2));
    runs.graders[0].keep_alone();
    runs.start_timed("t1", 1, 1);
    runs.start_timed("t2", 1.5, 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(8 * tick_ms));
    runs.graders[0].end_keeping();
    runs.start("b2", Kind::student, 0.5, 1);
    const std::vector<std::string> events = runs.finish();
    REQUIRE(events.size() == 12);
    const auto at = [&](const std::string& e) { return std::find(events.begin(), events.end(), e) - events.begin(); };
    CHECK(at("-b") < at("+setup t1"));
    CHECK(at("-b") < at("+setup t2"));
    // One window after the other, once both programs are set up.
    CHECK((at("-time t1") < at("+time t2") || at("-time t2") < at("+time t1")));
    CHECK(at("+setup t2") < at("+time t1"));
    CHECK(at("+b2") > at("-t1"));
    CHECK(at("+b2") > at("-t2"));
    remove_lock_files(lock);
  }

  // Rounds go back to back: one queued for the timer has the GPU next, before another grader's
  // run that asked for it meanwhile (which would otherwise run first, the round waiting for it).
  TEST_CASE("a round queued behind another has the GPU next, before the runs that asked meanwhile") {
    const std::string lock = "build/test/turns-hand-over-" + std::to_string(getpid()) + ".lock";
    Runs runs(3, lock, true);
    runs.graders[0].keep_alone();
    runs.start_timed("t1", 1, 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(tick_ms / 2));
    std::thread queued([&] {
      runs.graders[2].keep_alone();
      {
        grade::Turn turn(runs.graders[2], Kind::student, true);
        runs.log("+setup u1");
        std::this_thread::sleep_for(std::chrono::milliseconds(tick_ms / 2));
        turn.ready();
        std::this_thread::sleep_for(std::chrono::milliseconds(tick_ms / 2));
        turn.timed();
        runs.log("-u1");
      }
      runs.graders[2].end_keeping();
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(tick_ms / 2));
    runs.start("b", Kind::student, 0.5, 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(3 * tick_ms));
    runs.log("end");  // t1 ended half a tick ago
    runs.graders[0].end_keeping();
    queued.join();
    const std::vector<std::string> events = runs.finish();
    const std::string all = joined(events);
    CAPTURE(all);
    CHECK(events == std::vector<std::string>{"+setup t1", "+time t1", "-time t1", "-t1", "end", "+setup u1", "-u1", "+b", "-b"});
    remove_lock_files(lock);
  }

  // The hand-over's wait, which the test above does not pin (a grader says it wants the GPU an
  // instant after it has the timer): here one does so half a tick later, with the files alone, as
  // another grader's process would (turns.h names them); a shared run asked meanwhile goes after it.
  TEST_CASE("a grader letting go of the GPU alone waits for the one queued for the timer to want it") {
    const std::string lock = "build/test/turns-hand-over-wait-" + std::to_string(getpid()) + ".lock";
    Runs runs(2, lock, true);
    runs.graders[0].keep_alone();
    runs.start_timed("t1", 0.5, 0.5);
    std::this_thread::sleep_for(std::chrono::milliseconds(tick_ms / 2));
    const auto take = [&](const char* file, int operation) {
      const int fd = open((lock + file).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
      REQUIRE(fd >= 0);
      REQUIRE(flock(fd, operation) == 0);
      return fd;
    };
    std::thread slow([&] {
      const int queue = take(".queue", LOCK_SH), timer = take(".timer", LOCK_EX);
      std::this_thread::sleep_for(std::chrono::milliseconds(tick_ms / 2));
      const int wanted = take(".wanted", LOCK_SH);
      close(queue);
      const int gate = take(".gate", LOCK_EX), gpu = take("", LOCK_EX);
      for (int fd : {gate, wanted}) close(fd);
      runs.log("+u");
      std::this_thread::sleep_for(std::chrono::milliseconds(tick_ms / 2));
      runs.log("-u");
      for (int fd : {gpu, timer}) close(fd);
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(tick_ms / 2));
    runs.start("b", Kind::student, 0.5, 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(3 * tick_ms));
    runs.log("end");  // t1 ended two ticks ago
    runs.graders[0].end_keeping();
    slow.join();
    const std::vector<std::string> events = runs.finish();
    const std::string all = joined(events);
    CAPTURE(all);
    CHECK(events == std::vector<std::string>{"+setup t1", "+time t1", "-time t1", "-t1", "end", "+u", "-u", "+b", "-b"});
    remove_lock_files(lock);
  }

  // grade_labs.cpp times only in rounds; the rule holds without one too.
  TEST_CASE("a timed pass outside a round waits for its own grader's shared runs under way") {
    const std::string lock = "build/test/turns-timed-alone-" + std::to_string(getpid()) + ".lock";
    Runs runs(1, lock, true);
    runs.start("a", Kind::student, 1.5);
    std::this_thread::sleep_for(std::chrono::milliseconds(tick_ms / 2));
    runs.start_timed("t", 0.5, 0.5);  // a student's turn, as a's: it would join a's hold of the GPU
    const std::vector<std::string> events = runs.finish();
    CHECK(events == std::vector<std::string>{"+a", "-a", "+setup t", "+time t", "-time t", "-t"});
    remove_lock_files(lock);
  }

  TEST_CASE("a timed program does not set up while another's timed calls go") {
    const std::string lock = "build/test/turns-round-setup-" + std::to_string(getpid()) + ".lock";
    Runs runs(1, lock, true);
    runs.graders[0].keep_alone();
    runs.start_timed("t1", 0.5, 2);
    std::this_thread::sleep_for(std::chrono::milliseconds(tick_ms));
    runs.start_timed("t2", 0.5, 0.5);  // asks while t1 times
    std::this_thread::sleep_for(std::chrono::milliseconds(5 * tick_ms));
    runs.graders[0].end_keeping();
    const std::vector<std::string> events = runs.finish();
    const std::string all = joined(events);
    CAPTURE(all);
    REQUIRE(events.size() == 8);
    CHECK(std::vector<std::string>(events.begin(), events.begin() + 4) ==
          std::vector<std::string>{"+setup t1", "+time t1", "-time t1", "+setup t2"});
    remove_lock_files(lock);
  }

  TEST_CASE("another grader's run again alone waits for a round, which holds the timer") {
    const std::string lock = "build/test/turns-round-timer-" + std::to_string(getpid()) + ".lock";
    Runs runs(2, lock, true);
    runs.graders[0].keep_alone();
    runs.start_timed("t1", 1, 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(tick_ms / 2));
    runs.start("again", Kind::alone, 0.5, 1);  // beside t1's setup it would hold the GPU's gate
    std::this_thread::sleep_for(std::chrono::milliseconds(4 * tick_ms));
    runs.graders[0].end_keeping();
    const std::vector<std::string> events = runs.finish();
    CHECK(events == std::vector<std::string>{"+setup t1", "+time t1", "-time t1", "-t1", "+again", "-again"});
    remove_lock_files(lock);
  }

  // Nsight Compute's turns: graders (each opening the lock file, as two threads here do) profile one
  // at a time, whatever their turns at the GPU.
  TEST_CASE("profiled runs take turns through their own lock file, across graders and the labs of one") {
    const std::string lock = "build/test/turns-profiler-" + std::to_string(getpid()) + ".lock.ncu";
    std::mutex mutex;
    std::vector<std::string> events;
    const auto log = [&](const std::string& e) {
      const std::lock_guard<std::mutex> hold(mutex);
      events.push_back(e);
    };
    std::atomic<bool> a_in{false};
    std::thread a([&] {
      const grade::ProfilerTurn turn(lock);
      log("+a");
      a_in = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(tick_ms));
      log("-a");
    });
    while (!a_in) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::thread b([&] {
      const grade::ProfilerTurn turn(lock);
      log("+b");
      log("-b");
    });
    a.join();
    b.join();
    CHECK(events == std::vector<std::string>{"+a", "-a", "+b", "-b"});
    {
      const grade::ProfilerTurn nothing("");  // no GPU shared: nothing to take
    }
    std::remove(lock.c_str());
  }
}
