#include "grading/core/kernel_counts.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "common/subprocess.h"
#include "common/text.h"

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
      if (!text::trim(d).empty()) p *= std::atof(text::trim(d).c_str());
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

// ---- the CPU backend's launch log ----

using Fields = std::map<std::string, std::string>;

// "key=value" words; from " object=" on, the rest of the line is the object's path.
Fields words_of(const std::string& line) {
  Fields f;
  const size_t object = line.find(" object=");
  std::istringstream words(line.substr(0, object));
  for (std::string w; words >> w;) {
    const size_t eq = w.find('=');
    if (eq != std::string::npos) f[w.substr(0, eq)] = w.substr(eq + 1);
  }
  if (object != std::string::npos) f["object"] = line.substr(object + 8);
  return f;
}

double number(const Fields& f, const std::string& key) {
  auto it = f.find(key);
  return it == f.end() ? 0 : std::atof(it->second.c_str());
}

Accesses launch_fields(const Fields& f, const std::string& prefix) {
  Accesses a;
  a.requests = number(f, prefix + "_requests");
  a.sectors = number(f, prefix + "_sectors");
  a.bytes = number(f, prefix + "_bytes");
  a.lines = number(f, prefix + "_lines");
  a.wavefronts = number(f, prefix + "_wavefronts");
  a.ideal_wavefronts = number(f, prefix + "_ideal_wavefronts");
  return a;
}

void add_site(KernelCounts& k, const Fields& f) {
  SiteCounts s;
  s.space = f.count("space") ? f.at("space") : "";
  s.kind = f.count("kind") ? f.at("kind") : "";
  s.width = int(number(f, "width"));
  s.traffic.requests = number(f, "requests");
  s.traffic.bytes = number(f, "bytes");
  s.traffic.sectors = number(f, "sectors");
  s.traffic.ideal_sectors = number(f, "ideal_sectors");
  s.traffic.lines = number(f, "lines");
  s.traffic.wavefronts = number(f, "wavefronts");
  s.traffic.ideal_wavefronts = number(f, "ideal_wavefronts");
  s.object = f.count("object") ? f.at("object") : "";
  s.offset = f.count("offset") ? f.at("offset") : "";
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

// One CSV line: quoted fields, commas inside quotes kept.
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

std::string kernel_base_name(const std::string& name) {
  std::string n = text::trim(name);
  if (n.rfind("void ", 0) == 0) n = n.substr(5);
  int depth = 0;
  for (size_t i = 0; i < n.size(); ++i) {
    if (n[i] == '<') ++depth;
    if (n[i] == '>') --depth;
    if (n[i] == '(' && depth == 0) return text::trim(n.substr(0, i));
  }
  return n;
}

RunCounts read_launch_log(const std::string& path) {
  RunCounts run;
  run.backend = "cpu";
  std::ifstream in(path);
  KernelCounts* last = nullptr;  // the kernel of the last launch that ran: its lines per instruction follow
  for (std::string line; std::getline(in, line);) {
    const Fields f = words_of(line);
    if (line.rfind("access ", 0) == 0) {
      if (last != nullptr) add_site(*last, f);
      continue;
    }
    if (!f.count("kernel")) continue;
    if (f.at("kernel").empty() || !f.count("status") || f.at("status") != "cudaSuccess") {
      ++run.failed_launches;  // a launch that failed ran nothing
      last = nullptr;
      continue;
    }
    KernelCounts& k = kernel_named(run, f.at("kernel"));
    if (k.launches++ == 0) {
      k.grid = f.count("grid") ? f.at("grid") : "";
      k.block = f.count("block") ? f.at("block") : "";
      k.block_threads = product(k.block);
      k.shared_bytes = number(f, "static_smem") + number(f, "dynamic_smem");
    }
    k.threads += product(f.count("grid") ? f.at("grid") : "") * product(f.count("block") ? f.at("block") : "");
    k.global_load.add(launch_fields(f, "global_load"));
    k.global_store.add(launch_fields(f, "global_store"));
    k.shared_load.add(launch_fields(f, "shared_load"));
    k.shared_store.add(launch_fields(f, "shared_store"));
    k.atomic_requests += number(f, "global_atomic_requests");
    k.atomic_threads += number(f, "atomic_threads");
    if (f.count("touched_bytes")) add_to(k.dram_bytes, number(f, "touched_bytes"));
    k.has_lines = k.has_lines || f.count("global_load_lines");
    last = &k;
  }
  return run;
}

RunCounts read_ncu_csv(const std::string& path) {
  std::vector<std::string> ids;  // in the order of their first row
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
    if (!launches.count(row["ID"])) ids.push_back(row["ID"]);
    NcuLaunch& l = launches[row["ID"]];
    l.kernel = kernel_base_name(row["Kernel Name"]);
    l.grid = dims_of(row["Grid Size"]);
    l.block = dims_of(row["Block Size"]);
    const std::string key = row["Section Name"] + "\t" + row["Metric Name"];
    l.values[key] = std::atof(text.c_str());
    l.units[key] = row["Metric Unit"];
  }
  RunCounts run;
  run.backend = "gpu";
  for (const std::string& id : ids) {
    const NcuLaunch& l = launches[id];
    KernelCounts& k = kernel_named(run, l.kernel);
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
    const lab::RunResult r = lab::run_command(argv);
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
        if (text::contains(where, "??") || text::contains(where, "/include/cpusim/") || where.rfind("/usr/", 0) == 0) continue;
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
