// scripts/trace-summary, which reads the runs.tsv of make grade-class TRACE_RUNS=1: a class whose
// runs alone had the GPU to themselves, and whose profiled runs went one at a time, passes, with
// its sums and each grading's stretches of the GPU alone; a run beside a run alone, or two runs
// under Nsight Compute at once, is named and fails it; runs on different GPUs never meet; a
// folder without traces is refused.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tools/subprocess.h"
#include "tools/text.h"

namespace fs = std::filesystem;

namespace {

// A class's output folder with a runs.tsv per grading: RUNS maps a grading's folder to its lines.
std::string class_out(const std::string& name, const std::vector<std::pair<std::string, std::string>>& runs) {
  const fs::path out = fs::absolute("build/test/trace-summary-" + std::to_string(getpid()) + "-" + name);
  fs::remove_all(out);
  for (const auto& [grading, lines] : runs) {
    fs::create_directories(out / "students" / grading);
    std::ofstream(out / "students" / grading / "runs.tsv") << lines;
  }
  return out.string();
}

// A line of run_trace.h: asked at START, waited WAIT, ran RUN seconds, on GPU.
std::string line(double start, double wait, double run, const char* place, const char* program, const char* tool = "-",
                 const char* gpu = "m:0") {
  return std::to_string(start) + "\t" + std::to_string(wait) + "\t" + std::to_string(run) + "\t" + place + "\t" + program + "\t" +
         tool + "\tcase-XXXXXX\t" + gpu + "\n";
}

}  // namespace

TEST_SUITE("trace summary") {

TEST_CASE("runs alone with the GPU to themselves: the sums, one stretch alone per grading, no overlap") {
  const std::string out = class_out("fair", {
      {"a-1", line(100, 0, 2, "shared", "matmul_naive", "ncu") + line(102, 0, 1, "alone", "matmul_naive") +
                  line(103, 0, 1, "alone", "matmul_tiled")},
      {"b-2", line(100.5, 0, 1, "shared", "transpose", "compute-sanitizer") + line(101.5, 2.5, 1, "shared", "transpose")},
  });
  const tools::RunResult r = tools::run_command({"scripts/trace-summary", out});
  CAPTURE(r.output);
  CHECK(r.exited(0));
  CHECK(tools::contains(r.output, "gradings 2 on m:0, lab program runs 5 (2 alone), first run to last 5.0 s"));
  CHECK(tools::contains(r.output, "on m:0, a program of the class under way 5.0 s; alone 2.0 s, shared 3.0 s"));
  CHECK(tools::contains(r.output, "runs alone waited 0.0 s in all for their turn; runs shared waited 2.5 s"));
  // a-1 from 100 to 104, b-2 from 100.5 to 105 with 2.5 s of waiting: 2.5 of 8.5 s.
  CHECK(tools::contains(r.output, "gradings' seconds from their first run to their last 8.5 s, a run of theirs waiting for its turn 2.5 s (29%)"));
  CHECK(tools::contains(r.output, "shared runs' seconds by tool: - 1.0, compute-sanitizer 1.0, ncu 2.0"));
  CHECK(tools::contains(r.output, "stretches of the GPU alone per grading: 0 to 1, 1 in all"));
  CHECK(tools::contains(r.output, "runs alone with another program beside them: 0"));
  CHECK(tools::contains(r.output, "pairs of runs under Nsight Compute at once: 0"));
  fs::remove_all(out);
}

TEST_CASE("two runs under Nsight Compute at once are named once, and fail the check") {
  const std::string out = class_out("profiled", {
      {"a-1", line(100, 0, 2, "shared", "matmul_naive", "ncu") + line(102.5, 0, 1, "shared", "matmul_tiled", "ncu")},
      {"b-2", line(101, 0, 2, "shared", "transpose", "ncu") + line(101, 0, 2, "shared", "transpose", "compute-sanitizer")},
  });
  const tools::RunResult r = tools::run_command({"scripts/trace-summary", out});
  CAPTURE(r.output);
  CHECK(r.exited(1));
  CHECK(tools::count_of(r.output, "PROFILED AT ONCE on m:0: ") == 2);  // naive with transpose, transpose with tiled
  CHECK(tools::contains(r.output, "PROFILED AT ONCE on m:0: a-1's matmul_naive (100.000 to 102.000) and b-2's transpose (101.000 to 103.000)"));
  CHECK(tools::contains(r.output, "pairs of runs under Nsight Compute at once: 2"));
  CHECK(tools::contains(r.output, "runs alone with another program beside them: 0"));
  fs::remove_all(out);
}

TEST_CASE("a run beside a run alone is named, and fails the check; a grading's passes split by another's run are two stretches") {
  const std::string out = class_out("unfair", {
      {"a-1", line(100, 0, 1, "alone", "matmul_naive") + line(102, 0, 1, "alone", "matmul_tiled")},
      {"b-2", line(101.2, 0, 0.5, "shared", "transpose") + line(102.5, 0, 1, "shared", "dot_reduction", "ncu")},
  });
  const tools::RunResult r = tools::run_command({"scripts/trace-summary", out});
  CAPTURE(r.output);
  CHECK(r.exited(1));
  CHECK(tools::contains(r.output, "OVERLAP on m:0: a-1's run alone of matmul_tiled (102.000 to 103.000) beside b-2's dot_reduction ncu"));
  CHECK(tools::count_of(r.output, "OVERLAP on ") == 1);
  CHECK(tools::contains(r.output, "runs alone with another program beside them: 1"));
  CHECK(tools::contains(r.output, "stretches of the GPU alone per grading: 0 to 2, 2 in all"));
  fs::remove_all(out);
}

TEST_CASE("a timed pass's calls alone may go beside its own grading's timed passes, not beside another's run") {
  // A round (grading/core/turns.h): two timed passes set up at once, their windows one after another.
  auto timed = [](double start, double run, const char* place, const char* label, const char* program) {
    return std::to_string(start) + "\t0\t" + std::to_string(run) + "\t" + place + "\t" + program + "\t-\t" + label + "\tm:0\n";
  };
  const std::string round = timed(100, 3, "shared", "performance-aaaaaa", "matmul_naive") +
                            timed(101, 0.5, "timed", "performance-aaaaaa", "matmul_naive") +
                            timed(100, 3.5, "shared", "performance-bbbbbb", "transpose") +
                            timed(101.5, 0.5, "timed", "performance-bbbbbb", "transpose");
  const std::string fair = class_out("round", {{"a-1", round}, {"b-2", line(98, 0, 2, "shared", "dot_reduction")}});
  tools::RunResult r = tools::run_command({"scripts/trace-summary", fair});
  CAPTURE(r.output);
  CHECK(r.exited(0));
  CHECK(tools::contains(r.output, "lab program runs 3 (2 alone)"));
  CHECK(tools::contains(r.output, "alone 1.0 s"));
  CHECK(tools::contains(r.output, "stretches of the GPU alone per grading: 0 to 1, 1 in all"));
  CHECK(tools::contains(r.output, "on m:0, rounds 1: 3.5 s in all, median 3.5 s"));
  // From b-2's run at 98 to the round's end at 103.5, less the round: b-2's one program in 2 s.
  CHECK(tools::contains(r.output, "on m:0, programs started outside the rounds: 1 in 2.0 s, 0.5 a second"));
  // Each grading's round, wherever its runs are in its file.
  const std::string chain = class_out("rounds", {{"a-1", round},
                                                 {"b-2", timed(107, 1, "shared", "performance-eeeeee", "transpose") +
                                                             line(90, 0, 2, "shared", "transpose")},
                                                 {"c-3", timed(104, 1, "shared", "performance-ffffff", "transpose")}});
  r = tools::run_command({"scripts/trace-summary", chain});
  CAPTURE(r.output);
  CHECK(tools::contains(r.output, "on m:0, rounds 3: 5.5 s in all, median 1.0 s"));
  fs::remove_all(chain);
  // Another grading's run beside a window, and two windows of one grading at once, break the rule.
  const std::string unfair = class_out("round-broken", {
      {"a-1", round + timed(101.2, 0.2, "timed", "performance-cccccc", "matmul_tiled")},
      {"b-2", line(101.1, 0, 0.2, "shared", "dot_reduction")},
  });
  r = tools::run_command({"scripts/trace-summary", unfair});
  CAPTURE(r.output);
  CHECK(r.exited(1));
  CHECK(tools::contains(r.output, "beside b-2's dot_reduction"));
  CHECK(tools::contains(r.output, "beside a-1's matmul_tiled"));
  CHECK(tools::contains(r.output, "runs alone with another program beside them: 3"));
  // Nor may a solution's timed pass run beside a student's calls, of the same grading or not.
  const std::string mixed = class_out("round-mixed", {
      {"a-1", round + timed(101.6, 0.3, "shared", "performance-solution-dddddd", "transpose solution")},
  });
  r = tools::run_command({"scripts/trace-summary", mixed});
  CAPTURE(r.output);
  CHECK(r.exited(1));
  CHECK(tools::contains(r.output, "beside a-1's transpose solution"));
  fs::remove_all(fair);
  fs::remove_all(unfair);
  fs::remove_all(mixed);
}

TEST_CASE("runs on different GPUs, different machines' GPU 0, or the cores, never meet") {
  const std::string out = class_out("gpus", {
      {"a-1", line(100, 0, 2, "alone", "matmul_naive", "-", "m:0") + line(102, 0, 1, "alone", "matmul_tiled", "-", "m:0")},
      {"b-2", line(100.5, 0, 2, "shared", "transpose", "ncu", "m:1")},
      {"c-3", line(101, 0, 1, "shared", "dot_reduction", "ncu", "n:0")},  // beside b-2's, on another machine
      {"d-4", line(100, 0, 1, "shared", "matmul_naive", "-", "m:cpu")},   // a counting run (COUNTS=model), beside a-1's alone
  });
  const tools::RunResult r = tools::run_command({"scripts/trace-summary", out});
  CAPTURE(r.output);
  CHECK(r.exited(0));
  CHECK(tools::contains(r.output, "gradings 4 on m:0, m:1, m:cpu, n:0, lab program runs 5 (2 alone), first run to last 3.0 s"));
  CHECK(tools::contains(r.output, "on m:0, a program of the class under way 3.0 s; alone 3.0 s, shared 0.0 s"));
  CHECK(tools::contains(r.output, "on m:1, a program of the class under way 2.0 s; alone 0.0 s, shared 2.0 s"));
  CHECK(tools::contains(r.output, "on m:cpu, a program of the class under way 1.0 s; alone 0.0 s, shared 1.0 s"));
  CHECK(tools::contains(r.output, "stretches of the GPU alone per grading: 0 to 1, 1 in all"));
  CHECK(tools::contains(r.output, "runs alone with another program beside them: 0"));
  CHECK(tools::contains(r.output, "pairs of runs under Nsight Compute at once: 0"));
  fs::remove_all(out);
}

TEST_CASE("a folder without traces, or no folder, is refused with exit 2") {
  const std::string out = class_out("empty", {});
  fs::create_directories(out);
  tools::RunResult r = tools::run_command({"scripts/trace-summary", out});
  CHECK(r.exited(2));
  CHECK(tools::contains(r.output, "no runs.tsv under " + out + "/students (make grade-class TRACE_RUNS=1 writes them)"));
  r = tools::run_command({"scripts/trace-summary"});
  CHECK(r.exited(2));
  CHECK(tools::contains(r.output, "usage: scripts/trace-summary OUT"));
  fs::remove_all(out);
}
}
