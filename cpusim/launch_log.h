// Reading the launch log of a program built with cpucc (CPUSIM_LAUNCH_LOG, cpusim/README.md): a
// line per launch, `key=value` words, and in the count flavor a line per instruction after it
// (`access space=global kind=load ... object=PATH`). Host code for the programs that read such a
// log: cpusim's own tests, and a grader or profiler built on the backend.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace cpusim::log {

// A line's words; a word that is not there reads as "" or 0.
struct Words {
  std::map<std::string, std::string> values;
  std::string text(const std::string& key) const;
  double number(const std::string& key) const;
};

// One instruction's counts, summed over the launch's warps: space, kind, width, requests, lanes,
// bytes, sectors, ideal_sectors, lines, wavefronts, ideal_wavefronts, offset, object.
struct Instruction : Words {};

// One launch: kernel, grid, block, dynamic_smem, static_smem, site, status and, in the count
// flavor, its totals (global_load_requests ...; cpusim/README.md lists them), then its instructions.
struct Launch : Words {
  std::vector<Instruction> instructions;
  bool ran() const { return !text("kernel").empty() && text("status") == "cudaSuccess"; }
};

// The launches of the log at PATH, in order; none when it cannot be read.
std::vector<Launch> read_launch_log(const std::string& path);

}  // namespace cpusim::log
