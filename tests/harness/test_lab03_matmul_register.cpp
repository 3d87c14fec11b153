// Lab 03's solution is right at every step on every shape: partial tiles at each edge of the
// step's block tile (64×64, 128×128, 256×128), K not a multiple of the 8-deep tile, sizes that
// rule out float4 accesses (step 3), 1-wide matrices. Its skeleton fails cleanly at every step.
#include <doctest/doctest.h>

#include "tests/lab_programs.h"

using lab_test::matmul;
using lab_test::Shape;
using lab_test::contains;

namespace {

// The shapes at one step of the lab: --step and its number added to each.
std::vector<Shape> at_step(const std::string& step, std::vector<Shape> shapes) {
  for (Shape& s : shapes) {
    s.name = "step " + step + " " + s.name;
    s.args.insert(s.args.end(), {"--step", step});
  }
  return shapes;
}

}  // namespace

TEST_SUITE("lab03") {

TEST_CASE("step 1's solution (a line of 8 outputs per thread) passes every shape" * doctest::skip(lab_test::kNoSolutions)) {
  lab_test::check_solution_passes("03_matmul_register", at_step("1", {
      matmul(1, 1, 1), matmul(1, 300, 1), matmul(300, 1, 77), matmul(17, 31, 13),
      matmul(63, 64, 7), matmul(65, 63, 9), matmul(64, 65, 8),  // a 64x64x8 tile, +-1
      matmul(255, 257, 129), matmul(1000, 40, 72), matmul(5, 0, 5), matmul(9, 8, 0),
  }));
}

TEST_CASE("step 2's solution (8x8 outputs per thread) passes every shape" * doctest::skip(lab_test::kNoSolutions)) {
  lab_test::check_solution_passes("03_matmul_register", at_step("2d", {
      matmul(1, 1, 1), matmul(1, 300, 1), matmul(300, 1, 77), matmul(17, 31, 13),
      matmul(127, 128, 7), matmul(129, 127, 9), matmul(128, 129, 8),  // a 128x128x8 tile, +-1
      matmul(255, 257, 129), matmul(40, 1000, 72), matmul(5, 0, 5), matmul(9, 8, 0),
  }));
}

TEST_CASE("step 3's solution, the tuned kernel, passes every shape, and is the program's default" *
          doctest::skip(lab_test::kNoSolutions)) {
  lab_test::check_solution_passes("03_matmul_register", {
      matmul(1, 1, 1), matmul(1, 300, 1), matmul(300, 1, 77), matmul(17, 31, 13),
      matmul(255, 128, 129), matmul(257, 127, 128), matmul(256, 129, 127),  // a 256x128 tile, +-1
      matmul(256, 128, 7), matmul(256, 128, 9),                             // the 8-deep K tile, +-1
      matmul(255, 257, 129), matmul(1000, 40, 72), matmul(40, 1000, 72), matmul(512, 512, 512),
      matmul(16500, 3, 5), matmul(16500, 4, 12),  // scalar and float4 accesses
      matmul(5, 0, 5), matmul(9, 8, 0),
      // The loop over tile rows (given code in this lab) runs only past 65535 tile rows
      // (M > 16,776,960). The grader leaves this shape out (20 s on the CPU backend); here it
      // runs once.
      matmul(16776961, 1, 1),
  });
}

// Split-K runs only where C has fewer tiles than the GPU has SMs: on the CPU backend, as many
// as CPUSIM_THREADS says. With 8 of them, these shapes split K in 8, 4, 4 and 2 (one 256×128
// tile, then four; the last split shorter or not; float4 accesses or not), and one K is too
// short to split; with 40, K = 10248 asks for 40 splits of 264 and needs only 39. The backend's
// launch log shows the grid and the adding pass, and each sum is still right.
TEST_CASE("step 3 splits K when C has fewer tiles than the GPU has SMs, and adds the splits up right" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  const struct {
    Shape shape;
    std::string threads, grid;
  } cases[] = {{matmul(256, 128, 2048), "8", "grid=1,1,8 "},   {matmul(255, 127, 1031), "8", "grid=1,1,4 "},
               {matmul(256, 128, 1028), "8", "grid=1,1,4 "},   {matmul(300, 130, 777), "8", "grid=2,2,2 "},
               {matmul(256, 256, 300), "8", "grid=2,1,1 "},    {matmul(256, 128, 10248), "40", "grid=1,1,39 "}};
  for (const auto& c : cases) {
    SUBCASE((c.shape.name + ", " + c.threads + " SMs").c_str()) {
      std::vector<std::string> argv = {lab_test::program("cpu", lab_test::kSolutions, "03_matmul_register")};
      argv.insert(argv.end(), c.shape.args.begin(), c.shape.args.end());
      argv.insert(argv.end(), {"--no-time", "--no-edges"});
      tools::RunOptions options;
      options.timeout_s = 120;
      options.env = {"CPUSIM_THREADS=" + c.threads, "CPUSIM_LAUNCH_LOG=/dev/stdout"};
      const tools::RunResult r = tools::run_command(argv, options);
      CAPTURE(r.output);
      CHECK_MESSAGE(r.exited(0), r.describe());
      CHECK(contains(r.output, "check    PASS"));
      CHECK(contains(r.output, "kernel=matmul_register_kernel"));
      CHECK(contains(r.output, c.grid));
      // One split needs no second pass; more are added up by it.
      CHECK(contains(r.output, "kernel=add_slices_kernel") == (c.grid != "grid=2,1,1 "));
    }
  }
}

// The variant strassen (solutions/variants/strassen.cu around the solution's step 3 kernel), the
// stretch kernel beyond cuBLAS (docs/tuning.md): Strassen's algorithm to the depth the launcher's
// model of the time chooses, its 7^levels products in one launch of step 3's kernel (grid z: the
// products are its splits of K), with three passes of sums around it; or one classical launch.
// With the one SM of CPUSIM_THREADS=1: two levels for 1000x496x4112 (its blocks end in partial
// tiles along every dimension; each product 1028 deep, padded to 1032 with zeros); one for
// 512x256x4096, where a second would take 49 rounds of tiles against 7, and for 512x252x4100,
// whose products are 2050 deep (padded to 2056) and 126 wide, not whole float4 (the kernel's
// scalar path); none for an odd M, a product of one tile (7 rounds against 1), K = 0. Inputs off
// alignment (offset 1) take the same path: the sums read them element by element. Each sign of the
// three tables must be right for the result to pass, and each block's place (in any order of the
// quadrants that A, B and C share).
TEST_CASE("the strassen stretch variant is right at every depth of Strassen's algorithm and by its classical path" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  const struct {
    Shape shape;
    int products;
  } cases[] = {{matmul(1000, 496, 4112), 49}, {matmul(512, 256, 4096), 7}, {matmul(512, 252, 4100), 7},
               {matmul(513, 256, 4096), 1}, {matmul(256, 128, 4096), 1}, {matmul(9, 8, 0), 1}};
  for (const auto& c : cases) {
    for (const std::string offset : {"0", "1"}) {
      SUBCASE((c.shape.name + " offset " + offset).c_str()) {
        std::vector<std::string> argv = {lab_test::program("cpu", "build_variants_strassen", "03_matmul_register")};
        argv.insert(argv.end(), c.shape.args.begin(), c.shape.args.end());
        argv.insert(argv.end(), {"--offset", offset, "--no-time", "--no-edges"});
        tools::RunOptions options;
        options.timeout_s = 120;
        options.env = {"CPUSIM_THREADS=1", "CPUSIM_LAUNCH_LOG=/dev/stdout"};
        const tools::RunResult r = tools::run_command(argv, options);
        CAPTURE(r.output);
        CHECK_MESSAGE(r.exited(0), r.describe());
        CHECK(contains(r.output, "check    PASS"));
        const auto count = [&](const std::string& text) {
          size_t n = 0;
          for (size_t at = r.output.find(text); at != std::string::npos; at = r.output.find(text, at + 1)) ++n;
          return n;
        };
        CHECK(count("kernel=step3::matmul_register_kernel") == 1);
        const size_t at = r.output.find("kernel=step3::matmul_register_kernel");
        const std::string launch = r.output.substr(at, r.output.find('\n', at) - at);
        CHECK_MESSAGE(contains(launch, "," + std::to_string(c.products) + " block="), launch);  // grid z: the products
        // Three passes of sums around the products: A's operands, B's, and C from the products.
        CHECK(count("kernel=strassen_sums_kernel") == (c.products > 1 ? 3u : 0u));
      }
    }
  }
}

TEST_CASE("the skeleton fails cleanly at every step" * doctest::skip(lab_test::kNoSolutions)) {
  for (const std::string step : {"1", "2", "3"}) {
    lab_test::check_skeleton_fails("03_matmul_register", at_step(step, {matmul(1, 1, 1), matmul(130, 140, 40)}));
  }
}

TEST_CASE("a step is named by its number or its name, and the header says which" * doctest::skip(lab_test::kNoSolutions)) {
  for (const std::string& backend : lab_test::backends()) {
    const std::string program = lab_test::program(backend, lab_test::kSolutions, "03_matmul_register");
    const tools::RunResult named = lab_test::run(program, {"--step", "1d", "--m", "70", "--n", "66", "--k", "9", "--no-time", "--no-edges"});
    CAPTURE(named.output);
    CHECK(named.exited(0));
    CHECK(contains(named.output, "lab 03 matmul_register_1d (step 1 of 3)\n"));
    const tools::RunResult last = lab_test::run(program, {"--m", "70", "--n", "66", "--k", "9", "--no-time", "--no-edges"});
    CHECK(contains(last.output, "lab 03 matmul_register (step 3 of 3)\n"));
    lab_test::check_bad_arguments("03_matmul_register", {"--step", "4"}, "lab 03 has no step '4': its steps are 1 (1d), 2 (2d), 3");
  }
}

}  // TEST_SUITE
