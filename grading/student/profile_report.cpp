#include "grading/student/profile_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace grade {

namespace {

std::string format(const char* pattern, double v) {
  char text[128];
  snprintf(text, sizeof text, pattern, v);
  return text;
}

// 1234567 -> "1,234,567"
std::string grouped(double v) {
  std::string digits = format("%.0f", std::round(v)), out;
  const size_t first = digits[0] == '-' ? 1 : 0;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > first && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string ratio(double num, double den) { return den > 0 ? format("%.2f", num / den) : "-"; }
std::string percent(double num, double den) { return den > 0 ? format("%.0f%%", 100 * num / den) : "-"; }
// A bank conflict's ways: wavefronts over the conflict-free count, "none" at 1.
std::string conflict_ways(double wavefronts, double ideal) {
  if (ideal <= 0) return "-";
  return wavefronts / ideal < 1.005 ? "none" : format("%.2f-way", wavefronts / ideal);
}
std::string percent(const std::optional<double>& v) { return v ? format("%.0f%%", *v) : "-"; }

std::string duration(double seconds) {
  if (seconds < 1e-3) return format("%.3g us", seconds * 1e6);
  if (seconds < 1) return format("%.3g ms", seconds * 1e3);
  return format("%.3g s", seconds);
}

// A row of the table: its label, then the loads' and the stores' figures.
std::string row(const std::string& label, const std::string& loads, const std::string& stores) {
  char text[160];
  snprintf(text, sizeof text, "  %-38s %14s %14s\n", label.c_str(), loads.c_str(), stores.c_str());
  return text;
}
// A row of one value, which may be longer than a column.
std::string row(const std::string& label, const std::string& value) {
  return "  " + label + std::string(label.size() < 38 ? 39 - label.size() : 1, ' ') + value + "\n";
}

bool cpu(const RunCounts& run) { return run.backend == "cpu"; }

// A kernel's FLOPs: Nsight Compute counts them; on the CPU backend they are the problem's when
// the run launched one kernel.
// Occupancy the CPU backend can know: warps per SM from the block's threads and shared memory.
double theoretical_occupancy(const KernelCounts& k, const ReferenceGpu& gpu) {
  const int warps = int(std::ceil(k.block_threads / 32));
  if (warps == 0) return 0;
  int blocks = std::min(gpu.max_blocks_per_sm, gpu.max_threads_per_sm / (32 * warps));
  if (k.shared_bytes > 0)
    blocks = std::min(blocks, int(gpu.shared_bytes_per_sm / (k.shared_bytes + gpu.shared_reserved_per_block)));
  return 100.0 * blocks * warps / (gpu.max_threads_per_sm / 32);
}

std::string kernel_table(const RunCounts& run, const KernelCounts& k, const ProfileContext& ctx) {
  std::string t = k.name + ": " + grouped(k.launches) + (k.launches == 1 ? " launch" : " launches") + ", grid " +
                  k.grid + " x block " + k.block + "\n";
  t += row("", "loads", "stores");
  t += row("global requests (warp instructions)", grouped(k.global_load.requests), grouped(k.global_store.requests));
  t += row("sectors per request", ratio(k.global_load.sectors, k.global_load.requests),
           ratio(k.global_store.sectors, k.global_store.requests));
  t += row("128-byte lines per request", k.has_lines ? ratio(k.global_load.lines, k.global_load.requests) : "-",
           k.has_lines ? ratio(k.global_store.lines, k.global_store.requests) : "-");
  t += row("bytes used of the bytes moved", percent(k.global_load.bytes, 32 * k.global_load.sectors),
           percent(k.global_store.bytes, 32 * k.global_store.sectors));
  if (k.atomic_requests > 0)
    t += row("global atomic requests", grouped(k.atomic_requests) +
                                           (k.atomic_threads > 0 ? " (" + grouped(k.atomic_threads) + " threads)" : ""));
  t += row("shared requests (warp instructions)", grouped(k.shared_load.requests), grouped(k.shared_store.requests));
  t += row("wavefronts per request", ratio(k.shared_load.wavefronts, k.shared_load.requests),
           ratio(k.shared_store.wavefronts, k.shared_store.requests));
  t += row("bank conflicts", conflict_ways(k.shared_load.wavefronts, k.shared_load.ideal_wavefronts),
           conflict_ways(k.shared_store.wavefronts, k.shared_store.ideal_wavefronts));
  const std::optional<double> flops = kernel_flops(run, k, ctx.problem_flops);
  if (flops && *flops > 0) t += row("global bytes loaded per multiply-add", ratio(k.global_load.bytes, *flops / 2));
  std::string dram = "-";
  if (k.dram_bytes)
    dram = grouped(*k.dram_bytes) + (cpu(run) ? " (estimate: each 32-byte sector touched, once)" : " (measured)");
  if (cpu(run) && k.dram_bytes && *k.dram_bytes > ctx.gpu.l2_bytes)
    dram += format("; more than the %.0f MiB L2 holds, so likely more", ctx.gpu.l2_bytes / (1024 * 1024));
  t += row("DRAM bytes", dram);
  if (flops)
    t += row("FLOPs", grouped(*flops) + (k.flops ? " (counted: 2 per FMA)" : " (the problem's: common/problems.h)"));
  if (flops && k.dram_bytes && *k.dram_bytes > 0)
    t += row("arithmetic intensity", format("%.2f FLOP per DRAM byte", *flops / *k.dram_bytes));
  t += row("occupancy", cpu(run) ? format("%.0f%%", theoretical_occupancy(k, ctx.gpu)) +
                                           " (theoretical, from threads and shared memory; registers unknown)"
                                 : percent(k.occupancy_pct) + " (achieved)");
  t += row("L1 / L2 hit rate", cpu(run) ? "- (GPU only)" : percent(k.l1_hit_pct) + " / " + percent(k.l2_hit_pct));
  if (!cpu(run))
    t += row("throughput, % of peak", "SM " + percent(k.sm_busy_pct) + ", memory " + percent(k.memory_busy_pct) +
                                          ", L1/TEX " + percent(k.l1_busy_pct) + ", L2 " + percent(k.l2_busy_pct));
  const Estimate e = roofline(flops.value_or(0), k.dram_bytes.value_or(0), l1_steps(k), ctx.gpu);
  std::string time = k.time_ms ? duration(*k.time_ms / 1e3) + " measured; " : "";
  time += duration(e.seconds) + " estimated on the " + ctx.gpu.name + " (bound: " + e.bound + ")";
  if (!flops) time += ", without its FLOPs";
  t += row("time", time);
  return t;
}

// Per kernel and source line (or per kernel, where no line is known): its instructions'
// counts merged.
struct Place {
  std::string where, space, kind;
  Accesses traffic;
};

std::vector<Place> places(const KernelCounts& k, const RunCounts& run, const ProfileContext& ctx) {
  std::vector<Place> out;
  auto add = [&](const std::string& where, const std::string& space, const std::string& kind, const Accesses& a) {
    for (Place& p : out)
      if (p.where == where && p.space == space && p.kind == kind) {
        p.traffic.add(a);
        return;
      }
    out.push_back({where, space, kind, a});
  };
  for (const SiteCounts& s : k.sites)
    add(s.location.empty() ? k.name + " (" + (ctx.lines_note.empty() ? "line unknown" : ctx.lines_note) + ")" : s.location,
        s.space, s.kind, s.traffic);
  if (k.sites.empty()) {
    const std::string where = k.name + (cpu(run) ? "" : " (Nsight Compute names no line; BACKEND=cpu does)");
    add(where, "global", "load", k.global_load);
    add(where, "global", "store", k.global_store);
    add(where, "shared", "load", k.shared_load);
    add(where, "shared", "store", k.shared_store);
  }
  return out;
}

// What a line's accesses waste, and the finding that says so; waste 0: nothing to say.
struct Scored {
  double waste = 0;
  Finding finding;
};

Scored access_finding(const Place& p) {
  const Accesses& a = p.traffic;
  const std::string verb = p.kind == "store" ? "write" : "read";
  if (a.requests == 0) return {};
  if (p.space == "global" && a.ideal_sectors > 0 && a.sectors >= 2 * a.ideal_sectors)
    return {a.sectors - a.ideal_sectors,
            {p.where, "each warp's " + p.kind + " touches " + format("%.1f", a.sectors / a.requests) +
                          " sectors of 32 bytes where " + format("%.1f", a.ideal_sectors / a.requests) +
                          " would hold the bytes it uses" +
                          (a.bytes > 0 ? " (" + percent(a.bytes, 32 * a.sectors) + " of what it moves)" : "") +
                          ": the threads of a warp " + verb +
                          " addresses far apart, such as a column; make consecutive threads " + verb +
                          " consecutive addresses"}};
  if (p.space == "shared" && a.ideal_wavefronts > 0 && a.wavefronts >= 1.5 * a.ideal_wavefronts)
    return {a.wavefronts - a.ideal_wavefronts,
            {p.where, "each warp's shared " + p.kind + " takes " + format("%.1f", a.wavefronts / a.requests) +
                          " wavefronts where " + format("%.1f", a.ideal_wavefronts / a.requests) + " would do, a " +
                          format("%.0f", a.wavefronts / a.ideal_wavefronts) + "-way bank conflict: its lanes " + verb +
                          " different words of the same bank, such as a column of a tile whose rows are a multiple "
                          "of 32 words long; pad each row by one word, or have consecutive threads " +
                          verb + " consecutive words"}};
  return {};
}

// What bounds the kernel's estimated time, and what would lower it.
std::optional<Finding> bound_finding(const RunCounts& run, const KernelCounts& k, const ProfileContext& ctx) {
  const Estimate e = roofline(kernel_flops(run, k, ctx.problem_flops).value_or(0), k.dram_bytes.value_or(0), l1_steps(k), ctx.gpu);
  if (e.seconds == 0) return std::nullopt;
  std::string why = "its estimated time, " + duration(e.seconds) + ", is bound by ";
  const std::string bound = e.bound;
  if (bound == "DRAM") {
    why += "DRAM: " + grouped(k.dram_bytes.value_or(0)) + " bytes" +
           format(" at %.1f TB/s; only moving fewer bytes makes it faster", ctx.gpu.dram_bandwidth / 1e12);
  } else if (bound == "L1") {
    const double steps = l1_steps(k);
    const double conflicts = k.shared_load.wavefronts + k.shared_store.wavefronts - k.shared_load.ideal_wavefronts -
                             k.shared_store.ideal_wavefronts;
    const double scattered =
        k.has_lines ? k.global_load.lines + k.global_store.lines - k.global_load.requests - k.global_store.requests : 0;
    why += "the L1: " + grouped(steps) + " steps, one per SM per clock (a global request's 128-byte lines, a shared "
           "wavefront)";
    if (conflicts > steps / 3)
      why += "; " + grouped(conflicts) + " of them are bank conflicts: remove those first";
    else if (scattered > steps / 3)
      why += "; " + grouped(scattered) + " of them are the extra lines of scattered requests: coalesce those first";
    else
      why += "; fewer memory instructions, by reusing each loaded value for more work (more outputs per thread), "
             "make it faster";
  } else {
    why += "arithmetic: the memory traffic is not what limits it";
  }
  return Finding{k.name, why};
}

}  // namespace

std::vector<Finding> profile_findings(const RunCounts& run, const ProfileContext& ctx) {
  std::vector<Scored> found;
  for (const KernelCounts& k : run.kernels) {
    for (const Place& p : places(k, run, ctx)) {
      Scored s = access_finding(p);
      if (s.waste > 0) found.push_back(s);
    }
  }
  std::stable_sort(found.begin(), found.end(), [](const Scored& a, const Scored& b) { return a.waste > b.waste; });
  std::vector<Finding> out;
  for (const Scored& s : found) out.push_back(s.finding);
  for (const KernelCounts& k : run.kernels)
    if (std::optional<Finding> f = bound_finding(run, k, ctx)) out.push_back(*f);
  return out;
}

std::string profile_report(const RunCounts& run, const ProfileContext& ctx) {
  std::string r = "make profile: " + ctx.title + ", " +
                  (cpu(run) ? "CPU backend: counted by its memory model (cpusim/memory-model.md)"
                            : "GPU: Nsight Compute's counts") +
                  "\n";
  if (run.kernels.empty())
    return r + "\nno kernel ran" + (run.failed_launches ? ": every launch failed" : ": nothing was launched") + "\n";
  for (const KernelCounts& k : run.kernels) r += "\n" + kernel_table(run, k, ctx);
  if (run.kernels.size() > 1 && ctx.problem_flops) {
    double dram = 0;
    for (const KernelCounts& k : run.kernels) dram += k.dram_bytes.value_or(0);
    r += "\nthe run: " + grouped(*ctx.problem_flops) + " FLOPs (the problem's), " + grouped(dram) + " DRAM bytes" +
         (dram > 0 ? format(", %.2f FLOP per byte", *ctx.problem_flops / dram) : "") + "\n";
  }
  const std::vector<Finding> findings = profile_findings(run, ctx);
  r += "\nfindings:\n";
  for (const Finding& f : findings) r += "  " + f.where + ": " + f.text + ".\n";
  if (!ctx.lines_note.empty()) r += "  (no source lines: " + ctx.lines_note + ")\n";
  return r;
}

}  // namespace grade
