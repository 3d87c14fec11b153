// The technique check: does the lab's kernel do what the lab teaches, measured from what the
// kernels did rather than from what they declare? One run of the lab program on the
// technique shape, counted by Nsight Compute on a GPU and by the CPU backend's count flavor
// (cpucc --count-accesses) without one: threads; the global-memory traffic of loads and
// stores as a GPU's L1 sees it (the 32-byte sectors each warp instruction moves, the distinct
// bytes it asks for: ncu's l1tex__t_sectors and sm__sass_data_bytes); and the shared-memory
// wavefronts each warp instruction takes, beside the fewest it could take (bank conflicts).
// The two backends count the same (cpusim/memory-model.md, "Checked against Nsight Compute"), and the
// rules below read the same numbers on both, so a verdict does not depend on the backend.
// Measured on the H100 (docs/instructor/running.md), a naive matmul asks for 4.125 bytes per
// multiply-add, a 32-wide tile 0.25; a naive transpose's stores use 12.5% of the sectors they
// move, the solution's 100%; an unpadded transpose tile's column reads take 32 wavefronts
// where 1 would do. The rubric names the rules per lab, each worth an equal share of the
// check's points:
//   reuse=B               global loads of at most B bytes per multiply-add (lab 02: a tile
//                         loaded once and reused from shared memory, or from registers; a
//                         decoy __shared__ array changes nothing)
//   outputs_per_thread=N  at least N outputs per launched thread (lab 03)
//   coalesced=F           loads and stores each use at least a share F of the bytes in the
//                         sectors they move (lab 01: threadIdx.x down a column of C uses 1/8
//                         of each; lab 04: a naive transpose's stores use 1/8)
//   bank_conflicts=W      shared-memory loads and stores each take at most W times the
//                         wavefronts a conflict-free access would (lab 04: an unpadded tile's
//                         column reads take 32 times; padding or a swizzle takes 1)
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
  double shared_load_wavefronts = 0, shared_load_ideal = 0;    // ideal: the conflict-free wavefronts
  double shared_store_wavefronts = 0, shared_store_ideal = 0;
  double host_copies = 0;  // copies between host and device inside the launcher call
};

// The totals from the CPU backend's launch log (CPUSIM_LAUNCH_LOG of a count-flavor program).
Traffic traffic_from_launch_log(const std::string& path);
// The totals from Nsight Compute's CSV (ncu --csv --print-units base --metrics kNcuMetrics).
Traffic traffic_from_ncu(const std::string& path);
extern const char kNcuMetrics[];

// Why RULE does not hold for these totals, one line per reason; empty when it holds. `shape` is
// the technique shape the totals were counted on.
std::vector<std::string> rule_shortfalls(const TechniqueRule& rule, const lab::Case& shape, const Traffic& t);

}  // namespace grade
