// The performance targets of a copy without solutions (common/targets.h, grading/core/targets.h): the
// file reads back as written, a malformed line is named with its line, a target is found by its
// GPU, part and shape only; the grader refuses a malformed file and a record run it cannot make,
// before it builds anything; and the committed file parses, each of its targets a part and
// performance shape of the rubric. The solution's times kept for a class's gradings
// (grading/core/kept_times.h): where, and when not.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/problems.h"
#include "common/targets.h"
#include "grading/core/kept_times.h"
#include "grading/core/rubric.h"
#include "grading/core/targets.h"
#include "tests/lab_programs.h"
#include "tools/subprocess.h"

namespace {

namespace fs = std::filesystem;
using lab_test::contains;

const char* const kH100 = "NVIDIA H100 80GB HBM3";

lab::Target target(const std::string& gpu, const std::string& part, const std::string& shape, double share) {
  return {gpu, part, shape, "cuBLAS SGEMM (fp32)", share, "2026-11-25", "e18164b", "make bench"};
}

// Parses TEXT; the error when it does not.
std::string parse_error(const std::string& text) {
  std::vector<lab::Target> targets;
  std::string error;
  CHECK_FALSE(lab::parse_targets(text, "targets.txt", &targets, &error));
  return error;
}

// The rubric's graded parts, by their section.
const grade::LabRubric& rubric_part(const grade::Rubric& rubric, const std::string& id) {
  for (const grade::LabRubric& l : rubric.labs) {
    if (l.step.id == id) return l;
  }
  FAIL("no part " << id << " in the rubric");
  return rubric.labs.front();
}

grade::Rubric read_rubric() {
  std::vector<lab::LabEntry> labs;
  grade::Rubric rubric;
  std::string error;
  REQUIRE_MESSAGE(lab::read_labs("labs.txt", &labs, &error), error);
  REQUIRE_MESSAGE(grade::read_rubric("grading/rubric.txt", labs, &rubric, &error), error);
  return rubric;
}

// The grader on lab 01 with ARGS added, in a report folder of its own.
tools::RunResult run_grader(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"build/host/grade", "--src", "labs", "--lab", "01", "--out",
                                   "build/targets-test-reports/" + std::to_string(getpid())};
  argv.insert(argv.end(), args.begin(), args.end());
  tools::RunOptions options;
  options.timeout_s = 120;
  return tools::run_command(argv, options);
}

}  // namespace

TEST_SUITE("targets") {

TEST_CASE("a targets file reads back as written, sorted by GPU and part, comments aside") {
  const std::vector<lab::Target> written = {target(kH100, "02_matmul_tiled", "4096x4096x4096", 0.1673),
                                            target("NVIDIA A100-SXM4-80GB", "01_matmul_naive", "4096x4096x4096", 0.2),
                                            target(kH100, "01_matmul_naive", "4096x4096x4096", 0.1134)};
  const std::string text = lab::format_targets("# a header\n", written);
  CHECK(text.rfind("# a header\n", 0) == 0);
  std::vector<lab::Target> read;
  std::string error;
  REQUIRE_MESSAGE(lab::parse_targets(text, "targets.txt", &read, &error), error);
  REQUIRE(read.size() == 3);
  CHECK(read[0].gpu == "NVIDIA A100-SXM4-80GB");
  CHECK(read[1].part == "01_matmul_naive");
  CHECK(read[2].part == "02_matmul_tiled");
  CHECK(read[1].share == doctest::Approx(0.1134));
  CHECK(read[1].ceiling == "cuBLAS SGEMM (fp32)");
  CHECK(read[1].source == "make bench");
}

TEST_CASE("a malformed line is named with its line, never read as a target") {
  CHECK(contains(parse_error("# x\nNVIDIA H100\t01_matmul_naive\t4096x4096x4096\n"),
                 "targets.txt:2: a target has 8 fields separated by tabs"));
  const std::string row = std::string(kH100) + "\t01_matmul_naive\t4096x4096x4096\tcuBLAS SGEMM (fp32)\t";
  const std::string rest = "\t2026-11-25\te18164b\tmake bench\n";
  CHECK(contains(parse_error(row + "11%" + rest), "targets.txt:1: the share '11%' is not a number above 0"));
  CHECK(contains(parse_error(row + "0" + rest), "the share '0' is not a number above 0"));
  CHECK(contains(parse_error(row + "nan" + rest), "the share 'nan'"));
  CHECK(contains(parse_error(row + "0.11" + rest + row + "0.12" + rest),
                 "targets.txt:2: a second target for 01_matmul_naive at 4096x4096x4096 on NVIDIA H100 80GB HBM3"));
  CHECK(contains(parse_error("\t01_matmul_naive\t4096x4096x4096\tc\t0.1\td\tc\ts\n"), "names its GPU, its part and its shape"));
}

TEST_CASE("a target is found by its GPU, part and shape; a new one replaces the old of the same three") {
  std::vector<lab::Target> targets = {target(kH100, "01_matmul_naive", "4096x4096x4096", 0.1134),
                                      target(kH100, "03_matmul_register.1d", "4096x4096x4096", 0.3089)};
  CHECK(lab::find_target(targets, kH100, "03_matmul_register.1d", "4096x4096x4096")->share == doctest::Approx(0.3089));
  CHECK(lab::find_target(targets, kH100, "03_matmul_register", "4096x4096x4096") == nullptr);
  CHECK(lab::find_target(targets, kH100, "01_matmul_naive", "2048x2048x2048") == nullptr);
  CHECK(lab::find_target(targets, "NVIDIA H100 PCIe", "01_matmul_naive", "4096x4096x4096") == nullptr);
  lab::put_target(&targets, target(kH100, "01_matmul_naive", "4096x4096x4096", 0.12));
  CHECK(targets.size() == 2);
  CHECK(lab::find_target(targets, kH100, "01_matmul_naive", "4096x4096x4096")->share == doctest::Approx(0.12));
  lab::put_target(&targets, target(kH100, "01_matmul_naive", "2048x2048x2048", 0.2));
  CHECK(targets.size() == 3);
}

TEST_CASE("a shape's text is the rubric's") {
  lab::Case c;
  for (const auto& [op, text] : std::vector<std::pair<lab::Op, std::string>>{
           {lab::Op::kMatmul, "4096x4096x4096"}, {lab::Op::kTranspose, "8192x4096"}, {lab::Op::kDot, "67108864"},
           {lab::Op::kDot, "1025@1"}}) {
    REQUIRE(grade::parse_shape(op, text, &c));
    CHECK(c.text() == text);
  }
}

TEST_CASE("make bench's record: a line per part on this GPU, in place of its older one, the other GPUs' kept") {
  const grade::Rubric rubric = read_rubric();
  grade::Context ctx;
  ctx.rubric = &rubric;
  ctx.device = kH100;
  ctx.targets_path = fs::temp_directory_path() / ("recorded-" + std::to_string(getpid()) + ".txt");
  const lab::Target other = target("NVIDIA A100-SXM4-80GB", "01_matmul_naive", "4096x4096x4096", 0.2);
  std::ofstream(ctx.targets_path) << lab::format_targets("# old\n", {other, target(kH100, "01_matmul_naive", "4096x4096x4096", 0.5)});
  grade::Ceiling cublas;
  cublas.name = "cuBLAS SGEMM (fp32)";
  cublas.ms = 2.660;
  const std::string said = grade::record_target(ctx, rubric_part(rubric, "01_matmul_naive"), cublas, 23.462);
  CHECK(contains(said, "recorded in " + ctx.targets_path + ": on NVIDIA H100 80GB HBM3 the solution reached 11.3% of the speed of "
                       "cuBLAS SGEMM (fp32) (23.462 ms against 2.660 ms in this run)"));
  grade::record_target(ctx, rubric_part(rubric, "03_matmul_register.1d"), cublas, 8.612);
  std::string error;
  REQUIRE_MESSAGE(grade::load_targets(ctx.targets_path, &ctx.targets, &error), error);
  CHECK(ctx.targets.size() == 3);
  CHECK(lab::find_target(ctx.targets, "NVIDIA A100-SXM4-80GB", "01_matmul_naive", "4096x4096x4096")->share == doctest::Approx(0.2));
  const lab::Target* recorded = lab::find_target(ctx.targets, kH100, "01_matmul_naive", "4096x4096x4096");
  REQUIRE(recorded != nullptr);
  CHECK(recorded->share == doctest::Approx(2.660 / 23.462).epsilon(1e-3));
  CHECK(recorded->source == "make bench");
  CHECK(recorded->date.size() == 10);
  CHECK(lab_test::read_file(ctx.targets_path).rfind("# The performance targets", 0) == 0);

  // What the grader then finds for each part on this GPU, and why not.
  std::string why;
  bool fallback = true;
  CHECK(grade::target_for(ctx, rubric_part(rubric, "03_matmul_register.1d"), &fallback, &why)->share ==
        doctest::Approx(2.660 / 8.612).epsilon(1e-3));
  CHECK_FALSE(fallback);
  CHECK_FALSE(grade::target_for(ctx, rubric_part(rubric, "04_transpose"), &fallback, &why));
  CHECK(contains(why, "has no target for 04_transpose at 8192x4096 on any GPU; make bench on a GPU"));
  // A GPU model without a row: the least share of the part that a measured GPU's solution reached.
  ctx.device = "NVIDIA GeForce RTX 4090";
  const std::optional<lab::Target> fell_back = grade::target_for(ctx, rubric_part(rubric, "01_matmul_naive"), &fallback, &why);
  REQUIRE(fell_back);
  CHECK(fallback);
  CHECK(fell_back->gpu == kH100);  // 11.3%, below the A100's 20%
  CHECK(fell_back->share == doctest::Approx(2.660 / 23.462).epsilon(1e-3));
  fs::remove(ctx.targets_path);
}

TEST_CASE("the committed targets file parses, and each target is a part of the rubric at its performance shape") {
  const grade::Rubric rubric = read_rubric();
  std::string error;
  std::vector<lab::Target> targets;
  REQUIRE_MESSAGE(lab::parse_targets(lab_test::read_file("grading/targets.txt"), "grading/targets.txt", &targets, &error), error);
  CHECK(!targets.empty());
  for (const lab::Target& t : targets) {
    CAPTURE(t.part);
    const grade::LabRubric* part = nullptr;
    for (const grade::LabRubric& l : rubric.labs) {
      if (l.step.id == t.part) part = &l;
    }
    REQUIRE(part != nullptr);
    CHECK(t.shape == part->performance_shape.text());
    CHECK(t.ceiling == (part->performance_shape.compute_bound() ? "cuBLAS SGEMM (fp32)" : "device-to-device copy"));
  }
}

TEST_CASE("a GPU's solution times are kept within a class's run only (its token), per GPU, only behind namespaces and a user of its own") {
  const grade::Rubric rubric = read_rubric();
  grade::Context ctx;
  ctx.rubric = &rubric;
  ctx.backend = "gpu";
  ctx.device = kH100;
  ctx.build_dir = fs::temp_directory_path() / ("kept-" + std::to_string(getpid()));
  ctx.sandbox.namespaces = true;
  ctx.sandbox.as_student = true;
  const grade::LabRubric& lab = rubric_part(rubric, "01_matmul_naive");
  grade::Program solution;
  solution.fingerprint = "0123abcd";
  // make grade times the solution in each run: its GPU's clocks and neighbours are not the last run's.
  CHECK(grade::kept_times_path(ctx, lab, solution, "performance").empty());
  ctx.class_run = "run-1";
  const std::string kept = grade::kept_times_path(ctx, lab, solution, "performance");
  REQUIRE_FALSE(kept.empty());
  CHECK(kept.rfind(ctx.build_dir + "/solution-times/", 0) == 0);
  CHECK(grade::kept_times_path(ctx, lab, solution, "correctness, alternate") != kept);
  ctx.class_run = "run-2";
  CHECK(grade::kept_times_path(ctx, lab, solution, "performance") != kept);  // the next class's run measures again
  ctx.class_run = "run-1";
  ctx.device = "NVIDIA H200";
  CHECK(grade::kept_times_path(ctx, lab, solution, "performance") != kept);  // and another GPU
  ctx.device = kH100;
  ctx.sandbox.namespaces = false;  // student code could write the build folder: nothing is kept
  CHECK(grade::kept_times_path(ctx, lab, solution, "performance").empty());
  ctx.sandbox.namespaces = true;
  ctx.sandbox.as_student = false;  // a grader that is not root: its user is student code's too
  CHECK(grade::kept_times_path(ctx, lab, solution, "performance").empty());
  ctx.sandbox.as_student = true;
  ctx.backend = "cpu";
  ctx.class_run.clear();
  CHECK_FALSE(grade::kept_times_path(ctx, lab, solution, "correctness, alternate").empty());  // a CPU's, across runs

  // A record reads back as written, and only whole.
  CHECK_FALSE(grade::read_kept_times(kept, 4));
  grade::keep_times(kept, "01_matmul_naive, the solution's timed run", {0.1379123456789, 1.25, 51.4, 4.16});
  const auto numbers = grade::read_kept_times(kept, 4);
  REQUIRE(numbers);
  CHECK((*numbers)[0] == 0.1379123456789);
  CHECK((*numbers)[3] == 4.16);
  CHECK_FALSE(grade::read_kept_times(kept, 3));
  std::ofstream(kept) << "# cut short\n0.5\nnan\n1\n2\n";
  CHECK_FALSE(grade::read_kept_times(kept, 4));
  std::ofstream(kept) << "0.5\n1\n2\n3\n";  // no title line: not a record
  CHECK_FALSE(grade::read_kept_times(kept, 4));
  fs::remove_all(ctx.build_dir);
}

TEST_CASE("the grader refuses a malformed targets file, and a record run without a GPU, before it builds anything") {
  const std::string bad = fs::temp_directory_path() / ("targets-" + std::to_string(getpid()) + ".txt");
  std::ofstream(bad) << "NVIDIA H100 80GB HBM3\t01_matmul_naive\n";
  const tools::RunResult malformed = run_grader({"--backend", "cpu", "--targets", bad});
  CAPTURE(malformed.output);
  CHECK(malformed.exited(2));
  CHECK(contains(malformed.output, bad + ":1: a target has 8 fields"));
  const tools::RunResult record = run_grader({"--backend", "cpu", "--record-targets"});
  CAPTURE(record.output);
  CHECK(record.exited(2));
  CHECK(contains(record.output, "--record-targets times the solutions on a GPU"));
  fs::remove(bad);
  fs::remove_all("build/targets-test-reports/" + std::to_string(getpid()));
}

}  // TEST_SUITE
