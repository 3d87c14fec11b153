// The checks of timed calls (common/rep_check.h): a seed's edits change what they claim to,
// the samples cover what the edits moved, a result computed from the changed inputs passes,
// and a result kept from before the change (what a launcher that skips work hands back)
// fails, for each problem. And the sampled values survive the protocol, NaN included.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include <fstream>
#include <iterator>

#include "common/fill.h"
#include "common/reference.h"
#include "common/protocol.h"
#include "common/rep_check.h"
#include "tests/lab_programs.h"

namespace {

// The full output of a case on its inputs, in fp32 sums as a kernel would compute them.
std::vector<float> compute(const lab::Case& c, const std::vector<std::vector<float>>& in) {
  switch (c.op) {
    case lab::Op::kMatmul: {
      std::vector<float> C(c.output_count());
      for (int64_t i = 0; i < c.M; ++i) {
        for (int64_t j = 0; j < c.N; ++j) {
          float acc = 0;
          for (int64_t k = 0; k < c.K; ++k) acc += in[0][i * c.K + k] * in[1][k * c.N + j];
          C[i * c.N + j] = acc;
        }
      }
      return C;
    }
    case lab::Op::kTranspose: return lab::transpose_reference(in[0].data(), int(c.rows), int(c.cols));
    case lab::Op::kDot: {
      float acc = 0;
      for (int64_t i = 0; i < c.n; ++i) acc += in[0][i] * in[1][i];
      return {acc};
    }
  }
  return {};
}

std::vector<float> samples_of(const std::vector<float>& out, const std::vector<size_t>& positions) {
  std::vector<float> s;
  for (size_t p : positions) s.push_back(out[p]);
  return s;
}

}  // namespace

TEST_SUITE("rep_check") {

TEST_CASE("a fresh result passes, a result kept from before the change fails") {
  const lab::Case cases[] = {lab::Case::matmul(70, 90, 33), lab::Case::transpose(300, 170), lab::Case::dot(100000)};
  for (const lab::Case& c : cases) {
    CAPTURE(c.describe());
    std::vector<std::vector<float>> inputs = lab::make_inputs(c, 7);
    const std::vector<std::vector<float>> base = inputs;
    const lab::DotReference base_dot =
        c.op == lab::Op::kDot ? lab::dot_reference(inputs[0].data(), inputs[1].data(), c.n) : lab::DotReference();
    const std::vector<float> stale = compute(c, inputs);
    for (uint64_t seed : {1ull, 99ull, 123456789ull}) {
      const std::vector<lab::Edit> edits = lab::rep_edits(c, seed);
      REQUIRE_FALSE(edits.empty());
      std::set<std::pair<size_t, size_t>> distinct;
      for (const lab::Edit& e : edits) distinct.insert({e.input, e.index});
      CHECK(distinct.size() == edits.size());
      std::vector<std::vector<float>> changed = inputs;
      for (const lab::Edit& e : edits) changed[e.input][e.index] = e.value;
      const std::vector<float> fresh = compute(c, changed);
      const std::vector<size_t> positions = lab::sample_positions(c, seed + 1, edits);
      CHECK(lab::check_samples(c, inputs, edits, positions, samples_of(fresh, positions), &base_dot) == "");
      CHECK(lab::check_samples(c, inputs, edits, positions, samples_of(stale, positions), &base_dot) != "");
      CHECK(inputs == base);  // restored
    }
  }
}

TEST_CASE("a matmul's edit changes every element of C; a transpose's samples cover its edits") {
  const lab::Case m = lab::Case::matmul(50, 40, 30);
  const std::vector<lab::Edit> edits = lab::rep_edits(m, 5);
  CHECK(edits.size() == 40);  // one row of B
  for (const lab::Edit& e : edits) CHECK(e.input == 1);
  CHECK(edits.back().index - edits.front().index == 39);

  const lab::Case t = lab::Case::transpose(1000, 900);
  const std::vector<lab::Edit> moved = lab::rep_edits(t, 5);
  const std::vector<size_t> positions = lab::sample_positions(t, 6, moved);
  CHECK(positions.size() == moved.size() + lab::kSampled);
  for (const lab::Edit& e : moved) {
    const size_t r = e.index / 900, col = e.index % 900;
    CHECK(std::find(positions.begin(), positions.end(), col * 1000 + r) != positions.end());
  }
  CHECK(lab::rep_edits(lab::Case::matmul(5, 5, 0), 1).empty());
}

TEST_CASE("timed calls survive the protocol, NaN included") {
  lab::CaseResult r;
  r.peak_tflops = 66.9;
  r.copy_tbps = 3.01;
  lab::TimedCall call;
  call.ms = 2.5;
  call.edit_seed = 18446744073709551615ull;
  call.sample_seed = 42;
  call.nonfinite = 3;
  float nan;
  lab::fill_poison(&nan, 1);
  call.samples = {1.5f, nan, -0.0f};
  r.calls = {call, call};
  const lab::CaseResult back = lab::parse_result(lab::format_result(r));
  REQUIRE(back.calls.size() == 2);
  CHECK(back.calls[1].ms == 2.5);
  CHECK(back.calls[1].edit_seed == call.edit_seed);
  CHECK(back.calls[1].nonfinite == 3);
  REQUIRE(back.calls[1].samples.size() == 3);
  CHECK(std::memcmp(back.calls[1].samples.data(), call.samples.data(), 3 * sizeof(float)) == 0);
  CHECK(back.peak_tflops == doctest::Approx(66.9));
  CHECK(back.finished);
}

TEST_CASE("a lab program's timed calls are checked one by one" * doctest::skip(lab_test::kNoCpuSolutions)) {
  // harness/serve.cpp on the CPU backend, its output read by harness/output_scan.cu: the
  // solution's calls all check out (no element left NaN, every sample right); a launcher that
  // copies back its first result fails at a later call; one that skips the work when its
  // output already holds a number never gets to skip (each call starts from a poisoned output).
  const struct {
    std::string program;
    bool honest;
  } programs[] = {
      {lab_test::program("cpu", lab_test::kSolutions, "01_matmul_naive"), true},
      {lab_test::corpus_program("cpu", "cached_result_01", "01_matmul_naive"), false},
      {lab_test::corpus_program("cpu", "skip_when_done_01", "01_matmul_naive"), true},
  };
  lab::ServeCase c;
  c.timed = true;
  c.shape = lab::Case::matmul(40, 36, 24);
  c.reps = 5;
  c.warmup = 1;
  std::vector<std::vector<float>> inputs = lab::make_inputs(c.shape, 3);
  for (const auto& [program, honest] : programs) {
    CAPTURE(program);
    const std::string dir = "build/test/rep_check_serve";
    tools::run_command({"sh", "-c", "rm -rf \"$0\" && mkdir -p \"$0\"", dir});
    for (size_t j = 0; j < inputs.size(); ++j) {
      REQUIRE(lab::write_floats(dir + "/0.in" + std::to_string(j), inputs[j].data(), inputs[j].size()));
    }
    std::ofstream(dir + "/cases.txt") << lab::format_case_line(c) << "\n";
    std::ofstream(dir + "/0.go") << "";  // the grader's go, given before the program asks
    const tools::RunResult r = lab_test::run(program, {"--serve", dir});
    CAPTURE(r.output);
    REQUIRE(r.exited(0));
    // The grader's clocks start at this file (grading/core/pass_clock.h).
    CHECK(std::ifstream(dir + "/started").good());
    CHECK(std::ifstream(dir + "/0.ready").good());
    CHECK(std::ifstream(dir + "/0.timed").good());
    std::ifstream in(dir + "/0.result");
    const lab::CaseResult result = lab::parse_result(std::string(std::istreambuf_iterator<char>(in), {}));
    REQUIRE(result.calls.size() == 5);
    bool all_right = true;
    for (const lab::TimedCall& call : result.calls) {
      const std::vector<lab::Edit> edits = lab::rep_edits(c.shape, call.edit_seed);
      all_right &= call.nonfinite == 0 &&
                   lab::check_samples(c.shape, inputs, edits, lab::sample_positions(c.shape, call.sample_seed, edits),
                                      call.samples, nullptr) == "";
    }
    CHECK(all_right == honest);
  }
}

TEST_CASE("a kernel that writes its input is caught, timed (compared on the device) or not" *
          doctest::skip(lab_test::kNoCpuSolutions)) {
  const std::string program = lab_test::corpus_program("cpu", "writes_input_01", "01_matmul_naive");
  for (const bool timed : {true, false}) {
    CAPTURE(timed);
    lab::ServeCase c;
    c.timed = timed;
    c.shape = lab::Case::matmul(40, 36, 24);
    c.reps = timed ? 3 : 0;
    c.warmup = timed ? 1 : 0;
    const std::vector<std::vector<float>> inputs = lab::make_inputs(c.shape, 5);
    const std::string dir = "build/test/rep_check_writes_input";
    tools::run_command({"sh", "-c", "rm -rf \"$0\" && mkdir -p \"$0\"", dir});
    for (size_t j = 0; j < inputs.size(); ++j) {
      REQUIRE(lab::write_floats(dir + "/0.in" + std::to_string(j), inputs[j].data(), inputs[j].size()));
    }
    std::ofstream(dir + "/cases.txt") << lab::format_case_line(c) << "\n";
    std::ofstream(dir + "/0.go") << "";
    const tools::RunResult r = lab_test::run(program, {"--serve", dir});
    CAPTURE(r.output);
    REQUIRE(r.exited(0));
    std::ifstream in(dir + "/0.result");
    const lab::CaseResult result = lab::parse_result(std::string(std::istreambuf_iterator<char>(in), {}));
    CHECK(result.modified_inputs == "A ");
  }
}

}  // TEST_SUITE
