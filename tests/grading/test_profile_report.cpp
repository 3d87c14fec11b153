// make profile's report from Nsight Compute's CSV (grading/core/kernel_counts.h, profile_report.h),
// its roofline estimate, and build/host/profile --compare, which scripts/validate-profile runs.
// The CPU backend's counts, on real kernels, are checked in cpusim/tests/test_cpusim.cpp; the findings
// made of them, at the end of this file. The CSV is written
// here in the layout of `ncu --csv --print-units base` (the columns test_technique.cpp uses too),
// with the unpadded transpose's counts that Nsight Compute printed on the H100
// (docs/results/lab04-banks-h100.log; the SASS wavefront counts, exact where the L1's vary by a
// few hundredths of a percent from run to run, from a later run: shared-store-counters-h100.log)
// and, as its duration, the time make run measured there
// (0.305 ms, docs/results/solutions-h100.log); the base unit of a duration, nsecond, is as we
// expect ncu to name it, not seen in a log.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "cpusim/tests/source_line.h"
#include "grading/core/kernel_counts.h"
#include "grading/student/profile_report.h"
#include "tests/lab_programs.h"
#include "tools/subprocess.h"
#include "tools/text.h"

namespace {

using tools::contains;

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = "build/test/" + name;
  std::ofstream(path) << text;
  return path;
}

const std::string kHeader =
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
    "\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";

std::string row(int id, const std::string& section, const std::string& metric, const std::string& unit,
                const std::string& value) {
  return "\"" + std::to_string(id) +
         "\",\"1\",\"04_transpose\",\"h\",\"transpose_kernel(const float *, float *, int, int)\",\"1\",\"7\",\"(64, 8, 1)\","
         "\"(128, 128, 1)\",\"0\",\"9.0\",\"" +
         section + "\",\"" + metric + "\",\"" + unit + "\",\"" + value + "\"\n";
}

// One launch of the unpadded transpose at 8192x8192, as ncu counted it on the H100.
std::string unpadded_launch(int id) {
  struct Metric {
    const char *section, *name, *unit, *value;
  };
  const char* m = "Command line profiler metrics";
  const Metric metrics[] = {
      {m, "launch__grid_size", "", "16,384"},
      {m, "launch__block_size", "", "512"},
      {m, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "", "2,097,152"},
      {m, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sector", "8,388,608"},
      {m, "sm__sass_data_bytes_mem_global_op_ld.sum", "byte", "268,435,456"},
      {m, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "", "2,097,152"},
      {m, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "sector", "8,388,608"},
      {m, "sm__sass_data_bytes_mem_global_op_st.sum", "byte", "268,435,456"},
      {m, "smsp__inst_executed_op_shared_ld.sum", "inst", "2,097,152"},
      {m, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "", "67,536,253"},
      {m, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "", "65,439,101"},
      {m, "smsp__inst_executed_op_shared_st.sum", "inst", "2,097,152"},
      {m, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "", "2,104,310"},
      {m, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "", "7,158"},
      {m, "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "", "67,108,864"},
      {m, "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "", "2,097,152"},
      {m, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "inst", "0"},
      {"GPU Speed Of Light Throughput", "Duration", "nsecond", "305,000"},
      {"GPU Speed Of Light Throughput", "Memory Throughput", "%", "60.00"},
      {"Memory Workload Analysis", "Memory Throughput", "byte/second", "1,760,000,000,000"},
      {"Memory Workload Analysis", "L2 Hit Rate", "%", "51.41"},
  };
  std::string rows;
  for (const Metric& x : metrics) rows += row(id, x.section, x.name, x.unit, x.value);
  return rows;
}

}  // namespace

TEST_CASE("Nsight Compute's CSV: a kernel's counts, summed over its launches, its sections averaged") {
  const std::string path = write_temp("profile-ncu.csv", "==PROF== Connected to process 1\n" + kHeader +
                                                             unpadded_launch(0) + unpadded_launch(1));
  const grade::RunCounts run = grade::read_ncu_csv(path);
  REQUIRE(run.kernels.size() == 1);
  const grade::KernelCounts& k = run.kernels[0];
  CHECK(k.name == "transpose_kernel");
  CHECK(k.launches == 2);
  CHECK(k.grid == "128,128,1");
  CHECK(k.block == "64,8,1");
  CHECK(k.threads == 2 * 16384.0 * 512);
  CHECK(k.global_load.requests == 2 * 2097152.0);
  CHECK(k.global_load.sectors == 2 * 8388608.0);
  CHECK(k.global_store.bytes == 2 * 268435456.0);
  // Wavefronts are the instructions' own (SASS), the ideal what the L1 counted less its conflicts.
  CHECK(k.shared_load.wavefronts == 2 * 67108864.0);
  CHECK(k.shared_load.ideal_wavefronts == 2 * (67536253.0 - 65439101.0));
  CHECK(k.shared_store.wavefronts == 2 * 2097152.0);
  CHECK(k.shared_store.ideal_wavefronts == 2 * (2104310.0 - 7158.0));
  CHECK(k.time_ms.value_or(0) == doctest::Approx(0.610));
  CHECK(k.memory_busy_pct.value_or(0) == doctest::Approx(60));  // the speed of light's, not the bandwidth
  CHECK(k.l2_hit_pct.value_or(0) == doctest::Approx(51.41));
  CHECK(k.flops.value_or(-1) == 0);
  CHECK_FALSE(k.dram_bytes);  // not asked for here
  std::remove(path.c_str());

  // The report names the kernel, the conflict's ways, and says ncu gives no line.
  grade::ProfileContext ctx;
  ctx.title = "lab 04 (transpose)";
  const std::string report = grade::profile_report(run, ctx);
  CAPTURE(report);
  CHECK(contains(report, "GPU: Nsight Compute's counts"));
  CHECK(contains(report, "transpose_kernel: 2 launches, grid 128,128,1 x block 64,8,1"));
  CHECK(contains(report, "transpose_kernel (Nsight Compute names no line; BACKEND=cpu does): each warp's shared load takes "
                         "32.0 wavefronts where 1.0 would do, a 32-way bank conflict"));
  CHECK(contains(report, "610 us measured"));
  CHECK(contains(report, "L1 / L2 hit rate                       - / 51%"));
}

// Lab 03 step 2's stores, one per element of a tile row, conflict-free by their addresses: the
// L1 counted 1,177 of its 9,369 wavefronts as bank conflicts, cycles the stores lost to other
// traffic; the SASS count is one wavefront per instruction (H100, 256^3,
// docs/results/shared-store-counters-h100.log). The reader must say 1 way, not 1.14.
TEST_CASE("Nsight Compute's CSV: a shared store's ways come from its instructions, not the L1's lost cycles") {
  const char* m = "Command line profiler metrics";
  const std::string path = write_temp("profile-step2.csv", kHeader + row(0, m, "smsp__inst_executed_op_shared_st.sum", "inst", "8,192") +
                                                           row(0, m, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "", "9,369") +
                                                           row(0, m, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "", "1,177") +
                                                           row(0, m, "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "", "8,192"));
  const grade::RunCounts run = grade::read_ncu_csv(path);
  REQUIRE(run.kernels.size() == 1);
  const grade::Accesses& st = run.kernels[0].shared_store;
  CHECK(st.requests == 8192);
  CHECK(st.wavefronts == 8192);
  CHECK(st.ideal_wavefronts == 8192);
  std::remove(path.c_str());
}

TEST_CASE("the roofline estimate: the longest of arithmetic, DRAM and the L1") {
  const grade::ReferenceGpu& h100 = grade::kH100;
  // A 4096^3 matrix product's FLOPs alone: 137 GFLOP at 66.9 TFLOP/s.
  grade::Estimate e = grade::roofline(2.0 * 4096 * 4096 * 4096, 3 * 64.0 * 1024 * 1024, 0, h100);
  CHECK(std::string(e.bound) == "arithmetic");
  CHECK(e.seconds == doctest::Approx(2.054e-3).epsilon(0.01));
  // An 8192^2 transpose: 512 MiB at 3.0 TB/s.
  e = grade::roofline(0, 2 * 8192.0 * 8192 * 4, 2 * 2097152, h100);
  CHECK(std::string(e.bound) == "DRAM");
  CHECK(e.seconds == doctest::Approx(0.179e-3).epsilon(0.01));
  // Its unpadded tile: 32 wavefronts per shared load, one per SM per clock.
  e = grade::roofline(0, 2 * 8192.0 * 8192 * 4, 2097152.0 * 33 + 3 * 2097152, h100);
  CHECK(std::string(e.bound) == "L1");
  CHECK(e.seconds == doctest::Approx(2097152.0 * 36 / (132 * 1.98e9)));
}

TEST_CASE("profile --compare: the model's figures against ncu's, each within 10% or not") {
  const std::string ncu = write_temp("compare-ncu.csv", kHeader + unpadded_launch(0));
  auto log = [](double wavefronts) {
    return "kernel=transpose_kernel grid=128,128,1 block=64,8,1 dynamic_smem=0 static_smem=16640 site=t.cu:1 "
           "status=cudaSuccess global_load_requests=2097152 global_load_sectors=8388608 global_load_bytes=268435456 "
           "global_store_requests=2097152 global_store_sectors=8388608 global_store_bytes=268435456 "
           "shared_load_requests=2097152 shared_load_wavefronts=" +
           std::to_string(int64_t(wavefronts)) +
           " shared_load_ideal_wavefronts=2097152 shared_store_requests=2097152 shared_store_wavefronts=2097152 "
           "shared_store_ideal_wavefronts=2097152 touched_bytes=536870912\n";
  };
  // The model's 32 ways against ncu's 32: within 10%.
  const std::string model = write_temp("compare-model.log", log(32 * 2097152.0));
  tools::RunResult r = tools::run_command({"build/host/profile", "--compare", "--cpu", model, "--gpu", ncu, "--label", "unpadded"});
  CHECK_MESSAGE(r.exited(0), r.output);
  CHECK_MESSAGE(contains(r.output, "shared load bank-conflict ways"), r.output);
  CHECK_MESSAGE(tools::count_of(r.output, " yes\n") == 6, r.output);
  // A model that saw no conflict: outside, exit 1.
  const std::string wrong = write_temp("compare-wrong.log", log(2097152.0));
  r = tools::run_command({"build/host/profile", "--compare", "--cpu", wrong, "--gpu", ncu});
  CHECK_MESSAGE(r.exited(1), r.output);
  CHECK_MESSAGE(contains(r.output, "shared load wavefronts per request"), r.output);
  CHECK_MESSAGE(tools::count_of(r.output, " NO\n") == 2, r.output);  // wavefronts per request, and ways
  // A file that is not there: could not compare.
  r = tools::run_command({"build/host/profile", "--compare", "--cpu", "build/test/no-such.log", "--gpu", ncu});
  CHECK_MESSAGE(r.exited(2), r.output);
  for (const std::string& p : {ncu, model, wrong}) std::remove(p.c_str());
}

// With Nsight Compute's source counters (a recorded H200 run of the same variant, its source
// text blanked: tests/fixtures/ncu-source-unpadded-h200.csv), a GPU's findings name their line too.
TEST_CASE("a GPU's findings name the line Nsight Compute's source counters point at") {
  const std::string ncu = write_temp("findings-ncu.csv", kHeader + unpadded_launch(0));
  const std::string page = "build/test/findings-page.html";
  tools::RunResult r = tools::run_command({"build/host/profile", "--backend", "gpu", "--counts", ncu});
  CHECK_MESSAGE(contains(r.output, "transpose_kernel (Nsight Compute names no line; BACKEND=cpu does): each warp's shared load takes 32.0"), r.output);
  r = tools::run_command({"build/host/profile", "--backend", "gpu", "--counts", ncu, "--source-csv",
                          "tests/fixtures/ncu-source-unpadded-h200.csv", "--page", page});
  CHECK_MESSAGE(r.exited(0), r.output);
  // The fixture's paths are the GPU machine's checkout, /work/main: outside this one they stay whole.
  CHECK_MESSAGE(contains(r.output, "/work/main/build/variants/unpadded/04_transpose/transpose.cu:115: each warp's shared load takes 32.0 wavefronts"),
                r.output);
  CHECK_MESSAGE(contains(lab_test::read_file(page), "<b>measured</b> by Nsight Compute on "), lab_test::read_file(page));
  for (const std::string& p : {ncu, page}) std::remove(p.c_str());
}

// The CPU backend's side, on its hand-counted patterns (cpusim/tests/suite/access_patterns.cu, built
// by make cpusim-suite): make profile's findings each name the source line of the access.
TEST_CASE("findings from the CPU backend's counts name their source lines" * doctest::skip(!lab_test::testing_backend("cpu"))) {
  const std::string program = "build/cpu/cpusim-suite/access_patterns.count";
  REQUIRE_MESSAGE(std::ifstream(program).good(), program << " is not built (make cpusim-suite)");
  const std::string log = "build/test/profile-access-patterns.log";
  std::remove(log.c_str());
  tools::RunOptions options;
  options.env = {"CPUSIM_LAUNCH_LOG=" + log};
  const tools::RunResult r = tools::run_command({program}, options);
  REQUIRE_MESSAGE(r.exited(0), r.output);
  grade::RunCounts counts = grade::read_launch_log(log);
  CHECK(grade::locate_sites(&counts, std::filesystem::current_path().string()) == "");
  grade::ProfileContext ctx;
  std::string findings;
  for (const grade::Finding& f : grade::profile_findings(counts, ctx)) findings += f.where + ": " + f.text + "\n";
  CAPTURE(findings);
  // The column read of stride32_kernel, the conflicts of <2> and <32>.
  const std::string source = "cpusim/tests/suite/access_patterns.cu";
  CHECK(contains(findings, cpusim_test::line_of(source, "in[32 * threadIdx.x]") +
                               ": each warp's load touches 32.0 sectors of 32 bytes where 4.0"));
  CHECK(contains(findings, cpusim_test::line_of(source, "tile[STRIDE * threadIdx.x]") +
                               ": each warp's shared load takes 32.0 wavefronts where 1.0 would do, a 32-way"));
  CHECK(contains(findings, cpusim_test::line_of(source, "tile[STRIDE * threadIdx.x]") +
                               ": each warp's shared load takes 2.0 wavefronts where 1.0 would do, a 2-way"));
  CHECK(tools::count_of(findings, "bank conflict:") == 2);  // not the broadcast, nor the padded column
  CHECK(tools::count_of(findings, "sectors of 32 bytes where") == 1);
  std::remove(log.c_str());
}
