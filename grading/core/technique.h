// The technique check: does the lab's kernel do what the lab teaches, measured from what the
// kernels did rather than from what they declare? One run of the lab program on the
// technique shape, counted by Nsight Compute on a GPU and by the CPU backend's count flavor
// (cpucc --count-accesses) without one: threads, and the global-memory traffic of loads and
// stores as a GPU's L1 sees it (the 32-byte sectors each warp instruction moves, the distinct
// bytes it asks for: ncu's l1tex__t_sectors and sm__sass_data_bytes). Measured on the H100
// (docs/instructor.md), a naive matmul asks for 4.125 bytes per multiply-add, a 32-wide tile
// 0.25; a naive transpose's stores use 12.5% of the sectors they move, the solution's 100%.
// The rubric names the rule per lab:
//   reuse=B               global loads of at most B bytes per multiply-add (lab 02: a tile
//                         loaded once and reused from shared memory, or from registers; a
//                         decoy __shared__ array changes nothing)
//   outputs_per_thread=N  at least N outputs per launched thread (lab 03)
//   coalesced=F           loads and stores each use at least a share F of the bytes in the
//                         sectors they move (lab 04: a naive transpose's stores use 1/8)
//   one_pass              lab 05: at most two launches, every element loaded once, and no copy
//                         between host and device inside the launcher (no partial sums added
//                         on the host); shuffles, shared memory and atomics all qualify
#pragma once

#include <string>
#include <vector>

#include "grading/core/rubric.h"

namespace grade {

// What the kernels of one launcher call did, summed over their launches.
struct Traffic {
  int launches = 0;
  double threads = 0;
  double load_bytes = 0, load_sectors = 0;
  double store_bytes = 0, store_sectors = 0;
  double host_copies = 0;  // copies between host and device inside the launcher call
};

// The totals from the CPU backend's launch log (CPUSIM_LAUNCH_LOG of a count-flavor program).
Traffic traffic_from_launch_log(const std::string& path);
// The totals from Nsight Compute's CSV (ncu --csv --print-units base --metrics kNcuMetrics).
Traffic traffic_from_ncu(const std::string& path);
extern const char kNcuMetrics[];

// Why the rubric's technique does not hold for these totals, one line per reason; empty when
// it holds. `shape` is the technique shape the totals were counted on.
std::vector<std::string> technique_shortfalls(const LabRubric& lab, const lab::Case& shape, const Traffic& t);

}  // namespace grade
