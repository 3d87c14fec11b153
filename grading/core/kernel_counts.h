// What one run's kernels did with memory, per kernel, read from either backend: the CPU
// backend's launch log of a count-flavor program (cpucc --count-accesses: its line per launch
// and its lines per instruction, cpusim/memory-model.md) or Nsight Compute's CSV
// (ncu --csv --print-units base). make profile prints them (profile_report.h), the technique
// check sums them (technique.h), scripts/validate-profile sets the two side by side.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace grade {

// Global or shared loads or stores of one kernel (or of one instruction), summed over its
// requests: a request is one warp instruction. Fields a backend does not give stay 0 and
// their `have_` flag false.
struct Accesses {
  double requests = 0;
  double sectors = 0, ideal_sectors = 0, lines = 0, bytes = 0;  // global: 32-byte sectors, 128-byte lines, distinct bytes
  double wavefronts = 0, ideal_wavefronts = 0;                  // shared
  void add(const Accesses& o);
};

// One lane of a warp's request: where it went, from the start of its allocation (global) or of
// the block's shared memory, and how many bytes.
struct LaneAccess {
  int lane = 0;
  long long offset = 0;
  int bytes = 0;
};

// One instruction of a kernel (the CPU backend only): where the program's code is, and after
// locate_sites(), the source line it maps to.
struct SiteCounts {
  std::string space, kind;  // global or shared; load, store or atomic
  int width = 0;            // bytes per lane
  Accesses traffic;
  std::string object, offset;  // the program file, and the code's address in it
  std::string location;        // "file:line", or "" when not known
  std::vector<LaneAccess> sample;  // one warp's request as the model saw it: its first block's first warp
};

struct KernelCounts {
  std::string name;  // as launched (CPU backend) or as ncu names it, without "void" and parameters
  int launches = 0;
  double threads = 0;          // over all launches
  std::string grid, block;     // of its first launch: "8,32,1"
  double block_threads = 0;    // of its first launch
  double shared_bytes = 0;     // per block, static and dynamic, of its first launch (CPU backend)
  Accesses global_load, global_store, shared_load, shared_store;
  double atomic_requests = 0;  // global atomics and reductions, one per warp instruction
  double atomic_threads = 0;   // the threads that made them (the CPU backend only)
  std::optional<double> dram_bytes;  // measured (GPU) or the distinct sectors touched (CPU)
  std::optional<double> flops;       // counted by ncu: 2 per FMA, 1 per add and multiply
  std::optional<double> time_ms;     // measured (GPU)
  std::optional<double> occupancy_pct, l1_hit_pct, l2_hit_pct;                  // measured (GPU)
  std::optional<double> sm_busy_pct, memory_busy_pct, l1_busy_pct, l2_busy_pct;  // ncu's speed of light
  bool has_lines = false;            // 128-byte lines per request: the CPU backend's model only
  std::vector<SiteCounts> sites;
};

struct RunCounts {
  std::string backend;  // "cpu" or "gpu"
  std::vector<KernelCounts> kernels;  // in the order of their first launch
  int failed_launches = 0;            // launches that ran nothing (an error)
};

RunCounts read_launch_log(const std::string& path);
RunCounts read_ncu_csv(const std::string& path);

// Maps each instruction's code address to its source line with addr2line (binutils): the
// innermost frame outside the CPU backend's own headers and the system's. Paths under `root`
// are given relative to it. Returns "" or why the lines are unknown.
std::string locate_sites(RunCounts* run, const std::string& root);

// The metrics make profile asks Nsight Compute for besides its sections (SpeedOfLight,
// MemoryWorkloadAnalysis, Occupancy); the counts alone, which profile --compare reads.
extern const char kProfileNcuMetrics[];
extern const char kCompareNcuMetrics[];

// One line of Nsight Compute's CSV: its quoted cells, commas inside quotes kept.
std::vector<std::string> csv_cells(const std::string& line);

// "void matmul_tiled_kernel<32>(const float *, ...)" -> "matmul_tiled_kernel<32>"
std::string kernel_base_name(const std::string& name);

}  // namespace grade
