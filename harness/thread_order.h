// Another order for the threads of the next launches, where the backend lets a program choose:
// a result that changes when a kernel runs again in another order is the mark of a race (a
// missing __syncthreads, threads writing the same element). The CPU backend runs each block's
// threads, and the blocks, in reverse (cpusim::reverse_thread_order); a GPU chooses its own order,
// so a second run there may or may not differ.
#pragma once

namespace lab {

// True when the order changed (the CPU backend), false on a GPU.
bool reverse_thread_order();

}  // namespace lab
