#include "grading/core/kernel_counts.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "cpusim/launch_log.h"
#include "tools/subprocess.h"
#include "tools/text.h"

namespace grade {

void Accesses::add(const Accesses& o) {
  requests += o.requests, sectors += o.sectors, ideal_sectors += o.ideal_sectors, lines += o.lines, bytes += o.bytes;
  wavefronts += o.wavefronts, ideal_wavefronts += o.ideal_wavefronts;
}

// Nsight Compute's names: the global-memory counts as the technique check reads them
// (technique.h), shared-memory instructions, wavefronts and bank conflicts (what
// scripts/validate-profile compares), then for make profile atomics and reductions, DRAM bytes
// and the floating-point instructions. Checked with Nsight Compute 2025.3 on the H100: the
// global, atomic and shared ones in docs/results/lab04-banks-h100.log and
// technique-counts-h100.log; DRAM bytes and the adds and multiplies not yet.
// A shared access's wavefronts are the SASS counter's (smsp__sass_...), those of the
// instructions' own addresses: the L1's counters (l1tex__data_...) add the cycles a store lost
// to other traffic of the L1 in the same cycle, which no address pattern explains (lab 03 step
// 2's conflict-free stores: 8,192 instructions, 8,192 SASS wavefronts, 9,369 L1 wavefronts of
// which 1,177 counted as bank conflicts; docs/results/shared-store-counters-h100.log).
#define COUNT_METRICS                                                                                                \
  "launch__grid_size,launch__block_size,"                                                                            \
  "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,"                  \
  "sm__sass_data_bytes_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,"                        \
  "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,sm__sass_data_bytes_mem_global_op_st.sum,"                         \
  "smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,"                                       \
  "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,"       \
  "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,"                                                  \
  "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum,"                                                  \
  "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
const char kCompareNcuMetrics[] = COUNT_METRICS;
const char kProfileNcuMetrics[] = COUNT_METRICS
    ",l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum,l1tex__t_requests_pipe_lsu_mem_global_op_red.sum,"
    "dram__bytes_read.sum,dram__bytes_write.sum,"
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__sass_thread_inst_executed_op_fadd_pred_on.sum,"
    "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum";
#undef COUNT_METRICS

namespace {

// "32,8,1" or "(32, 8, 1)" -> 256
double product(const std::string& dims) {
  double p = 1;
  std::string d;
  for (char ch : dims + ",") {
    if (ch == ',') {
      if (!tools::trim(d).empty()) p *= std::atof(tools::trim(d).c_str());
      d.clear();
    } else if (ch != '(' && ch != ')') {
      d += ch;
    }
  }
  return p;
}

KernelCounts& kernel_named(RunCounts& run, const std::string& name) {
  for (KernelCounts& k : run.kernels)
    if (k.name == name) return k;
  run.kernels.push_back({});
  run.kernels.back().name = name;
  return run.kernels.back();
}

void add_to(std::optional<double>& total, double v) { total = total.value_or(0) + v; }

// ---- the CPU backend's launch log (read by cpusim's own reader) ----

Accesses launch_fields(const cpusim::log::Words& f, const std::string& prefix) {
  Accesses a;
  a.requests = f.number(prefix + "_requests");
  a.sectors = f.number(prefix + "_sectors");
  a.bytes = f.number(prefix + "_bytes");
  a.lines = f.number(prefix + "_lines");
  a.wavefronts = f.number(prefix + "_wavefronts");
  a.ideal_wavefronts = f.number(prefix + "_ideal_wavefronts");
  return a;
}

void add_site(KernelCounts& k, const cpusim::log::Instruction& f) {
  SiteCounts s;
  s.space = f.text("space");
  s.kind = f.text("kind");
  s.width = int(f.number("width"));
  s.traffic.requests = f.number("requests");
  s.traffic.bytes = f.number("bytes");
  s.traffic.sectors = f.number("sectors");
  s.traffic.ideal_sectors = f.number("ideal_sectors");
  s.traffic.lines = f.number("lines");
  s.traffic.wavefronts = f.number("wavefronts");
  s.traffic.ideal_wavefronts = f.number("ideal_wavefronts");
  s.object = f.text("object");
  s.offset = f.text("offset");
  std::istringstream lanes(f.text("sample"));  // "0:0:4,1:4:4,..."
  LaneAccess l;
  char colon1 = 0, colon2 = 0;
  while (lanes >> l.lane >> colon1 >> l.offset >> colon2 >> l.bytes) {
    s.sample.push_back(l);
    if (lanes.peek() == ',') lanes.get();
  }
  if (s.space == "global" && s.kind == "load") k.global_load.ideal_sectors += s.traffic.ideal_sectors;
  if (s.space == "global" && s.kind == "store") k.global_store.ideal_sectors += s.traffic.ideal_sectors;
  for (SiteCounts& seen : k.sites) {
    if (seen.object == s.object && seen.offset == s.offset && seen.space == s.space && seen.kind == s.kind) {
      seen.traffic.add(s.traffic);
      return;
    }
  }
  k.sites.push_back(s);
}

// ---- Nsight Compute's CSV ----

// One profiled launch: its kernel, and each metric's value (in base units) by "section\tname".
struct NcuLaunch {
  std::string kernel;
  std::map<std::string, double> values;
  std::map<std::string, std::string> units;
  std::string grid, block;  // "8,32,1"
  std::optional<double> get(const std::string& metric, const std::string& section = "") const {
    for (const auto& [key, v] : values) {
      const size_t tab = key.find('\t');
      if (key.substr(tab + 1) == metric && (section.empty() || key.substr(0, tab) == section)) return v;
    }
    return std::nullopt;
  }
  double value(const std::string& metric) const { return get(metric).value_or(0); }
};

// "(8, 32, 1)" -> "8,32,1"
std::string dims_of(const std::string& cell) {
  std::string d;
  for (char ch : cell)
    if (ch != '(' && ch != ')' && ch != ' ') d += ch;
  return d;
}

std::string format_count(double v) { return std::to_string(int64_t(v)); }

// A duration in milliseconds, from ncu's unit (with --print-units base, nanoseconds).
double to_ms(double v, const std::string& unit) {
  if (unit == "nsecond" || unit == "ns" || unit == "nanosecond") return v * 1e-6;
  if (unit == "usecond" || unit == "us" || unit == "microsecond") return v * 1e-3;
  if (unit == "second" || unit == "s") return v * 1e3;
  return v;  // msecond
}

// The mean of a percentage over the kernel's launches: each launch adds v / launches.
void add_mean(std::optional<double>& mean, const std::optional<double>& v, int launches_before) {
  if (!v) return;
  mean = (mean.value_or(0) * launches_before + *v) / (launches_before + 1);
}

}  // namespace

std::vector<std::string> csv_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  bool quoted = false;
  for (char ch : line) {
    if (ch == '"') {
      quoted = !quoted;
    } else if (ch == ',' && !quoted) {
      cells.push_back(cell);
      cell.clear();
    } else {
      cell += ch;
    }
  }
  cells.push_back(cell);
  return cells;
}

std::string kernel_base_name(const std::string& name) {
  std::string n = tools::trim(name);
  if (n.rfind("void ", 0) == 0) n = n.substr(5);
  int depth = 0;
  for (size_t i = 0; i < n.size(); ++i) {
    if (n[i] == '<') ++depth;
    if (n[i] == '>') --depth;
    if (n[i] == '(' && depth == 0) return tools::trim(n.substr(0, i));
  }
  return n;
}

RunCounts read_launch_log(const std::string& path) {
  RunCounts run;
  run.backend = "cpu";
  for (const cpusim::log::Launch& f : cpusim::log::read_launch_log(path)) {
    if (!f.ran()) {
      ++run.failed_launches;  // a launch that failed ran nothing
      continue;
    }
    KernelCounts& k = kernel_named(run, f.text("kernel"));
    if (k.launches++ == 0) {
      k.grid = f.text("grid");
      k.block = f.text("block");
      k.block_threads = product(k.block);
      k.shared_bytes = f.number("static_smem") + f.number("dynamic_smem");
    }
    k.threads += product(f.text("grid")) * product(f.text("block"));
    k.global_load.add(launch_fields(f, "global_load"));
    k.global_store.add(launch_fields(f, "global_store"));
    k.shared_load.add(launch_fields(f, "shared_load"));
    k.shared_store.add(launch_fields(f, "shared_store"));
    k.atomic_requests += f.number("global_atomic_requests");
    k.atomic_threads += f.number("atomic_threads");
    if (f.values.count("touched_bytes")) add_to(k.dram_bytes, f.number("touched_bytes"));
    k.has_lines = k.has_lines || f.values.count("global_load_lines");
    for (const cpusim::log::Instruction& i : f.instructions) add_site(k, i);
  }
  return run;
}

namespace {

// The CSV's launches, by ID, and their IDs in the order of their first row.
std::map<std::string, NcuLaunch> ncu_launches(const std::string& path, std::vector<std::string>* ids) {
  std::map<std::string, NcuLaunch> launches;
  std::ifstream in(path);
  std::vector<std::string> header;
  for (std::string line; std::getline(in, line);) {
    if (line.size() < 2 || line.front() != '"') continue;  // ncu's own messages
    const std::vector<std::string> cells = csv_cells(line);
    if (header.empty()) {
      header = cells;
      continue;
    }
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < cells.size() && i < header.size(); ++i) row[header[i]] = cells[i];
    std::string text = row["Metric Value"];
    text.erase(std::remove(text.begin(), text.end(), ','), text.end());
    if (!launches.count(row["ID"])) ids->push_back(row["ID"]);
    NcuLaunch& l = launches[row["ID"]];
    l.kernel = kernel_base_name(row["Kernel Name"]);
    l.grid = dims_of(row["Grid Size"]);
    l.block = dims_of(row["Block Size"]);
    const std::string key = row["Section Name"] + "\t" + row["Metric Name"];
    l.values[key] = std::atof(text.c_str());
    l.units[key] = row["Metric Unit"];
  }
  return launches;
}

// Adds launch L to its kernel's counts in RUN.
void add_launch(const NcuLaunch& l, RunCounts* run) {
  KernelCounts& k = kernel_named(*run, l.kernel);
  const int before = k.launches++;
  const double grid = l.get("launch__grid_size").value_or(1), block = l.get("launch__block_size").value_or(1);
  if (before == 0) {
    k.grid = l.grid.empty() ? format_count(grid) : l.grid;
    k.block = l.block.empty() ? format_count(block) : l.block;
    k.block_threads = block;
  }
  k.threads += grid * block;
  auto traffic = [&](const std::string& op) {
    Accesses a;
    a.requests = l.value("l1tex__t_requests_pipe_lsu_mem_global_op_" + op + ".sum");
    a.sectors = l.value("l1tex__t_sectors_pipe_lsu_mem_global_op_" + op + ".sum");
    a.bytes = l.value("sm__sass_data_bytes_mem_global_op_" + op + ".sum");
    a.ideal_sectors = a.bytes / 32;  // per request it is ceil(bytes / 32): ncu gives only the sum
    return a;
  };
  auto shared = [&](const std::string& op) {
    Accesses a;
    a.requests = l.value("smsp__inst_executed_op_shared_" + op + ".sum");
    a.wavefronts = l.value("smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_" + op + ".sum");
    // The L1 counts the lost cycles both as wavefronts and as conflicts: their difference is
    // the instructions' conflict-free ideal.
    a.ideal_wavefronts = l.value("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_" + op + ".sum") -
                         l.value("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_" + op + ".sum");
    return a;
  };
  k.global_load.add(traffic("ld"));
  k.global_store.add(traffic("st"));
  k.shared_load.add(shared("ld"));
  k.shared_store.add(shared("st"));
  k.atomic_requests += l.value("l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum") +
                       l.value("l1tex__t_requests_pipe_lsu_mem_global_op_red.sum");
  if (l.get("dram__bytes_read.sum")) add_to(k.dram_bytes, l.value("dram__bytes_read.sum") + l.value("dram__bytes_write.sum"));
  if (l.get("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"))
    add_to(k.flops, 2 * l.value("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum") +
                        l.value("smsp__sass_thread_inst_executed_op_fadd_pred_on.sum") +
                        l.value("smsp__sass_thread_inst_executed_op_fmul_pred_on.sum"));
  for (const auto& [key, v] : l.values)
    if (key.substr(key.find('\t') + 1) == "Duration") add_to(k.time_ms, to_ms(v, l.units.at(key)));
  add_mean(k.occupancy_pct, l.get("Achieved Occupancy"), before);
  add_mean(k.l1_hit_pct, l.get("L1/TEX Hit Rate"), before);
  add_mean(k.l2_hit_pct, l.get("L2 Hit Rate"), before);
  add_mean(k.sm_busy_pct, l.get("Compute (SM) Throughput"), before);
  add_mean(k.memory_busy_pct, l.get("Memory Throughput", "GPU Speed Of Light Throughput"), before);
  add_mean(k.l1_busy_pct, l.get("L1/TEX Cache Throughput"), before);
  add_mean(k.l2_busy_pct, l.get("L2 Cache Throughput"), before);
}

}  // namespace

RunCounts read_ncu_csv(const std::string& path) {
  std::vector<std::string> ids;
  const std::map<std::string, NcuLaunch> launches = ncu_launches(path, &ids);
  RunCounts run;
  run.backend = "gpu";
  for (const std::string& id : ids) add_launch(launches.at(id), &run);
  return run;
}

std::string locate_sites(RunCounts* run, const std::string& root) {
  std::map<std::string, std::vector<std::string>> offsets;  // per program file
  for (const KernelCounts& k : run->kernels)
    for (const SiteCounts& s : k.sites) offsets[s.object].push_back(s.offset);
  std::map<std::pair<std::string, std::string>, std::string> found;
  std::string why;
  for (auto& [object, list] : offsets) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    std::vector<std::string> argv{"addr2line", "-e", object, "-i", "-f", "-C", "-a"};
    argv.insert(argv.end(), list.begin(), list.end());
    const tools::RunResult r = tools::run_command(argv);
    if (!r.exited(0)) {
      why = r.spawn_failed ? "addr2line (binutils) is not installed" : "addr2line failed on " + object + ": " + r.describe();
      continue;
    }
    // Per address: "0x...", then a function line and a "file:line" line per frame, innermost first.
    std::istringstream lines(r.output);
    std::string address, line;
    bool function_line = true;
    while (std::getline(lines, line)) {
      if (line.rfind("0x", 0) == 0) {
        // addr2line prints 0x000000000000806d for 0x806d: compare as numbers.
        address = line;
        function_line = true;
        continue;
      }
      const bool is_function = function_line;
      function_line = !function_line;
      if (is_function) continue;
      for (const std::string& o : list) {
        if (strtoull(o.c_str(), nullptr, 16) != strtoull(address.c_str(), nullptr, 16) || found.count({object, o})) continue;
        std::string where = line.substr(0, line.find(" ("));  // " (discriminator 2)"
        if (tools::contains(where, "??") || tools::contains(where, "/include/cpusim/") || where.rfind("/usr/", 0) == 0) continue;
        if (!root.empty() && where.rfind(root + "/", 0) == 0) where = where.substr(root.size() + 1);
        found[{object, o}] = where;
      }
    }
  }
  for (KernelCounts& k : run->kernels)
    for (SiteCounts& s : k.sites)
      if (found.count({s.object, s.offset})) s.location = found[{s.object, s.offset}];
  return why;
}

}  // namespace grade
