// Barriers and warp operations: a fiber records what it waits for and yields. A warp operation
// completes as soon as every lane its mask names has arrived at the same operation (the last
// lane to arrive computes everyone's result); a barrier opens only when the block is quiescent
// and every thread waits at that same barrier. What can never complete is diagnosed here.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "internal.h"
#include "sanitizer.h"

namespace cpusim::detail {

namespace {

// ThreadSanitizer sync objects of a block: [0,1] the barrier (by parity of its generation, so a
// thread that resumes late does not acquire what others released at the next barrier), [2] the
// block's start (see scheduler.cpp), then per thread two for its arrivals at warp operations and
// two for the operations it completed (again by parity).
// A warp operation orders its lanes like this: each lane releases its arrival object; the lane
// that completes the operation acquires them all and releases its completion object, which the
// other lanes acquire when they resume (2n clock operations rather than n*n).
void* barrier_sync(block_context& b, unsigned parity) { return &b.tsan_sync[parity]; }
void* arrival_sync(block_context& b, int linear, unsigned parity) { return &b.tsan_sync[3 + 4 * linear + parity]; }
void* completion_sync(block_context& b, unsigned token) { return &b.tsan_sync[3 + 4 * (token >> 1) + 2 + (token & 1)]; }

enum family { family_shfl, family_vote, family_syncwarp, family_active };
family family_of(warp_op op) {
  switch (op) {
    case shfl_idx: case shfl_up: case shfl_down: case shfl_xor: return family_shfl;
    case vote_ballot: case vote_any: case vote_all: return family_vote;
    case sync_warp: return family_syncwarp;
    default: return family_active;
  }
}

const char* op_name(warp_op op) {
  static const char* const names[] = {"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync",
                                      "__ballot_sync", "__any_sync", "__all_sync", "__syncwarp", "__activemask"};
  return names[op];
}

const char* barrier_name(barrier_kind k) {
  static const char* const names[] = {"__syncthreads()", "__syncthreads_count()", "__syncthreads_and()",
                                      "__syncthreads_or()", "this_grid().sync()"};
  return names[k];
}

// The threads of the calling thread's tile of `size` (tile_sync): the first, and how many the
// block has (a last tile may be cut short by the block's end).
int tile_first(const thread_slot& t, unsigned size) { return t.linear / int(size) * int(size); }
int tile_count(const block_context& b, int first, unsigned size) { return std::min(int(size), b.nthreads - first); }
// Where tile_arrivals counts the threads at the sync of that tile: one row per size, 64 to 1024.
size_t tile_index(const block_context& b, int first, unsigned size) {
  const size_t row = size_t(__builtin_ctz(size) - 6);
  return row * size_t((b.nthreads + 63) / 64) + size_t(first) / size;
}

std::string hex_mask(unsigned mask) {
  char text[16];
  snprintf(text, sizeof text, "0x%08x", mask);
  return text;
}

// Whether lane `other` can join the warp operation that `t` waits at.
bool joins(const thread_slot& t, const thread_slot& other) {
  if (other.state != thread_state::at_warp_op) return false;
  const family f = family_of(t.warp.op);
  if (family_of(other.warp.op) != f || other.warp.mask != t.warp.mask) return false;
  return f == family_syncwarp || same_site(t.site, other.site);  // __syncwarp may pair across lines
}

// True the first time a line asks, in the whole process.
bool first_at(call_site site) {
  static std::mutex mutex;
  static std::vector<call_site> seen;
  std::lock_guard<std::mutex> lock(mutex);
  for (const call_site& s : seen)
    if (same_site(s, site)) return false;
  seen.push_back(site);
  return true;
}

unsigned long long shuffle_result(const block_context& b, int warp_base, unsigned mask, const thread_slot& s) {
  const int lane = s.linear - warp_base;
  int width = s.warp.width;
  if (width <= 0 || width > 32 || (width & (width - 1)) != 0) width = 32;
  const int first = lane / width * width;
  int src = lane;
  switch (s.warp.op) {
    case shfl_idx: src = first + ((s.warp.param % width) + width) % width; break;
    case shfl_up: src = lane - s.warp.param >= first ? lane - s.warp.param : lane; break;
    case shfl_down: src = lane + s.warp.param < first + width ? lane + s.warp.param : lane; break;
    case shfl_xor: src = (lane ^ s.warp.param) < first + width ? lane ^ s.warp.param : lane; break;
    default: break;
  }
  // Reading a lane outside the mask is undefined on a GPU; the lane keeps its own value here, and
  // the first such read at each line is reported (a reduction that relies on it gives wrong sums).
  if (src < 0 || src >= 32 || !(mask >> src & 1)) {
    if (src >= 0 && src < 32 && first_at(s.site))
      report("warning: " + kernel_and_block(b) + " thread " + describe_thread(s.index) + " (lane " + std::to_string(lane) +
             "): " + op_name(s.warp.op) + "(" + hex_mask(mask) + ") at " + where(s.site) + " reads lane " +
             std::to_string(src) + (warp_base + src < b.nthreads ? ", which is not in the mask" : ", which does not exist") +
             ".\n  On a GPU the value it gets is undefined; here a lane that reads outside the mask gets its own value"
             " back\n  (said once per line).");
    src = lane;
  }
  return b.threads[warp_base + src].warp.value;
}

// Called by the lane that may be the last to arrive: completes the operation if it can.
bool try_complete_warp_op(block_context& b, thread_slot& t) {
  const int base = t.linear / 32 * 32;
  const unsigned mask = t.warp.mask;
  unsigned ballot = 0;
  for (int lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1)) continue;
    if (base + lane >= b.nthreads) return false;
    const thread_slot& s = b.threads[base + lane];
    if (&s != &t && !joins(t, s)) return false;
    if (s.warp.value != 0) ballot |= 1u << lane;
  }
  const unsigned token = unsigned(t.linear) << 1 | t.warp.parity;
  if (san::tsan) {
    for (int lane = 0; lane < 32; ++lane)
      if (mask >> lane & 1) san::acquire(arrival_sync(b, base + lane, b.threads[base + lane].warp.parity));
    san::release(completion_sync(b, token));
  }
  for (int lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1)) continue;
    thread_slot& s = b.threads[base + lane];
    switch (family_of(s.warp.op)) {
      case family_shfl: s.warp_result = shuffle_result(b, base, mask, s); break;
      case family_vote:
        s.warp_result = s.warp.op == vote_ballot ? ballot : s.warp.op == vote_any ? ballot != 0 : ballot == mask;
        break;
      default: s.warp_result = 0; break;
    }
    if (&s != &t) {
      s.warp.parity = token;  // now: whose completion to acquire
      s.state = thread_state::runnable;
      b.runnable.push_back(s.linear);
    }
  }
  t.state = thread_state::runnable;
  return true;
}

std::string thread_name(const thread_slot& t) { return "thread " + describe_thread(t.index); }

// What thread s is doing, for a diagnostic.
std::string doing(const block_context& b, const thread_slot& s) {
  switch (s.state) {
    case thread_state::finished:
      return s.returned.line ? "has exited the kernel: it returned at " + where(s.returned)
                             : "has exited the kernel: it reached the end of the kernel";
    case thread_state::at_barrier:
      return "waits at " + std::string(barrier_name(b.barrier_type)) + " at " + where(s.site);
    case thread_state::at_warp_op: {
      return "waits at " + std::string(op_name(s.warp.op)) + "(" + hex_mask(s.warp.mask) + ") at " + where(s.site);
    }
    case thread_state::at_tile_sync:
      return "waits at the sync of its tile of " + std::to_string(s.tile_size) + " threads at " + where(s.site);
    default: return "is still running";
  }
}

// Kept out of barrier(), which every __syncthreads calls: its strings cost the common path.
[[noreturn]] __attribute__((noinline, cold)) void grid_sync_outside_cooperative_launch(const block_context& b,
                                                                                   const thread_slot& t,
                                                                                   const char* file, int line) {
  fault_in_thread(cudaErrorLaunchFailure,
                  "error: " + kernel_and_block(b) + " " + thread_name(t) + " calls this_grid().sync() at " +
                      where({file, line}) + " in a launch that is not cooperative.\n  A grid barrier needs every "
                      "block of the grid resident at once, which only cudaLaunchCooperativeKernel guarantees (on a "
                      "GPU: a hang or an error);\n  launch the kernel with it, the grid no larger than "
                      "cudaOccupancyMaxActiveBlocksPerMultiprocessor times the multiprocessors.");
}

}  // namespace

int barrier(barrier_kind kind, int predicate, const char* file, int line) {
  thread_slot* self = current_thread;
  if (self == nullptr) return predicate;  // host code: nothing to wait for
  thread_slot& t = *self;
  block_context& b = *current_block;
  if (kind == barrier_grid && !b.launch->cooperative) grid_sync_outside_cooperative_launch(b, t, file, line);
  t.state = thread_state::at_barrier;
  t.site = {file, line};
  t.predicate = predicate;
  if (b.at_barrier == 0) {
    b.barrier_site = t.site;
    b.barrier_type = kind;
  } else if (b.barrier_mismatch < 0 && (!same_site(t.site, b.barrier_site) || kind != b.barrier_type)) {
    b.barrier_mismatch = t.linear;
  }
  ++b.at_barrier;
  t.barrier_parity = b.barrier_generation & 1;
  // A grid barrier orders every block's threads before it ahead of every block's after it.
  char* const grid_sync =
      san::tsan && kind == barrier_grid ? &b.launch->tsan_grid_sync[b.launch->grid_generation.load() & 1] : nullptr;
  if (san::tsan) {
    san::release(barrier_sync(b, t.barrier_parity));
    if (grid_sync != nullptr) san::release(grid_sync);
  }
  yield_to_scheduler(t);
  if (san::tsan) {
    san::acquire(barrier_sync(b, t.barrier_parity));
    if (grid_sync != nullptr) san::acquire(grid_sync);
  }
  t.last_barrier = t.site;
  return t.barrier_result;
}

// Every thread goes on past its barrier (inline: a block of 1024 threads passes one every round).
static inline void release_all(block_context& b, int result) {
  for (thread_slot& t : b.threads) {
    t.barrier_result = result;
    t.state = thread_state::runnable;
    b.runnable.push_back(t.linear);
  }
  b.at_barrier = 0;
  b.barrier_generation++;
}

// A grid barrier opens only when every block of the grid waits at one (cooperative.cpp).
bool complete_barrier(block_context& b) {
  if (b.at_barrier == 0 || b.at_barrier != b.live || b.live != b.nthreads || b.barrier_mismatch >= 0 ||
      b.barrier_type == barrier_grid)
    return false;
  int count = 0;
  for (const thread_slot& t : b.threads) count += t.predicate != 0;
  int result = 0;
  switch (b.barrier_type) {
    case barrier_plain: case barrier_grid: break;
    case barrier_count: result = count; break;
    case barrier_and: result = count == b.nthreads; break;
    case barrier_or: result = count != 0; break;
  }
  release_all(b, result);
  count_block_accesses(b);  // every thread is here: what they did before it is complete
  return true;
}

void release_barrier(block_context& b, int result) { release_all(b, result); }

bool in_cooperative_launch() { return current_block != nullptr && current_block->launch->cooperative; }

// A tile of several warps meets as a warp operation does: it completes when the last of its
// threads arrives (a count per tile), and orders them as one (the same ThreadSanitizer objects).
// Like __syncwarp, it pairs calls on different lines.
void tile_sync(unsigned size, const char* file, int line) {
  thread_slot* self = current_thread;
  if (self == nullptr) return;  // host code
  thread_slot& t = *self;
  block_context& b = *current_block;
  const int first = tile_first(t, size), count = tile_count(b, first, size);
  t.state = thread_state::at_tile_sync;
  t.site = {file, line};
  t.tile_size = size;
  t.warp.parity = t.warp_ops++ & 1u;
  if (san::tsan) san::release(arrival_sync(b, t.linear, t.warp.parity));
  int& arrived = b.tile_arrivals[tile_index(b, first, size)];
  if (++arrived < count) {
    yield_to_scheduler(t);
    if (san::tsan) san::acquire(completion_sync(b, t.warp.parity));
    return;
  }
  arrived = 0;
  const unsigned token = unsigned(t.linear) << 1 | t.warp.parity;
  if (san::tsan) {
    for (int i = first; i < first + count; ++i) san::acquire(arrival_sync(b, i, b.threads[i].warp.parity));
    san::release(completion_sync(b, token));
  }
  for (int i = first; i < first + count; ++i) {
    thread_slot& s = b.threads[i];
    if (&s == &t) continue;
    s.warp.parity = token;
    s.state = thread_state::runnable;
    b.runnable.push_back(s.linear);
  }
  t.state = thread_state::runnable;
}

void* tile_scratch() {
  block_context& b = *current_block;
  if (b.tile_scratch == nullptr) {
    b.tile_scratch = static_cast<char*>(b.arena->allocate(size_t((b.nthreads + 31) / 32) * 64, 64));
    if (b.tile_scratch == nullptr)
      fault_in_thread(cudaErrorLaunchOutOfResources,
                      "error: " + kernel_and_block(b) + ": no shared memory left for cg::reduce over a tile of several warps");
  }
  return b.tile_scratch;
}

unsigned long long warp_sync_op(warp_op op, unsigned mask, unsigned long long value, int param, int width,
                                const char* file, int line) {
  thread_slot* self = current_thread;
  if (self == nullptr) return op == active_mask ? 1u : value;  // host code
  thread_slot& t = *self;
  block_context& b = *current_block;
  const int lane = t.linear % 32;
  if (op != active_mask && !(mask >> lane & 1)) {
    fault_in_thread(cudaErrorLaunchFailure, "error: " + kernel_and_block(b) + " " + thread_name(t) + " (lane " +
                                                std::to_string(lane) + ") calls " + op_name(op) + " with mask " + hex_mask(mask) +
                                                " at " + where({file, line}) +
                                                ", which does not include its own lane");
  }
  t.warp = {op, mask, value, param, width, t.warp_ops++ & 1u};
  t.site = {file, line};
  t.state = thread_state::at_warp_op;
  if (san::tsan) san::release(arrival_sync(b, t.linear, t.warp.parity));
  // __activemask waits for quiescence; the others complete as soon as their lanes are here.
  if (op == active_mask || !try_complete_warp_op(b, t)) {
    yield_to_scheduler(t);
    if (san::tsan && op != active_mask) san::acquire(completion_sync(b, t.warp.parity));
  }
  return t.warp_result;
}

bool complete_active_masks(block_context& b) {
  bool any = false;
  for (int base = 0; base < b.nthreads; base += 32) {
    const int lanes = b.nthreads - base < 32 ? b.nthreads - base : 32;
    for (int l = 0; l < lanes; ++l) {
      thread_slot& t = b.threads[base + l];
      if (t.state != thread_state::at_warp_op || t.warp.op != active_mask) continue;
      // The lanes here together are the ones at the same __activemask().
      unsigned mask = 0;
      for (int k = 0; k < lanes; ++k) {
        const thread_slot& s = b.threads[base + k];
        if (s.state == thread_state::at_warp_op && s.warp.op == active_mask && same_site(s.site, t.site))
          mask |= 1u << k;
      }
      for (int k = 0; k < lanes; ++k) {
        if (!(mask >> k & 1)) continue;
        thread_slot& s = b.threads[base + k];
        s.warp_result = mask;
        s.state = thread_state::runnable;
        b.runnable.push_back(s.linear);
      }
      any = true;
    }
  }
  return any;
}

namespace {

// A warp operation that cannot complete: find a lane of its mask that is elsewhere. True when
// found, the block faulted with HEAD and why.
bool diagnose_warp_op(block_context& b, const std::string& head) {
  for (thread_slot& t : b.threads) {
    if (t.state != thread_state::at_warp_op) continue;
    const int base = t.linear / 32 * 32;
    for (int lane = 0; lane < 32; ++lane) {
      if (!(t.warp.mask >> lane & 1)) continue;
      std::string op = std::string(op_name(t.warp.op)) + "(" + hex_mask(t.warp.mask) + ") at " + where(t.site);
      if (base + lane >= b.nthreads) {
        fault_in_block(b, cudaErrorLaunchFailure,
                       head + thread_name(t) + " waits at " + op + ", but lane " + std::to_string(lane) +
                           " of its warp does not exist (the block has " + std::to_string(b.nthreads) +
                           " threads).\n  A warp operation's mask may only name lanes that exist and reach it.");
        return true;
      }
      const thread_slot& s = b.threads[base + lane];
      if (&s == &t || joins(t, s)) continue;
      fault_in_block(b, cudaErrorLaunchFailure,
                     head + thread_name(t) + " waits at " + op + ", but lane " + std::to_string(lane) + ", " +
                         thread_name(s) + ", " + doing(b, s) +
                         ".\n  Every lane named in a warp operation's mask must reach that same operation"
                         " (on a GPU this is undefined behaviour: a hang or wrong values).");
      return true;
    }
  }
  return false;
}

// A tile of several warps whose sync cannot complete: find a thread of the tile that is
// elsewhere. True when found, the block faulted.
bool diagnose_tile_sync(block_context& b, const std::string& head) {
  for (thread_slot& t : b.threads) {
    if (t.state != thread_state::at_tile_sync) continue;
    const int first = tile_first(t, t.tile_size), count = tile_count(b, first, t.tile_size);
    for (int i = first; i < first + count; ++i) {
      const thread_slot& s = b.threads[i];
      if (s.state == thread_state::at_tile_sync && s.tile_size == t.tile_size) continue;
      fault_in_block(b, cudaErrorLaunchFailure,
                     head + thread_name(t) + " waits at the sync of its tile of " + std::to_string(t.tile_size) +
                         " threads (threads " + std::to_string(first) + " to " + std::to_string(first + count - 1) +
                         " of the block) at " + where(t.site) + ", but " + thread_name(s) + " " + doing(b, s) +
                         ".\n  Every thread of a tile must reach its sync (on a GPU: a hang or wrong values).");
      return true;
    }
  }
  return false;
}

// Barriers: threads at different barriers, or some threads gone. True when so, the block faulted.
bool diagnose_barrier(block_context& b, const std::string& head) {
  const thread_slot* waiting = nullptr;
  const thread_slot* other = nullptr;
  for (const thread_slot& t : b.threads) {
    if (t.state == thread_state::at_barrier && same_site(t.site, b.barrier_site) && !waiting) waiting = &t;
    if (t.state == thread_state::at_barrier && !same_site(t.site, b.barrier_site) && !other) other = &t;
  }
  const thread_slot* gone = nullptr;
  for (const thread_slot& t : b.threads)
    if (t.state == thread_state::finished) {
      gone = &t;
      break;
    }
  if (waiting && other) {
    fault_in_block(b, cudaErrorLaunchFailure,
                   head + "threads wait at different barriers: " + thread_name(*waiting) + " at " +
                       where(waiting->site) + ", " + thread_name(*other) + " at " + where(other->site) +
                       ".\n  Every thread of a block must reach the same __syncthreads() (divergent barrier:"
                       " on a GPU a hang or wrong results).");
    return true;
  }
  if (waiting && gone) {
    fault_in_block(b, cudaErrorLaunchFailure,
                   head + std::to_string(b.at_barrier) + " threads wait at " + barrier_name(b.barrier_type) + " at " +
                       where(waiting->site) + ", but " + std::to_string(b.nthreads - b.live) +
                       " threads will never arrive: " + thread_name(*gone) + " " + doing(b, *gone) +
                       ".\n  Every thread of a block must reach each " +
                       (b.barrier_type == barrier_grid ? "this_grid().sync()" : "__syncthreads()") +
                       "; a 'return' before a barrier is the usual cause\n  (keep the threads alive and guard only"
                       " their memory accesses).");
    return true;
  }
  return false;
}

}  // namespace

void diagnose_deadlock(block_context& b) {
  const std::string head = "error: " + kernel_and_block(b) + ": ";
  if (diagnose_warp_op(b, head) || diagnose_tile_sync(b, head) || diagnose_barrier(b, head)) return;
  fault_in_block(b, cudaErrorLaunchFailure, head + "the block's threads wait for each other forever (deadlock)");
}

}  // namespace cpusim::detail

namespace cpusim {
void kernel_return(const char* file, int line) {
  if (detail::current_thread) detail::current_thread->returned = {file, line};
}
}  // namespace cpusim
