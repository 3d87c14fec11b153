#include "grading/core/technique.h"

#include <map>

#include "grading/core/case_runs.h"
#include "grading/core/kernel_counts.h"

namespace grade {

namespace {

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
    t.shared_load_wavefronts += k.shared_load.wavefronts;
    t.shared_load_ideal += k.shared_load.ideal_wavefronts;
    t.shared_store_wavefronts += k.shared_store.wavefronts;
    t.shared_store_ideal += k.shared_store.ideal_wavefronts;
  }
  return t;
}

}  // namespace

Traffic traffic_from_launch_log(const std::string& path) { return traffic_of(read_launch_log(path)); }

// Bytes: the distinct bytes each warp instruction asks for; sectors: the 32-byte sectors the
// L1 moves for them. Shared memory: the wavefronts of the instructions' own addresses, and the
// L1's wavefronts less the bank conflicts it counted, their conflict-free ideal
// (grading/core/kernel_counts.cpp says why those two).
const char kNcuMetrics[] =
    "launch__grid_size,launch__block_size,"
    "sm__sass_data_bytes_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,"
    "sm__sass_data_bytes_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,"
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,"
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum,"
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,"
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";

Traffic traffic_from_ncu(const std::string& path) { return traffic_of(read_ncu_csv(path)); }

namespace {

// The rule reuse (lab 02: bytes loaded from global memory per multiply-add).
std::vector<std::string> reuse_shortfalls(const TechniqueRule& rule, const lab::Case& shape, const Traffic& t) {
  std::vector<std::string> why;
  const double fmas = double(shape.M) * double(shape.N) * double(shape.K);
  const double per_fma = t.load_bytes / fmas;
  if (per_fma > rule.limit) {
    why.push_back(fmt("your kernels loaded %.2f bytes from global memory per multiply-add (%.3g bytes for %.3g of them);",
                      per_fma, t.load_bytes, fmas));
    why.push_back(fmt("a kernel that loads its operands for every multiply-add needs about 4.1 (one float of B per "
                      "thread, A's shared by the warp). This lab is about loading each element once per tile and "
                      "reusing it (at most %.2f bytes per multiply-add)",
                      rule.limit));
  }
  return why;
}

// The rule outputs_per_thread (lab 03: outputs each thread computes).
std::vector<std::string> outputs_per_thread_shortfalls(const TechniqueRule& rule, const lab::Case& shape, const Traffic& t) {
  std::vector<std::string> why;
  const double per_thread = double(shape.output_count()) / t.threads;
  if (per_thread < rule.limit) {
    why.push_back(fmt("your launches ran %.0f threads in all for %.0f outputs, %.2f per thread;", t.threads,
                      double(shape.output_count()), per_thread));
    why.push_back(fmt("this lab is about computing at least %.0f outputs per thread in registers", rule.limit));
  }
  return why;
}

// The rule coalesced (labs 01 and 04: the share of the bytes moved that were asked for).
std::vector<std::string> coalesced_shortfalls(const TechniqueRule& rule, const lab::Case& shape, const Traffic& t) {
  std::vector<std::string> why;
  // The share of the bytes moved that were asked for: 1 when each warp's accesses fill whole sectors.
  const double loads = t.load_sectors > 0 ? t.load_bytes / (32 * t.load_sectors) : 1;
  const double stores = t.store_sectors > 0 ? t.store_bytes / (32 * t.store_sectors) : 1;
  if (loads < rule.limit || stores < rule.limit) {
    why.push_back(fmt("your kernels' global loads use %.0f%% of the bytes in the sectors they move, their stores %.0f%%;",
                      100 * loads, 100 * stores));
    why.push_back(shape.op == lab::Op::kTranspose
                      ? fmt("this lab is about coalescing both (at least %.0f%% each): consecutive threads of a warp should "
                            "read, and write, consecutive addresses, through a tile in shared memory",
                            100 * rule.limit)
                      : fmt("this lab is about coalescing (at least %.0f%% each): the 32 threads of a warp are 32 "
                            "consecutive threadIdx.x, so threadIdx.x should walk along a row of C and of B, where "
                            "consecutive columns are consecutive addresses, not down a column",
                            100 * rule.limit));
  }
  return why;
}

// The rule bank_conflicts (lab 04: shared-memory wavefronts over the conflict-free ideal).
std::vector<std::string> bank_conflicts_shortfalls(const TechniqueRule& rule, const lab::Case& /*shape*/, const Traffic& t) {
  std::vector<std::string> why;
  // Wavefronts over the conflict-free ideal: 1 without conflicts, 32 when a warp's 32 accesses
  // fall in one bank.
  const double loads = t.shared_load_ideal > 0 ? t.shared_load_wavefronts / t.shared_load_ideal : 1;
  const double stores = t.shared_store_ideal > 0 ? t.shared_store_wavefronts / t.shared_store_ideal : 1;
  if (loads > rule.limit || stores > rule.limit) {
    why.push_back(fmt("your kernels' shared-memory loads take %.2f times the wavefronts a conflict-free access would, "
                      "their stores %.2f times;",
                      loads, stores));
    why.push_back(fmt("this lab is about shared memory without bank conflicts (at most %.2f times each): the 32 words "
                      "a warp reads from a column of the tile should lie in 32 different banks; pad each row of the "
                      "tile by a word, or swizzle its columns",
                      rule.limit));
  }
  return why;
}

// The rule one_pass (lab 05: one pass over the input, summed on the GPU).
std::vector<std::string> one_pass_shortfalls(const TechniqueRule& /*rule*/, const lab::Case& shape, const Traffic& t) {
  std::vector<std::string> why;
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
  return why;
}

}  // namespace

std::vector<std::string> rule_shortfalls(const TechniqueRule& rule, const lab::Case& shape, const Traffic& t) {
  if (t.launches == 0) return {"no kernel was launched: the result was computed some other way (on the host?)"};
  using Rule = std::vector<std::string> (*)(const TechniqueRule&, const lab::Case&, const Traffic&);
  static const std::map<std::string, Rule> rules = {
      {"reuse", reuse_shortfalls}, {"outputs_per_thread", outputs_per_thread_shortfalls}, {"coalesced", coalesced_shortfalls},
      {"bank_conflicts", bank_conflicts_shortfalls}, {"one_pass", one_pass_shortfalls}};
  const auto r = rules.find(rule.name);
  return r == rules.end() ? std::vector<std::string>{} : r->second(rule, shape, t);
}

}  // namespace grade
