#include "access_model.h"

#include <algorithm>
#include <vector>

namespace cpusim::detail {

global_cost global_request(lane_access* lanes, int count) {
  std::sort(lanes, lanes + count, [](const lane_access& a, const lane_access& b) { return a.address < b.address; });
  global_cost c;
  // Sorted by address, each lane adds what lies past the bytes already counted; the sector and
  // line of the highest byte counted so far are the only ones it can share.
  uintptr_t covered = 0, last_sector = ~uintptr_t(0), last_line = ~uintptr_t(0);
  for (int i = 0; i < count; ++i) {
    const uintptr_t begin = std::max(lanes[i].address, covered), end = lanes[i].address + lanes[i].size;
    if (end <= begin) continue;  // bytes another lane already asked for
    c.bytes += end - begin;
    const uintptr_t first_sector = begin / 32, first_line = begin / 128;
    c.sectors += (end - 1) / 32 - first_sector + 1 - (first_sector == last_sector ? 1 : 0);
    c.lines += (end - 1) / 128 - first_line + 1 - (first_line == last_line ? 1 : 0);
    last_sector = (end - 1) / 32;
    last_line = (end - 1) / 128;
    covered = end;
  }
  c.ideal_sectors = (c.bytes + 31) / 32;
  return c;
}

shared_cost shared_request(const lane_access* lanes, int count) {
  unsigned widest = 0;
  for (int i = 0; i < count; ++i) widest = std::max(widest, lanes[i].size);
  const unsigned phase_lanes = widest >= 8 ? 16 : 32;
  shared_cost c;
  thread_local std::vector<uintptr_t> words;  // reused: this runs once per warp instruction
  for (unsigned phase = 0; phase < 32 / phase_lanes; ++phase) {
    words.clear();
    for (int i = 0; i < count; ++i) {
      if (lanes[i].lane / phase_lanes != phase || lanes[i].size == 0) continue;
      for (uintptr_t w = lanes[i].address / 4; w <= (lanes[i].address + lanes[i].size - 1) / 4; ++w) words.push_back(w);
    }
    if (words.empty()) continue;  // no active lane in this half: no pass
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    unsigned per_bank[32] = {};
    unsigned most = 0;
    for (uintptr_t w : words) most = std::max(most, ++per_bank[w % 32]);
    c.wavefronts += most;
    c.ideal_wavefronts += (words.size() + 31) / 32;
  }
  return c;
}

}  // namespace cpusim::detail
