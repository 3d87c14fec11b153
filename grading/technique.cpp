#include "grading/technique.h"

#include "grading/case_runs.h"
#include "grading/checks.h"
#include "grading/kernel_counts.h"

namespace grade {

namespace {

// The command that shows a student the counts per launch, on this backend.
std::string how_to_count(const Context& ctx, const LabRubric& lab) {
  std::string args = lab.step.count > 1 ? " --step " + std::to_string(lab.step.number) : "";
  for (const std::string& a : lab.technique_shape.size_args()) args += " " + a;
  const std::string program = "$(make -s program LAB=" + lab.number + " SRC=" + ctx.src;
  if (ctx.backend == "cpu") {
    return "the counts per launch (cpusim/README.md): CPUSIM_LAUNCH_LOG=/dev/stdout " + program +
           " FLAVOR=cpu-count) --no-time --no-edges --quiet" + args;
  }
  return "the counts per launch: ncu --metrics " + std::string(kNcuMetrics) + " " + program + ") --no-time --no-edges --quiet" + args;
}

// The totals of every kernel of the run.
Traffic traffic_of(const RunCounts& run) {
  Traffic t;
  for (const KernelCounts& k : run.kernels) {
    t.launches += k.launches;
    t.threads += k.threads;
    t.load_bytes += k.global_load.bytes;
    t.load_sectors += k.global_load.sectors;
    t.store_bytes += k.global_store.bytes;
    t.store_sectors += k.global_store.sectors;
  }
  return t;
}

}  // namespace

Traffic traffic_from_launch_log(const std::string& path) { return traffic_of(read_launch_log(path)); }

// Bytes: the distinct bytes each warp instruction asks for; sectors: the 32-byte sectors the
// L1 moves for them.
const char kNcuMetrics[] =
    "launch__grid_size,launch__block_size,"
    "sm__sass_data_bytes_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,"
    "sm__sass_data_bytes_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum";

Traffic traffic_from_ncu(const std::string& path) { return traffic_of(read_ncu_csv(path)); }

std::vector<std::string> technique_shortfalls(const LabRubric& lab, const lab::Case& shape, const Traffic& t) {
  if (t.launches == 0) return {"no kernel was launched: the result was computed some other way (on the host?)"};
  std::vector<std::string> why;
  if (lab.technique == "reuse") {
    const double fmas = double(shape.M) * double(shape.N) * double(shape.K);
    const double per_fma = t.load_bytes / fmas;
    if (per_fma > lab.technique_limit) {
      why.push_back(fmt("your kernels loaded %.2f bytes from global memory per multiply-add (%.3g bytes for %.3g of them);",
                        per_fma, t.load_bytes, fmas));
      why.push_back(fmt("a kernel that loads its operands for every multiply-add needs about 4.1 (one float of B per "
                        "thread, A's shared by the warp). This lab is about loading each element once per tile and "
                        "reusing it (at most %.2f bytes per multiply-add)",
                        lab.technique_limit));
    }
  } else if (lab.technique == "outputs_per_thread") {
    const double per_thread = double(shape.output_count()) / t.threads;
    if (per_thread < lab.technique_limit) {
      why.push_back(fmt("your launches ran %.0f threads in all for %.0f outputs, %.2f per thread;", t.threads,
                        double(shape.output_count()), per_thread));
      why.push_back(fmt("this lab is about computing at least %.0f outputs per thread in registers", lab.technique_limit));
    }
  } else if (lab.technique == "coalesced") {
    // The share of the bytes moved that were asked for: 1 when each warp's accesses fill whole sectors.
    const double loads = t.load_sectors > 0 ? t.load_bytes / (32 * t.load_sectors) : 1;
    const double stores = t.store_sectors > 0 ? t.store_bytes / (32 * t.store_sectors) : 1;
    if (loads < lab.technique_limit || stores < lab.technique_limit) {
      why.push_back(fmt("your kernels' global loads use %.0f%% of the bytes in the sectors they move, their stores %.0f%%;",
                        100 * loads, 100 * stores));
      why.push_back(fmt("this lab is about coalescing both (at least %.0f%% each): consecutive threads of a warp should "
                        "read, and write, consecutive addresses, through a tile in shared memory",
                        100 * lab.technique_limit));
    }
  } else if (lab.technique == "one_pass") {
    const double n = double(shape.n), input_bytes = 8 * n;
    if (t.launches > 2)
      why.push_back(fmt("%.0f kernel launches: a one-pass reduction needs one (or two: the blocks' sums, then their sum)",
                        t.launches));
    if (t.load_bytes > 1.1 * input_bytes + 65536)
      why.push_back(fmt("your kernels loaded %.1f MB for %.1f MB of input: each element should be read once",
                        t.load_bytes / 1e6, input_bytes / 1e6));
    if (t.host_copies > 0)
      why.push_back(fmt("the launcher copied between host and device memory %.0f times: the partial sums must be added "
                        "on the GPU, not copied to the host",
                        t.host_copies));
  }
  return why;
}

CheckResult check_technique(const Context& ctx, const LabRubric& lab, const LabPrograms& programs) {
  const auto start = Clock::now();
  CheckResult c("technique", Status::kPass, lab.points_technique);
  const Cases cases = write_cases(ctx, "technique", {lab.technique_shape});
  Traffic traffic;
  lab::RunResult run;
  if (ctx.backend == "cpu") {
    // Technique none asks only for a launch, which the plain build's log shows too.
    const std::string log = cases.dir + "/launches.txt";
    run = run_limited(ctx, programs.count.path.empty() ? programs.main : programs.count, cases, {"CPUSIM_LAUNCH_LOG=" + log});
    traffic = traffic_from_launch_log(log);
  } else if (ctx.have_ncu) {
    const std::string csv = cases.dir + "/ncu.csv";
    run = run_limited(ctx, programs.main, cases, {},
                      {"ncu", "--csv", "--print-units", "base", "--log-file", csv, "--metrics", kNcuMetrics}, &programs.solution);
    traffic = traffic_from_ncu(csv);
    if (traffic.launches == 0 && run.output.find("==ERROR==") != std::string::npos) {
      c.status = Status::kWaived;
      c.details.push_back("waived: Nsight Compute could not count the kernels here:");
      const std::vector<std::string> shown = quote_output(run.output, 4);
      c.details.insert(c.details.end(), shown.begin(), shown.end());
    }
  } else {
    c.status = Status::kWaived;
    c.details.push_back("waived: Nsight Compute (ncu), which counts what the kernels do, is not installed");
  }
  if (run.timed_out) {
    // What a stopped run left (a tool's log, counts) is no measure of anything.
    c.status = Status::kFail;
    c.details.push_back("on " + lab.technique_shape.describe() + " the program " + run.describe() + ":");
    const std::vector<std::string> shown = quote_output(run.output, 4);
    c.details.insert(c.details.end(), shown.begin(), shown.end());
  }
  if (c.status == Status::kPass) {
    const CaseVerdict v = evaluate(ctx, cases, 0);
    traffic.host_copies = double(v.result.host_copies);
    const std::vector<std::string> why =
        v.pass ? technique_shortfalls(lab, lab.technique_shape, traffic)
               : std::vector<std::string>{"the result on " + lab.technique_shape.describe() + " is wrong, so the technique cannot count"};
    if (!why.empty()) {
      c.status = Status::kFail;
      c.details.insert(c.details.end(), why.begin(), why.end());
      if (v.pass) c.details.push_back(how_to_count(ctx, lab));
    }
  }
  return all_or_nothing(c, start);
}

}  // namespace grade
