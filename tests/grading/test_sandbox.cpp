// The fences around a student's build (grading/core/sandbox.h), tried with the compiler directly:
// the assembler's .incbin reads any file the compiler can read, so what keeps the solution out
// of a student's object is what the build can see, not the include path; and a compiler that
// reads /dev/zero stops at its memory limit, not at the machine's. And gradings running at once
// run student code as users of their own (grading/core/student_uid.h), so that none can kill another's.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <csignal>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "grading/core/cannot_grade.h"
#include "grading/core/sandbox.h"
#include "tests/lab_programs.h"
#include "tools/subprocess.h"

namespace {

namespace fs = std::filesystem;

using lab_test::kNoMountNamespace;

using lab_test::contains;

// A grading run's folders, made afresh, as the grader makes them: a scratch folder that lists
// nothing, a build folder in it, the private copy's folder in that, and the folder of its
// object, handed over to the student. Two may live at once, as two gradings.
struct Run {
  std::string work, build, copies, obj;
  grade::Sandbox sandbox;
  Run() {
    static std::atomic<int> runs{0};
    work = fs::temp_directory_path() / ("test-sandbox-" + std::to_string(getpid()) + "-" + std::to_string(runs++));
    fs::remove_all(work);
    build = work + "/build";
    copies = build + "/submission/1";
    obj = build + "/cpu/obj/1";
    fs::create_directories(copies);
    fs::create_directories(obj);
    chmod(work.c_str(), 0711);
    sandbox = grade::probe_sandbox(fs::current_path().string(), build, work);
    sandbox.hand_over(obj);
  }
  ~Run() { fs::remove_all(work); }

  // Compiles TEXT as the student's file, fenced or not; what the compiler said, and whether it built.
  tools::RunResult compile(const std::string& text, bool fenced) const {
    std::ofstream(copies + "/lab.cpp") << text;
    fs::remove(obj + "/lab.o");
    const std::vector<std::string> argv = {"g++", "-c", copies + "/lab.cpp", "-o", obj + "/lab.o"};
    return fenced ? sandbox.run(sandbox.wrap_build(argv, 60, {copies, obj})) : tools::run_command(argv);
  }
};

std::string incbin(const std::string& path) { return "asm(\".section .rodata\\n.incbin \\\"" + path + "\\\"\\n.previous\");\n"; }

}  // namespace

TEST_CASE("a student's build cannot read the solution, by .incbin or any other path" *
          doctest::skip(lab_test::kNoSolutions || kNoMountNamespace)) {
  const Run run;
  REQUIRE(run.sandbox.namespaces);
  const std::string solution = fs::absolute("solutions/01_matmul_naive/matmul_naive.cu").string();
  // The attack works where nothing fences the build: the solution's text lands in the object.
  const tools::RunResult open = run.compile(incbin(solution), false);
  REQUIRE(open.exited(0));
  CHECK(contains(tools::run_command({"strings", run.obj + "/lab.o"}).output, "matmul_naive"));
  // Fenced: by its absolute path, by the path relative to the checkout, where make runs the compiler.
  for (const std::string& path : {solution, std::string("solutions/01_matmul_naive/matmul_naive.cu"), fs::absolute(".git/HEAD").string()}) {
    CAPTURE(path);
    const tools::RunResult r = run.compile(incbin(path), true);
    CHECK_FALSE(r.exited(0));
    CHECK(contains(r.output, "file not found"));
  }
  // What the student's own file and the system's headers are stays readable.
  const tools::RunResult fair = run.compile("#include <cmath>\n#include <vector>\n" + incbin(run.copies + "/lab.cpp"), true);
  CAPTURE(fair.output);
  CHECK(fair.exited(0));
}

TEST_CASE("a student's build cannot read what only the grader's user may read" *
          doctest::skip(kNoMountNamespace || geteuid() != 0)) {
  // A grader that is root builds student files as its student user, as it runs their programs: the
  // assembler cannot read root's files (an SSH key, say) into the object, nor the program print them.
  const Run run;
  REQUIRE(run.sandbox.as_student);
  const std::string secret = run.work + "-secret";
  std::ofstream(secret) << "the grader's own\n";
  chmod(secret.c_str(), 0600);
  CHECK(run.compile(incbin(secret), false).exited(0));
  const tools::RunResult r = run.compile(incbin(secret), true);
  CHECK_FALSE(r.exited(0));
  fs::remove(secret);
}

TEST_CASE("a compiler that reads /dev/zero stops at the build's memory limit, in seconds") {
  const Run run;
  REQUIRE(run.sandbox.limits);
  const auto start = std::chrono::steady_clock::now();
  const tools::RunResult r = run.compile("#include \"/dev/zero\"\n", true);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CAPTURE(r.output);
  CHECK_FALSE(r.exited(0));
  CHECK_FALSE(r.timed_out);
  CHECK(contains(r.output, "out of memory"));
  CHECK(seconds < 30);
}

TEST_CASE("a student's build writes its own folders only: the kept build folder's other builds are read-only to it" *
          doctest::skip(kNoMountNamespace)) {
  // The grader keeps its build folder between runs (grading/core/build_folder.h): a build that could
  // write the harness's objects, or another submission's, would plant code in later programs.
  const Run run;
  REQUIRE(run.sandbox.namespaces);
  const std::string harness = run.build + "/cpu/obj/harness";
  fs::create_directories(harness);
  std::ofstream(harness + "/lab_main.o") << "the grader's object\n";
  auto fenced_sh = [&](const std::string& script) {
    return tools::run_command(run.sandbox.wrap_build({"sh", "-c", script}, 60, {run.copies, run.obj}));
  };
  CHECK(fenced_sh("echo mine > '" + run.obj + "/lab.o'").exited(0));
  const tools::RunResult planted = fenced_sh("echo planted > '" + harness + "/lab_main.o'");
  CHECK_FALSE(planted.exited(0));
  CHECK(contains(planted.output, "Read-only file system"));
  CHECK_FALSE(fenced_sh("touch '" + run.build + "/new_folder_file'").exited(0));
  CHECK(lab_test::read_file(harness + "/lab_main.o") == "the grader's object\n");
}

TEST_CASE("a run starts though other runs' folders come and go while its fences are made" *
          doctest::skip(kNoMountNamespace)) {
  // Labs graded at once: each run hides the scratch folder's other runs, which other threads
  // make and remove meanwhile. A folder gone before it could be hidden needs no hiding; the run
  // must not fail for it (it did: "mount point does not exist", exit 126, a correct lab's
  // shape lost).
  const Run run;
  REQUIRE(run.sandbox.namespaces);
  const std::string mine = run.work + "/cwd-mine";
  fs::create_directories(mine);
  std::atomic<bool> done{false};
  std::thread churn([&] {
    for (int i = 0; !done; ++i) {
      const std::string other = run.work + "/cwd-other" + std::to_string(i % 8);
      fs::create_directories(other);
      fs::remove_all(other);
    }
  });
  int failed = 0;
  std::string output;
  // 20 of 100 runs failed before the fix.
  for (int i = 0; i < 50; ++i) {
    const tools::RunResult r = tools::run_command(run.sandbox.wrap({"true"}, 30, false, {mine}));
    if (!r.exited(0)) ++failed, output = r.output;
  }
  done = true;
  churn.join();
  CAPTURE(output);
  CHECK(failed == 0);
}

TEST_CASE("a file to hide reads as empty inside the fences: a class's download, every student's code in one zip" *
          doctest::skip(kNoMountNamespace)) {
  Run run;
  REQUIRE(run.sandbox.namespaces);
  const fs::path download = fs::absolute("build/test/sandbox-download-" + std::to_string(getpid()) + ".zip");
  std::ofstream(download) << "every student's code";
  const std::vector<std::string> cat = {"cat", download.string()};
  CHECK(run.sandbox.run(run.sandbox.wrap(cat, 30, false, {run.copies})).output == "every student's code");
  run.sandbox.hide = {download.string()};
  const tools::RunResult hidden = run.sandbox.run(run.sandbox.wrap(cat, 30, false, {run.copies}));
  fs::remove(download);
  CHECK(hidden.exited(0));
  CHECK(hidden.output == "");
}

TEST_CASE("fences that cannot be set up are the grader's failure, and a student cannot fake one" *
          doctest::skip(kNoMountNamespace)) {
  Run run;
  REQUIRE(run.sandbox.namespaces);
  // A student's program may exit 126, the status of a failed mount, and print what it likes:
  // its fences were up, so the run is its own, with its own output.
  const tools::RunResult own = run.sandbox.run(run.sandbox.wrap({"sh", "-c", "echo mine; exit 126"}, 30, false, {run.copies}));
  CHECK(own.exited(126));
  CHECK(own.output == "mine\n");
  // A build folder that is not there cannot be made read-only: the mount fails before the
  // command starts, twice, and the grader says it cannot grade rather than scoring the run.
  run.sandbox.build_dir = run.work + "/gone";
  CHECK_THROWS_AS(run.sandbox.run(run.sandbox.wrap({"true"}, 30, false, {run.copies})), grade::CannotGrade);
}

TEST_CASE("gradings at once take different student users, each free again when its grading ends" *
          doctest::skip(geteuid() != 0)) {
  // Two gradings in one process, as two in two processes: a lock belongs to its open file.
  std::optional<Run> first(std::in_place);
  const Run second;
  REQUIRE(first->sandbox.as_student);
  REQUIRE(second.sandbox.as_student);
  const unsigned uid = first->sandbox.student->uid();
  CHECK(uid != second.sandbox.student->uid());
  CHECK(contains(first->sandbox.describe(), "as user " + std::to_string(uid) + " (no other grading running here shares it)"));
  // A copy of a sandbox (a grading's context) holds its user as long as the original.
  std::optional<grade::Sandbox> copy = first->sandbox;
  first.reset();
  CHECK(Run().sandbox.student->uid() != uid);
  copy.reset();
  // Free again: taking every free uid of the pool takes it.
  std::vector<std::unique_ptr<grade::StudentUid>> held;
  while (std::unique_ptr<grade::StudentUid> taken = grade::StudentUid::try_take()) held.push_back(std::move(taken));
  CHECK(std::any_of(held.begin(), held.end(), [&](const auto& taken) { return taken->uid() == uid; }));
}

TEST_CASE("a grading waits while the others hold every student user, and goes on when one ends" *
          doctest::skip(geteuid() != 0)) {
  // Gradings at once hold every uid of the pool (make grade-class on a machine of 256 cores).
  std::vector<std::unique_ptr<grade::StudentUid>> held;
  while (std::unique_ptr<grade::StudentUid> uid = grade::StudentUid::try_take()) held.push_back(std::move(uid));
  // Fewer only where the passwd or group files name uids of the pool, or live processes run as them.
  CHECK(held.size() <= grade::kStudentUidPoolSize);
  REQUIRE(held.size() > grade::kStudentUidPoolSize / 2);
  std::atomic<unsigned> taken{0};
  std::thread waiting([&] { taken = grade::StudentUid::take()->uid(); });
  // Other gradings on this machine (the other tests) may end meanwhile: what they free is taken
  // here first (take() looks again once a second), so that the pool stays full.
  for (const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500); std::chrono::steady_clock::now() < until;) {
    if (std::unique_ptr<grade::StudentUid> freed = grade::StudentUid::try_take()) held.push_back(std::move(freed));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  CHECK(taken == 0);
  held.pop_back();
  waiting.join();
  CHECK(taken != 0);
}

TEST_CASE("one grading's student program cannot kill another grading's: kill -KILL -1" *
          doctest::skip(geteuid() != 0)) {
  // Two gradings at once (make grade-class): B's program sleeps while A's kills every process
  // its user may signal. Run as the same user, the attack kills the sleeper, so the test can fail.
  const Run a, b;
  REQUIRE(a.sandbox.as_student);
  auto sleeper = [](const Run& run) {
    return std::async(std::launch::async,
                      [&run] { return run.sandbox.run(run.sandbox.wrap({"sleep", "5"}, 30, false, {run.copies})); });
  };
  auto attack = [&a](const Run& victim) {
    const std::string uid = std::to_string(victim.sandbox.student->uid());
    for (int i = 0; i < 100 && !tools::run_command({"pgrep", "-u", uid, "-x", "sleep"}).exited(0); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    const tools::RunResult r = a.sandbox.run(a.sandbox.wrap({"sh", "-c", "kill -KILL -1"}, 30, false, {a.copies}));
    CAPTURE(r.output);
    CHECK(r.exited(0));
  };
  std::future<tools::RunResult> other = sleeper(b);
  attack(b);
  const tools::RunResult spared = other.get();
  CAPTURE(spared.output);
  CHECK(spared.exited(0));
  std::future<tools::RunResult> own = sleeper(a);
  attack(a);
  const tools::RunResult killed = own.get();
  CHECK(killed.signal == SIGKILL);
}
