// The grader against hostile and broken submissions and a broken machine: a submission cannot
// make itself pass, read what it should not, plant files for the next grading or escape its
// limits; a hang costs seconds; the grader's own failures and the machine's are "could not
// grade" (exit 2), never the student's 0. On the CPU backend; the runs share one build folder
// (tests/grading/grade_runs.h), except the tamper test, which needs a fresh one (the grader's
// default where it has no namespaces).
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/labs.h"
#include "grading/core/progress.h"
#include "grading/core/student_uid.h"
#include "grading/core/utf8.h"
#include "tests/grading/grade_class_tests.h"
#include "tests/grading/grade_runs.h"
#include "tests/lab_programs.h"
#include "tools/subprocess.h"
#include "tools/text.h"

using namespace grade_test;

TEST_SUITE("grade") {

TEST_CASE("a program that hangs where no per-shape limit watches it costs seconds, not the rubric's minutes" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  // build/corpus/tool_hang computes correctly, but sleeps forever when a checking tool is loaded
  // into it (here: AddressSanitizer's runtime). The default rubric gives a run 300 s; a run
  // outside a pass gets its floor (30 s on this backend), and the hang ends the check:
  // ThreadSanitizer's build does not run after it.
  const Graded g = run_grader({"--src", "build/corpus/tool_hang", "--lab", "01"});
  CAPTURE(g.run.output);
  REQUIRE(g.run.exited(0));
  CHECK(contains(check_line(g.run.output, "correctness"), ": OK"));
  const std::string safety = check_line(g.run.output, "safety");
  CHECK(contains(safety, ": FAIL"));
  CHECK(contains(g.run.output, "the AddressSanitizer build on M=67 N=45 K=33 timed out after 30.0 s:"));
  CHECK(contains(g.run.output, "(stopped after 30 s, the least time any such run gets)"));
  const size_t open = safety.find('(');
  REQUIRE(open != std::string::npos);
  CHECK(std::stod(safety.substr(open + 1)) < 45);
}

TEST_CASE("a lab file that is a link, a FIFO or empty fails the build with a line that says so" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  const std::string root = "build/test/odd-files";
  tools::run_command({"rm", "-rf", root});
  auto lab_dir = [&](const std::string& name) {
    const std::string dir = root + "/" + name + "/01_matmul_naive";
    tools::run_command({"mkdir", "-p", dir});
    return dir;
  };
  const std::string solution = std::filesystem::current_path().string() + "/solutions/01_matmul_naive";
  tools::run_command({"ln", "-s", solution + "/matmul_naive.cu", lab_dir("file_link") + "/matmul_naive.cu"});
  tools::run_command({"mkdir", "-p", root + "/folder_link"});
  tools::run_command({"ln", "-s", solution, root + "/folder_link/01_matmul_naive"});
  tools::run_command({"mkfifo", lab_dir("fifo") + "/matmul_naive.cu"});
  std::ofstream(lab_dir("empty") + "/matmul_naive.cu") << "";
  const std::pair<const char*, const char*> cases[] = {
      {"file_link", "matmul_naive.cu is a symbolic link: hand in the file itself"},
      {"folder_link", "01_matmul_naive is a symbolic link: hand in the file itself"},
      {"fifo", "matmul_naive.cu is not a regular file"},
      {"empty", "matmul_naive.cu does not define matmul_naive(...), a launcher the lab program calls"},
  };
  for (const auto& [name, says] : cases) {
    SUBCASE(name) {
      const Graded g = grade_fast(root + "/" + name, "01");
      CAPTURE(g.run.output);
      REQUIRE(g.run.exited(0));
      CHECK(contains(check_line(g.run.output, "build"), ": FAIL"));
      CHECK(contains(g.run.output, says));
      CHECK(last_line(g.run.output) == "Score: 0/8");
    }
  }
}

TEST_CASE("a hostile submission cannot make itself pass, even where namespaces are missing" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  // It computes correctly, then rewrites the reports, replaces its other builds (the watched
  // and the sanitizers') with a script that exits 0, and leaves a daemon rewriting the reports (build/corpus/tamper). With
  // no read-only view of the builds, the fingerprints catch it.
  const std::string out = "build/grade-test-reports/tamper";
  const Graded g = run_grader({"--src", "build/corpus/tamper", "--lab", "01", "--rubric", "tests/fixtures/rubric-fast.txt",
                          "--no-namespaces"},
                         /*fresh_build=*/true, out);
  CAPTURE(g.run.output);
  REQUIRE(g.run.exited(0));
  // The first build it replaces to run is the watched one, the correctness check's third pass.
  CHECK(contains(check_line(g.run.output, "correctness"), ": FAIL"));
  CHECK(contains(g.run.output, "changed after it was built"));
  CHECK(last_line(g.run.output) == "Score: 2.3/8");
  // The reports are the grader's, written after every process of the submission was killed.
  tools::run_command({"sleep", "0.5"});
  const std::string json = read_file(out + "/results.json");
  CHECK(contains(json, "\"score\": 2.3"));
  CHECK_FALSE(contains(json, "999"));
  CHECK_FALSE(tools::run_command({"pgrep", "-x", "tamper_daemon"}).exited(0));
}

TEST_CASE("a submission's build reads its own file and the lab's headers, nothing else" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  // The solution, included by the name the checkout gives it, by its absolute path, and by a
  // path that climbs out of wherever the private copy is, built by macros: the build does not
  // see it, nor a header of the shared library or of the host tools by its name. A file of the
  // checkout it does see, but that is not one of the lab's headers (the host tools' text.h, by its
  // absolute path), is refused after the build.
  const std::string root = "build/test/includes";
  const std::string checkout = std::filesystem::current_path().string();
  const std::string solution = checkout + "/solutions/01_matmul_naive/matmul_naive.cu";
  const std::string solved = read_file("solutions/01_matmul_naive/matmul_naive.cu");
  const std::pair<const char*, std::string> cases[] = {
      {"by_name", "#include \"solutions/01_matmul_naive/matmul_naive.cu\"\n"},
      {"absolute", "#include \"" + solution + "\"\n"},
      {"by_macro", "#define TEXT(x) #x\n#define PATH(x) TEXT(x)\n#include PATH(../../../../../../../../../.." + solution + ")\n"},
      {"library", "#include \"common/problems.h\"\n" + solved},
      {"host_tools", "#include \"tools/subprocess.h\"\n" + solved},
      {"outside", "#include \"" + checkout + "/tools/text.h\"\n" + solved},
  };
  for (const auto& [name, text] : cases) {
    SUBCASE(name) {
      const std::string dir = root + "/" + name + "/01_matmul_naive";
      tools::run_command({"mkdir", "-p", dir});
      std::ofstream(dir + "/matmul_naive.cu") << text;
      const Graded g = grade_fast(root + "/" + name, "01");
      CAPTURE(g.run.output);
      REQUIRE(g.run.exited(0));
      CHECK(contains(check_line(g.run.output, "build"), ": FAIL"));
      if (std::string(name) == "outside") {
        CHECK(contains(g.run.output, "is none of the lab's headers"));
      } else {
        CHECK(contains(g.run.output, "No such file or directory"));
        CHECK(contains(g.run.output, "a lab file may read the lab's headers"));
      }
      CHECK(last_line(g.run.output) == "Score: 0/8");
    }
  }
  SUBCASE("every lab header is welcome by the name lab files include it, those of released skeletons among them") {
    // The lab's headers are the files of public/, each included by its path under it. Skeletons
    // handed out earlier include these names, and must build and grade as they did.
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::recursive_directory_iterator("public")) {
      if (entry.is_regular_file()) names.push_back(std::filesystem::relative(entry.path(), "public").string());
    }
    for (const char* released : {"common/ceil_div.h", "common/cuda_check.h", "common/exit_codes.h", "common/grid_limits.h",
                                 "harness/launchers.h"}) {
      CHECK_MESSAGE(std::find(names.begin(), names.end(), released) != names.end(), released);
    }
    std::string includes;
    for (const std::string& name : names) includes += "#include \"" + name + "\"\n";
    const std::string dir = root + "/every_header/01_matmul_naive";
    tools::run_command({"mkdir", "-p", dir});
    std::ofstream(dir + "/matmul_naive.cu") << includes << solved;
    const Graded g = grade_fast(root + "/every_header", "01");
    CAPTURE(includes);
    CAPTURE(g.run.output);
    REQUIRE(g.run.exited(0));
    CHECK(last_line(g.run.output) == "Score: 8/8");
  }
  SUBCASE("the toolkit's and the compiler's own headers are welcome") {
    // The fair side: a correct file that includes more of the toolkit and the C++ library, and
    // defines a variable and helpers of its own that instantiate the library's templates.
    const std::string dir = root + "/system/01_matmul_naive";
    tools::run_command({"mkdir", "-p", dir});
    std::ifstream in("solutions/01_matmul_naive/matmul_naive.cu");
    std::ofstream(dir + "/matmul_naive.cu")
        << "#include <cuda_runtime_api.h>\n#include <device_launch_parameters.h>\n#include <cmath>\n#include <vector>\n"
        << in.rdbuf()
        << "\nfloat last_total = 0.0f;  // a variable at file scope, as a __device__ array of partial sums is\n"
           "std::vector<float> copy_of(const float* p, int n) { return std::vector<float>(p, p + n); }\n"
           "float sum_of(const std::vector<float>& v) { float s = 0; for (float x : v) s += x; return s; }\n";
    const Graded g = grade_fast(root + "/system", "01");
    CAPTURE(g.run.output);
    REQUIRE(g.run.exited(0));
    CHECK(last_line(g.run.output) == "Score: 8/8");
  }
}

TEST_CASE("a folder of any name is graded like any other, and no command in a name runs" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  const std::string root = std::filesystem::absolute("build/test/names").string();
  tools::run_command({"rm", "-rf", root});
  const std::string name = "José Ñ O'Brien \"q\" $(touch ran1) `touch ran2` (p) inj$(shell touch ran3)";
  const std::string dir = root + "/" + name + "/01_matmul_naive";
  tools::run_command({"mkdir", "-p", dir});
  tools::run_command({"cp", "solutions/01_matmul_naive/matmul_naive.cu", dir});
  const Graded g = grade_fast(root + "/" + name, "01");
  CAPTURE(g.run.output);
  REQUIRE(g.run.exited(0));
  CHECK(last_line(g.run.output) == "Score: 8/8");
  // make grade hands the name on quoted, expanding nothing in it (-n: what it would run).
  const tools::RunResult make = tools::run_command({"make", "-n", "grade", "SRC=" + root + "/" + name, "LAB=01"});
  CAPTURE(make.output);
  CHECK(contains(make.output, "--src '" + root + "/José Ñ O'\\''Brien \"q\" $(touch ran1) `touch ran2` (p) inj$(shell touch ran3)'"));
  for (const char* ran : {"ran1", "ran2", "ran3"}) CHECK_FALSE(std::filesystem::exists(ran));

  // A newline and a tab, through make itself: make runs each line of a recipe in a shell of its
  // own, so a name's newline must reach the shell quoted, not as a line break. In the tests'
  // build folder, warm (build/grade-build, make grade's own, would build every flavor afresh).
  const std::string odd = root + "/line one\nline two\tend";
  tools::run_command({"mkdir", "-p", odd + "/01_matmul_naive"});
  tools::run_command({"cp", "solutions/01_matmul_naive/matmul_naive.cu", odd + "/01_matmul_naive"});
  tools::RunOptions options;
  options.env = {"MAKEFLAGS=", "MAKELEVEL="};
  options.timeout_s = 600;
  const tools::RunResult graded = tools::run_command({"make", "--no-print-directory", "grade", "SRC=" + odd, "LAB=01",
                                                      "RUBRIC=tests/fixtures/rubric-fast.txt", std::string("GRADE_BUILD=") + kSharedBuild},
                                                 options);
  CAPTURE(graded.output);
  CHECK(graded.exited(0));
  CHECK(contains(graded.output, "make grade: " + odd + " on the CPU backend"));
  CHECK(last_line(graded.output) == "Score: 8/8");
}

TEST_CASE("a submission cannot plant a grader, a rubric or a Makefile for the next grading" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  // build/corpus/plant unmounts or remounts the checkout writable if it can, then writes a fake
  // build/host/grade and appends to the rubric and the Makefile of the checkout it is told of.
  const std::vector<std::string> trusted = {"build/host/grade", "grading/rubric.txt", "Makefile"};
  auto sums = [&] {
    std::string text;
    for (const std::string& path : trusted) text += tools::run_command({"sha256sum", path}).output;
    return text;
  };
  const std::string before = sums();
  const Graded g = grade_fast("build/corpus/plant", "01", {},
                              {"PLANT_CHECKOUT=" + std::filesystem::current_path().string()});
  CAPTURE(g.run.output);
  REQUIRE(g.run.exited(0));
  CHECK(contains(g.run.output, "the checkout and the builds read-only"));
  CHECK(last_line(g.run.output) == "Score: 8/8");
  CHECK(sums() == before);
  // The next grading is the real grader's.
  const tools::RunResult next = tools::run_command({"build/host/grade", "--help"});
  CHECK(contains(next.output, "Grades the labs of a source folder"));
}

TEST_CASE("the fences hold: memory, file size, network, a flood of output, a storm of processes" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  // build/corpus/fences spoils its result with 1001, 1002, 1003 or 1004 when a fence gives way,
  // prints 100 MB and leaves 300 sleeping processes behind in every run.
  const Graded g = grade_fast("build/corpus/fences", "01");
  CAPTURE(g.run.output);
  REQUIRE(g.run.exited(0));
  CHECK(last_line(g.run.output) == "Score: 8/8");
  // A root grader (CI's) hands student code to a user of its own, whom the process limit binds.
  if (geteuid() == 0) CHECK(contains(g.run.output, " (no other grading running here shares it)"));
  CHECK(contains(g.run.output, "4096 processes and threads of its user"));
  CHECK_FALSE(tools::run_command({"pgrep", "-x", "fence_child"}).exited(0));
  // Where namespaces are missing the network is reachable, and the submission says so (the test can fail).
  const Graded open = grade_fast("build/corpus/fences", "01", {"--no-namespaces"});
  CAPTURE(open.run.output);
  CHECK(contains(open.run.output, "network reachable"));
  CHECK(contains(open.run.output, "got 1003"));
}

TEST_CASE("a sanitizer's build is held to the rubric's memory.run too, and the report names the limit" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  // build/corpus/memory_hog takes 3 GiB in ThreadSanitizer's build only, which has no data limit
  // and does not hold its own RSS limit, in an orphan of a double fork that the run waits for:
  // left alone it passes. The rubric here gives a run 512 MiB. Without namespaces the orphan
  // leaves the run's process tree for the grader's (in a process namespace it stays under the
  // namespace's first process): it counts against the run all the same.
  const std::string rubric = "build/test/rubric-memory.txt";
  std::ofstream(rubric) << "memory.run = 512\n" << lab_test::read_file("tests/fixtures/rubric-fast.txt");
  const std::string build = "build/grade-test-reports/memory-build";
  lab_test::reuse_grader_builds(build);
  const std::vector<std::vector<std::string>> ways = {{}, {"--build-dir", build, "--no-namespaces"}};
  for (const std::vector<std::string>& way : ways) {
    CAPTURE(way.size());
    std::vector<std::string> args = {"--src", "build/corpus/memory_hog", "--lab", "01", "--rubric", rubric};
    args.insert(args.end(), way.begin(), way.end());
    const Graded g = run_grader(args, /*fresh_build=*/!way.empty());
    CAPTURE(g.run.output);
    REQUIRE(g.run.exited(0));
    CHECK(contains(g.run.output, "512 MiB of memory"));  // the fences' line says the limit
    CHECK(contains(check_line(g.run.output, "correctness"), ": OK"));
    CHECK(contains(check_line(g.run.output, "safety"), ": FAIL"));
    CHECK(contains(g.run.output, "the ThreadSanitizer build on M=67 N=45 K=33 took more memory than a run may: (stopped: its resident "
                                 "memory passed the grader's limit of 512 MiB, the rubric's memory.run)"));
  }
  tools::run_command({"rm", "-rf", build});
  std::remove(rubric.c_str());
}

TEST_CASE("labs graded at once: no student program runs beside a solution's, which it could kill" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  // Lab 01 kills every solution program it finds while it runs (build/corpus/killer); lab 04, a
  // skeleton begun (a line added: an untouched one runs nothing), is graded meanwhile by the
  // second job, its check of correctness starting with the solution's runs of the shapes (the
  // tall one takes seconds: the killer's runs start meanwhile). A shape whose solution run died
  // is left out of the score: with a kernel wrong at it, a shortcut to points. Without
  // namespaces, where the killer sees the other processes of its user (a process namespace of
  // its own would hide them), in a build folder of its own; correctness only
  // (tests/fixtures/rubric-turns.txt).
  const std::string root = "build/grade-test-reports/killer-src";
  const std::string build = "build/grade-test-reports/killer-build";
  tools::run_command({"rm", "-rf", root, build});
  tools::run_command({"mkdir", "-p", root});
  tools::run_command({"cp", "-r", "build/corpus/killer/01_matmul_naive", "build/skeletons/04_transpose", root + "/"});
  std::ofstream(root + "/04_transpose/transpose.cu", std::ios::app) << "// begun\n";
  lab_test::reuse_grader_builds(build);
  const Graded g = run_grader({"--src", root, "--rubric", "tests/fixtures/rubric-turns.txt", "--jobs", "2",
                               "--build-dir", build, "--no-namespaces"},
                              /*fresh_build=*/true);
  CAPTURE(g.run.output);
  REQUIRE(g.run.exited(0));
  CHECK_FALSE(contains(g.run.output, "left out"));
  CHECK(contains(g.run.output, "\nlab 01: 5/5"));  // the killer is the solution, besides
  CHECK(contains(g.run.output, "\nlab 04: 0/6"));
  CHECK_FALSE(contains(g.run.output, "not started"));
  tools::run_command({"rm", "-rf", build});
}

TEST_CASE("a student's program sees neither the solution nor its program, the history, another run's outputs, "
          "another grading's reports or scratch folder, and leaves nothing in /tmp" * doctest::skip(lab_test::kNoCpuSolutions)) {
  // build/corpus/peek spoils its result with 1005-1011 when it can read the solution's source,
  // the checkout's .git, the solution's lab program, the scratch folder's other runs, or what
  // is planted here for it: a report in build/grade, one in a folder given to --hide (as make
  // grade-class gives its own), and another grading's scratch folder in /tmp. It leaves a file
  // in /tmp, /var/tmp and /dev/shm.
  namespace fs = std::filesystem;
  const fs::path report = fs::absolute("build/grade/peek-planted/summary.txt");
  const fs::path hidden = fs::absolute("build/test/peek-class/students/other/summary.txt");
  const fs::path scratch = "/tmp/grade-peek-planted/secret";
  for (const fs::path& planted : {report, hidden, scratch}) lab_test::put(planted, "Score: 8/8\n");
  tools::run_command({"chmod", "-R", "a+rX", "/tmp/grade-peek-planted", report.parent_path().string(), "build/test/peek-class"});
  const std::vector<std::string> leftovers = {"/tmp/peek-left", "/var/tmp/peek-left", "/dev/shm/peek-left"};
  for (const std::string& left : leftovers) fs::remove(left);
  const std::vector<std::string> env = {"PEEK_CHECKOUT=" + fs::current_path().string(), "PEEK_REPORT=" + report.string(),
                                        "PEEK_HIDDEN=" + hidden.string()};
  const Graded g = grade_fast("build/corpus/peek", "01", {"--hide", "build/test/peek-class"}, env);
  CAPTURE(g.run.output);
  REQUIRE(g.run.exited(0));
  CHECK(last_line(g.run.output) == "Score: 8/8");
  for (const std::string& left : leftovers) CHECK_MESSAGE(!fs::exists(left), left);
  // Where namespaces are missing and student code runs as the grader's user, all of it is there
  // (the test can fail).
  const Graded open = grade_fast("build/corpus/peek", "01", {"--no-namespaces"}, env);
  CAPTURE(open.run.output);
  CHECK(contains(open.run.output, "got 10"));
  CHECK(fs::exists("/tmp/peek-left"));
  for (const std::string& left : leftovers) fs::remove(left);
  fs::remove_all("/tmp/grade-peek-planted");
  fs::remove_all(report.parent_path());
  fs::remove_all("build/test/peek-class");
}

// A grader that is not root: a user of the pool here, who may make a user namespace where this
// machine lets unprivileged users (Debian and Ubuntu do by default).
const bool kNoUserNamespace = geteuid() != 0 ||
    !tools::run_command(as_user(*grade::StudentUid::take(), {"unshare", "--user", "--map-root-user", "--mount", "--net", "true"})).exited(0);

TEST_CASE("a grader that is not root fences student code in a user namespace" *
          doctest::skip(lab_test::kNoCpuSolutions || kNoUserNamespace)) {
  // The peek entry, graded by a user of the pool: its programs run as that user too, in namespaces of
  // their own, and find neither the solution, the history, the solution's program nor another
  // run's outputs. The grader's own folders are in /tmp, its build folder (the user's) holding
  // a copy of what the tests' grader built, so that only the peek entry is built.
  const std::string out = "/tmp/grade-not-root-" + std::to_string(getpid());
  tools::RunOptions options;
  options.timeout_s = 900;
  options.env = {"PEEK_CHECKOUT=" + std::filesystem::current_path().string()};
  const std::unique_ptr<grade::StudentUid> uid = grade::StudentUid::take();
  lab_test::reuse_grader_builds(out + "/build");
  REQUIRE(tools::run_command({"chown", "-R", std::to_string(uid->uid()) + ":" + std::to_string(uid->uid()), out}).exited(0));
  const tools::RunResult r = tools::run_command(as_user(*uid, {"build/host/grade", "--backend", "cpu", "--seed", "4242", "--src", "build/corpus/peek",
                                                               "--lab", "01", "--rubric", "tests/fixtures/rubric-fast.txt", "--out", out,
                                                               "--build-dir", out + "/build"}),
                                            options);
  CAPTURE(r.output);
  REQUIRE(r.exited(0));
  CHECK(contains(r.output, "(sandbox: each student process runs in a folder of its own; limits:"));
  CHECK(contains(r.output, "no network; the checkout and the builds read-only)"));
  CHECK(last_line(r.output) == "Score: 8/8");
  tools::run_command({"rm", "-rf", out});
}

TEST_CASE("eight gradings at once from one checkout each get their own report" * doctest::skip(lab_test::kNoCpuSolutions)) {
  // Four copies of the solution and four of the skeleton, in folders of their own, graded at
  // once into the default report folders (build/grade/<run>/), each into its own history.
  const std::string root = "build/test/concurrent";
  tools::run_command({"rm", "-rf", root});
  std::vector<std::thread> runs;
  std::vector<tools::RunResult> results(8);
  for (int i = 0; i < 8; ++i) {
    const std::string src = root + "/" + std::to_string(i);
    tools::run_command({"mkdir", "-p", src + "/01_matmul_naive"});
    std::filesystem::remove_all(std::filesystem::path(grade::history_path(grade::kProgressRoot, src)).parent_path());
    tools::run_command({"cp", i % 2 ? "labs/01_matmul_naive/matmul_naive.cu" : "solutions/01_matmul_naive/matmul_naive.cu",
                        src + "/01_matmul_naive/"});
    runs.emplace_back([&results, i, src] {
      tools::RunOptions options;
      options.timeout_s = 1200;
      results[i] = tools::run_command({"build/host/grade", "--backend", "cpu", "--seed", "4242", "--build-dir", kSharedBuild,
                                       "--src", src, "--lab", "01", "--rubric", "tests/fixtures/rubric-fast.txt"},
                                    options);
    });
  }
  for (std::thread& t : runs) t.join();
  std::vector<std::string> folders;
  for (int i = 0; i < 8; ++i) {
    const std::string& out = results[i].output;
    CAPTURE(out);
    REQUIRE(results[i].exited(0));
    const size_t at = out.find("(reports: ");
    REQUIRE(at != std::string::npos);
    const std::string folder = out.substr(at + 10, out.find("/results.json", at) - at - 10);
    folders.push_back(folder);
    const std::string json = read_file(folder + "/results.json");
    CHECK(contains(json, i % 2 ? "\"score\": 0," : "\"score\": 8,"));
    CHECK(contains(json, root + "/" + std::to_string(i)));
    const grade::History history = grade::read_history(grade::history_path(grade::kProgressRoot, root + "/" + std::to_string(i)));
    CHECK(history.problems.empty());
    REQUIRE(history.lines.size() == 1);
    CHECK(history.lines[0].points == (i % 2 ? 0 : 8));
    CHECK(history.lines[0].report == folder);
  }
  std::sort(folders.begin(), folders.end());
  CHECK(std::unique(folders.begin(), folders.end()) == folders.end());
}

TEST_CASE("the grader's own failures exit 2 with a message") {
  struct Bad {
    std::vector<std::string> args;
    const char* says;
  };
  const Bad cases[] = {
      {{"--backend", "tpu"}, "BACKEND must be gpu or cpu"},
      {{"--src", "no/such/folder"}, "no folder 'no/such/folder'"},
      {{"--lab", "09"}, "no lab '09'"},
      {{"--rubric", "tests/fixtures/skeleton/solution.cu"}, "solution.cu:1: expected 'key = value'"},
      {{"--seed", "x"}, "--seed takes a whole number"},
      {{"--rubric", "build/test/rubric-bad-main.txt"}, "main shape '3x3x3' is not one of the shapes listed above it"},
      {{"--rubric", "build/test/rubric-bad-once.txt"}, "once shape '9x9x9' is not one of the shapes listed above it"},
      // A rubric of before the technique was measured.
      {{"--rubric", "build/test/rubric-old-technique.txt"},
       "rubric-old-technique.txt:2: technique is none, or one or more of reuse=BYTES_PER_FMA, outputs_per_thread=N, "
       "coalesced=SHARE, bank_conflicts=WAYS and one_pass"},
  };
  std::ofstream("build/test/rubric-old-technique.txt") << "[02_matmul_tiled]\ntechnique = shared_memory\n";
  // A main shape must be one of the lab's shapes.
  std::ofstream("build/test/rubric-bad-main.txt") << "[01_matmul_naive]\nshapes = 17x31x13\nmain_shapes = 3x3x3\n";
  std::ofstream("build/test/rubric-bad-once.txt") << "[01_matmul_naive]\nshapes = 17x31x13\nonce_shapes = 9x9x9\n";
  const std::string out = "build/test/could-not-grade";
  for (const Bad& bad : cases) {
    CAPTURE(std::string(bad.says));
    // An earlier run's report, which must not pass for this one's.
    tools::run_command({"mkdir", "-p", out});
    std::ofstream(out + "/results.json") << "{\"score\": 58, \"tests\": []}\n";
    std::vector<std::string> argv = {"build/host/grade", "--out", out};
    argv.insert(argv.end(), bad.args.begin(), bad.args.end());
    const tools::RunResult r = tools::run_command(argv);
    CHECK_MESSAGE(r.exited(2), r.describe() << ": " << r.output);
    CHECK(contains(r.output, bad.says));
    const std::string json = read_file(out + "/results.json");
    if (std::string(bad.says).rfind("--seed", 0) == 0) {
      CHECK(contains(json, "\"score\": 58"));  // the arguments never got as far as naming the folder
    } else {
      CHECK(contains(json, "\"score\": 0,"));
      CHECK(contains(json, "could not grade this submission: "));
    }
  }
}

// Whether this machine lets the tests make a mount namespace (to put a tiny disk under /tmp).
using lab_test::kNoMountNamespace;

// Runs the grader on SUBMISSION lab 01 under PREFIX (a command that sets up a fault), into OUT
// over an earlier run's report, and returns the run and the results.json it left.
Graded grade_with_fault(const std::vector<std::string>& prefix, const std::string& submission, const std::string& out,
                        const std::vector<std::string>& more_args = {}) {
  tools::run_command({"mkdir", "-p", out});
  tools::run_command({"chmod", "777", out});
  std::ofstream(out + "/results.json") << "{\"score\": 58, \"tests\": []}\n";
  std::vector<std::string> argv = prefix;
  argv.insert(argv.end(), {"build/host/grade", "--src", submission, "--lab", "01", "--out", out});
  argv.insert(argv.end(), more_args.begin(), more_args.end());
  Graded g;
  tools::RunOptions options;
  options.timeout_s = 600;
  g.run = tools::run_command(argv, options);
  g.results_json = read_file(out + "/results.json");
  return g;
}

TEST_CASE("a fault of the machine is 'could not grade' (exit 2), never the student's 0") {
  SUBCASE("a missing tool") {
    const Graded g = grade_with_fault({"env", "PATH=/nonexistent"}, "labs", "build/test/fault-tool");
    CAPTURE(g.run.output);
    CHECK(g.run.exited(2));
    CHECK(contains(g.run.output, "'make' is not installed"));
    CHECK(contains(g.results_json, "could not grade this submission: "));
  }
  SUBCASE("a child of the grader killed") {
    // A make that is killed as soon as it starts: the solution's build, the first, fails.
    tools::run_command({"mkdir", "-p", "build/test/fault-bin"});
    std::ofstream("build/test/fault-bin/make") << "#!/bin/sh\nkill -KILL $$\n";
    tools::run_command({"chmod", "755", "build/test/fault-bin/make"});
    const std::string path = std::filesystem::absolute("build/test/fault-bin").string() + ":" + std::getenv("PATH");
    const Graded g = grade_with_fault({"env", "PATH=" + path}, "labs", "build/test/fault-killed");
    CAPTURE(g.run.output);
    CHECK(contains(g.run.output, "(make killed by SIGKILL)"));
    // Where the solution is missing (a student's release), the student's own build is the
    // first: the report says what happened, but cannot tell it from a build the file broke.
    if (!lab_test::kNoSolutions) CHECK(g.run.exited(2));
  }
  SUBCASE("a lab file the grader may not read") {
    // Root reads anything: as root, the grader runs as a user of the pool for this one.
    const std::string dir = "/tmp/fault-unreadable/01_matmul_naive";
    tools::run_command({"mkdir", "-p", dir});
    std::ofstream(dir + "/matmul_naive.cu") << "// a lab file\n";
    tools::run_command({"chmod", "000", dir + "/matmul_naive.cu"});
    const std::unique_ptr<grade::StudentUid> uid = geteuid() == 0 ? grade::StudentUid::take() : nullptr;
    const Graded g = grade_with_fault(uid ? as_user(*uid) : std::vector<std::string>{}, "/tmp/fault-unreadable",
                                      "/tmp/fault-unreadable-out");
    CAPTURE(g.run.output);
    CHECK(g.run.exited(2));
    CHECK(contains(g.run.output, "cannot read /tmp/fault-unreadable/01_matmul_naive/matmul_naive.cu"));
    CHECK(contains(g.results_json, "could not grade this submission: "));
    tools::run_command({"rm", "-rf", "/tmp/fault-unreadable", "/tmp/fault-unreadable-out"});
  }
}

TEST_CASE("a root grader in a checkout that its student user cannot read says so (exit 2)" *
          doctest::skip(geteuid() != 0 || kNoMountNamespace)) {
  // A checkout in a folder only root may enter (as under /root): the user who builds and runs
  // student code for a root grader, could do neither, and no student may lose points for it.
  const std::string home = std::filesystem::temp_directory_path() / ("root-only-" + std::to_string(getpid()));
  const std::string copy = home + "/checkout";
  std::filesystem::create_directories(copy + "/build");
  chmod(home.c_str(), 0700);
  REQUIRE(lab_test::copy_checkout(copy));
  REQUIRE(tools::run_command({"cp", "-a", "build/host", copy + "/build/"}).exited(0));
  tools::RunOptions options;
  options.cwd = copy;
  const tools::RunResult r = tools::run_command({"build/host/grade", "--backend", "cpu", "--src", "labs", "--lab", "01", "--out", home + "/out"}, options);
  CAPTURE(r.output);
  CHECK(r.exited(2));
  CHECK(contains(r.output, ", which runs student code for a grader that is root, cannot read " + copy));
  CHECK(contains(read_file(home + "/out/results.json"), "could not grade this submission: "));
  std::filesystem::remove_all(home);
}

TEST_CASE("a full disk is 'could not grade' (exit 2), never the student's 0" *
          doctest::skip(lab_test::kNoCpuSolutions || kNoMountNamespace)) {
  // The grader's build and scratch folders on a disk of 2 MiB: the solution's build runs out of
  // room before the student's starts. The disk is mounted, in a namespace of the grader's own,
  // over a folder outside the checkout wherever that is (/mnt), which the student user can read.
  const Graded g = grade_with_fault({"unshare", "--mount", "--", "sh", "-c",
                                     "mount -t tmpfs -o size=2m,mode=1777 tmpfs /mnt && TMPDIR=/mnt exec \"$@\"", "sh"},
                                    "solutions", "build/test/fault-disk", {"--build-dir", "/mnt/build"});
  CAPTURE(g.run.output);
  CHECK(g.run.exited(2));
  CHECK(contains(g.run.output, "does not build here"));
  CHECK(contains(g.results_json, "could not grade this submission: "));
}

}  // TEST_SUITE
