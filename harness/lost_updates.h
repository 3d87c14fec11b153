// Updates of device memory that the kernels lost: a read-modify-write without an atomic
// (`*result += part`) made by blocks, or warps, that run at the same time. On a GPU the result
// shows it; the CPU backend runs blocks one after another, so its count flavor loses them on
// purpose, as a GPU may, and counts them (cpusim/src/lost_updates.cpp). Elsewhere none are counted.
#pragma once

#include <string>

namespace lab {

// Lost updates so far in this process: callers take the difference around the call they watch.
unsigned long long lost_updates();
// Where the last launch that lost one lost its first, in a sentence; "" when none.
std::string last_lost_update();

}  // namespace lab
