// The count flavor's model of one warp instruction's memory request: given what each active
// lane of the warp accessed (its address and size), what an H100's L1 does with it. Pure
// functions of the addresses; access_count.cpp gathers the lanes. The rules, and what they
// were checked against, are in cpusim/memory-model.md.
#pragma once

#include <cstdint>

namespace cpusim::detail {

struct lane_access {
  unsigned lane;      // 0..31 within the warp
  uintptr_t address;
  unsigned size;      // bytes
};

// Global memory: the L1 moves whole 32-byte sectors of 128-byte lines.
struct global_cost {
  uint64_t bytes = 0;          // distinct bytes the lanes asked for (a broadcast asks for 4, not 128)
  uint64_t sectors = 0;        // distinct 32-byte sectors they lie in: what the L1 moves
  uint64_t ideal_sectors = 0;  // the fewest sectors that hold that many bytes, ceil(bytes / 32)
  uint64_t lines = 0;          // distinct 128-byte lines
};
// `lanes` is sorted here by address.
global_cost global_request(lane_access* lanes, int count);

// Shared memory: 32 banks of 4-byte words. A wavefront reads or writes at most one word per
// bank; lanes that access the same word share it (a broadcast, no conflict). Accesses of 8
// and 16 bytes are served a half-warp at a time (lanes 0-15, then 16-31), narrower ones for the
// whole warp at once. A phase takes as many wavefronts as the most distinct words it asks of
// one bank; ideally ceil(distinct words / 32).
struct shared_cost {
  uint64_t wavefronts = 0;
  uint64_t ideal_wavefronts = 0;
};
shared_cost shared_request(const lane_access* lanes, int count);

}  // namespace cpusim::detail
