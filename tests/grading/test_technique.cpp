// The technique check's rules (grading/core/technique.h) on the counts measured on the H100 with
// Nsight Compute (docs/instructor/running.md, "The technique, measured, on the H100"), and its
// readers of ncu's CSV and the CPU backend's launch log. The whole check, on real programs, is in
// test_grade_corpus.cpp.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "grading/core/technique.h"
#include "tools/text.h"

namespace {

grade::TechniqueRule rule(const std::string& name, double limit = 0) { return {name, limit}; }

grade::Traffic traffic(double load_bytes, double load_sectors, double store_bytes, double store_sectors) {
  grade::Traffic t;
  t.launches = 1;
  t.threads = 65536;
  t.load_bytes = load_bytes;
  t.load_sectors = load_sectors;
  t.store_bytes = store_bytes;
  t.store_sectors = store_sectors;
  return t;
}

using tools::joined;

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = "build/test/" + name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("reuse: global-load bytes per multiply-add, as the H100 counted them at 256x256x64") {
  const grade::TechniqueRule lab = rule("reuse", 1);
  const lab::Case shape = lab::Case::matmul(256, 256, 64);
  // The naive kernel and the decoy __shared__ array: 4.125 bytes per multiply-add.
  const std::string naive = joined(grade::rule_shortfalls(lab, shape, traffic(17301504, 655360, 262144, 8192)));
  CHECK(naive.find("loaded 4.12 bytes from global memory per multiply-add") != std::string::npos);
  // Tiles of 32 and 16: 0.25 and 0.5. A tile of 8 asks for exactly 1 and passes.
  CHECK(grade::rule_shortfalls(lab, shape, traffic(1048576, 32768, 262144, 8192)).empty());
  CHECK(grade::rule_shortfalls(lab, shape, traffic(2097152, 65536, 262144, 8192)).empty());
  CHECK(grade::rule_shortfalls(lab, shape, traffic(4194304, 131072, 262144, 8192)).empty());
}

TEST_CASE("coalesced: the share of the moved sectors' bytes asked for, loads and stores alike") {
  const grade::TechniqueRule lab = rule("coalesced", 0.5);
  const lab::Case shape = lab::Case::transpose(256, 300);
  // The solution: loads 88%, stores 100%. A naive transpose's stores: one float per sector.
  CHECK(grade::rule_shortfalls(lab, shape, traffic(307200, 10880, 307200, 9600)).empty());
  const std::string naive = joined(grade::rule_shortfalls(lab, shape, traffic(307200, 10880, 307200, 76800)));
  CHECK(naive.find("global loads use 88% of the bytes in the sectors they move, their stores 12%") != std::string::npos);
  // The same mistake on the other side: reading columns.
  CHECK_FALSE(grade::rule_shortfalls(lab, shape, traffic(307200, 76800, 307200, 9600)).empty());
}

TEST_CASE("outputs_per_thread: outputs over all launched threads") {
  const grade::TechniqueRule lab = rule("outputs_per_thread", 4);
  const lab::Case shape = lab::Case::matmul(512, 512, 64);
  grade::Traffic t = traffic(786432, 24576, 1048576, 32768);
  t.threads = 2048;  // the solution: 128 outputs per thread
  CHECK(grade::rule_shortfalls(lab, shape, t).empty());
  t.threads = 512 * 512;
  CHECK(joined(grade::rule_shortfalls(lab, shape, t)).find("1.00 per thread") != std::string::npos);
}

TEST_CASE("one_pass: two launches at most, each element loaded once, no copies through the host") {
  const grade::TechniqueRule lab = rule("one_pass");
  const lab::Case shape = lab::Case::dot(1000000);
  grade::Traffic t = traffic(8000000, 250000, 0, 0);
  CHECK(grade::rule_shortfalls(lab, shape, t).empty());  // the solution, and shuffles with atomics
  t.launches = 2;
  t.load_bytes += 15628;  // a second launch that adds the blocks' sums
  CHECK(grade::rule_shortfalls(lab, shape, t).empty());
  t.launches = 3;
  CHECK(joined(grade::rule_shortfalls(lab, shape, t)).find("3 kernel launches") != std::string::npos);
  t = traffic(16000000, 500000, 0, 0);  // every element read twice
  CHECK(joined(grade::rule_shortfalls(lab, shape, t)).find("loaded 16.0 MB for 8.0 MB of input") != std::string::npos);
  t = traffic(8000000, 250000, 0, 0);
  t.host_copies = 1;  // the blocks' sums added on the host, the answer copied in
  CHECK(joined(grade::rule_shortfalls(lab, shape, t)).find("copied between host and device memory 1 times") !=
        std::string::npos);
}

TEST_CASE("bank_conflicts: shared wavefronts over the conflict-free ideal, loads and stores alike") {
  const grade::TechniqueRule lab = rule("bank_conflicts", 1.25);
  const lab::Case shape = lab::Case::transpose(256, 300);
  grade::Traffic t = traffic(307200, 10880, 307200, 9600);
  // The padded (or swizzled) tile: one wavefront per request both ways.
  t.shared_load_wavefronts = t.shared_load_ideal = 2400;
  t.shared_store_wavefronts = t.shared_store_ideal = 2400;
  CHECK(grade::rule_shortfalls(lab, shape, t).empty());
  // The unpadded tile: a column of it lies in one bank, 32 wavefronts for each read.
  t.shared_load_wavefronts = 32 * 2400;
  const std::string unpadded = joined(grade::rule_shortfalls(lab, shape, t));
  CHECK(unpadded.find("shared-memory loads take 32.00 times the wavefronts a conflict-free access would, their stores 1.00") !=
        std::string::npos);
  // A tile padded by two words: a 2-way conflict, not free of them.
  t.shared_load_wavefronts = 2 * 2400;
  CHECK_FALSE(grade::rule_shortfalls(lab, shape, t).empty());
  // No shared memory at all (a transpose through shuffles): nothing conflicts.
  t.shared_load_wavefronts = t.shared_load_ideal = t.shared_store_wavefronts = t.shared_store_ideal = 0;
  CHECK(grade::rule_shortfalls(lab, shape, t).empty());
}

// The solution's counts are the H100's (docs/results/technique-counts-h100.log, naive_as_02: lab 01's
// kernel); the other two mappings' are what the model counts, by hand below.
TEST_CASE("coalesced on a matrix product (lab 01): threadIdx.x along a row of C, at 256x256x64") {
  const grade::TechniqueRule lab = rule("coalesced", 0.5);
  const lab::Case shape = lab::Case::matmul(256, 256, 64);
  // x along the columns: per step a warp loads one float of A (a broadcast, one sector) and 32
  // of B (4 sectors): 132 bytes of 160; it stores 32 floats in 4 sectors.
  CHECK(grade::rule_shortfalls(lab, shape, traffic(17301504, 655360, 262144, 8192)).empty());
  // Blocks of 16x16: two rows of A and half-warps of B, 72 bytes of 128: still coalesced.
  CHECK(grade::rule_shortfalls(lab, shape, traffic(9437184, 524288, 262144, 8192)).empty());
  // x down a column: 32 floats of A K apart (32 sectors) and one of B: 132 bytes of 1056; the
  // stores 32 sectors for 128 bytes.
  const std::string rows_on_x = joined(grade::rule_shortfalls(lab, shape, traffic(17301504, 4325376, 262144, 65536)));
  CHECK(rows_on_x.find("global loads use 12% of the bytes in the sectors they move, their stores 12%") != std::string::npos);
  CHECK(rows_on_x.find("threadIdx.x should walk along a row of C") != std::string::npos);
}

TEST_CASE("no launch: no technique, whatever the rule") {
  for (const char* name : {"reuse", "outputs_per_thread", "coalesced", "bank_conflicts", "one_pass", "launch"}) {
    CAPTURE(name);
    grade::Traffic none;
    CHECK(joined(grade::rule_shortfalls(rule(name, 1), lab::Case::dot(10), none)).find("no kernel was launched") !=
          std::string::npos);
  }
}

TEST_CASE("the counts from Nsight Compute's CSV: every launch's metrics summed") {
  const std::string header =
      "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
      "\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";
  auto row = [](int id, const std::string& metric, const std::string& value) {
    return "\"" + std::to_string(id) + "\",\"1\",\"p\",\"h\",\"k\",\"1\",\"7\",\"(256, 1, 1)\",\"(977, 1, 1)\",\"0\",\"9.0\",\"\",\"" +
           metric + "\",\"\",\"" + value + "\"\n";
  };
  const std::string path = write_temp(
      "technique-ncu.csv",
      "==PROF== Connected to process 1\n" + header + row(0, "launch__grid_size", "977") + row(0, "launch__block_size", "256") +
          row(0, "sm__sass_data_bytes_mem_global_op_ld.sum", "8,000,000") +
          row(0, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "250,000") + row(1, "launch__grid_size", "1") +
          row(1, "launch__block_size", "1,024") + row(1, "sm__sass_data_bytes_mem_global_op_ld.sum", "15,628") +
          row(1, "sm__sass_data_bytes_mem_global_op_st.sum", "4") +
          row(1, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "1"));
  const grade::Traffic t = grade::traffic_from_ncu(path);
  CHECK(t.launches == 2);
  CHECK(t.threads == 977 * 256 + 1024);
  CHECK(t.load_bytes == 8015628);
  CHECK(t.load_sectors == 250000);
  CHECK(t.store_bytes == 4);
  CHECK(t.store_sectors == 1);
  std::remove(path.c_str());
}

TEST_CASE("the counts from the CPU backend's launch log; a failed launch ran nothing") {
  const std::string path = write_temp(
      "technique-launches.txt",
      "kernel=k grid=64,1,1 block=32,32,1 dynamic_smem=0 static_smem=8192 site=a.cu:1 status=cudaSuccess "
      "global_load_requests=8192 global_load_sectors=32768 global_load_bytes=1048576 global_store_requests=2048 "
      "global_store_sectors=8192 global_store_bytes=262144 global_atomic_requests=0 global_atomic_sectors=0 "
      "global_atomic_bytes=0 atomic_threads=0\n"
      "kernel=k grid=0,1,1 block=32,32,1 dynamic_smem=0 static_smem=0 site=a.cu:1 status=cudaErrorInvalidValue\n");
  const grade::Traffic t = grade::traffic_from_launch_log(path);
  CHECK(t.launches == 1);
  CHECK(t.threads == 65536);
  CHECK(t.load_bytes == 1048576);
  CHECK(t.load_sectors == 32768);
  CHECK(t.store_bytes == 262144);
  CHECK(t.store_sectors == 8192);
  std::remove(path.c_str());
}
