// Runs one block: every CUDA thread is a fiber, and the block's fibers take turns on this OS
// thread. A round resumes each runnable fiber once, in CPUSIM_SCHEDULE's order; a fiber runs until
// it waits (barrier, warp operation) or ends. When a round leaves nothing runnable, the block is
// quiescent: then a barrier that every thread reached opens, or else nothing can ever proceed,
// which is a bug in the kernel (divergent barrier, warp mask naming an exited lane...).
#include <algorithm>
#include <mutex>

#include "internal.h"
#include "sanitizer.h"

__thread uint3 threadIdx;
__thread uint3 blockIdx;
__thread dim3 blockDim;
__thread dim3 gridDim;

namespace cpusim::detail {

__thread thread_slot* current_thread = nullptr;
__thread block_context* current_block = nullptr;
char tsan_launch_done;

namespace {

// Stacks stay with their pool: Boost's allocator interface has nothing to do.
struct pooled_stack {
  boost::context::stack_context allocate() { std::abort(); }  // stacks are preallocated
  void deallocate(boost::context::stack_context&) noexcept {}
};

// One CUDA thread, run by its fiber.
void run_thread(thread_slot& t) {
  block_context& b = *current_block;
  if (san::tsan) san::acquire(&b.tsan_sync[2]);  // the block's setup (its shared memory...)
  // A kernel that throws is a fault; we leave the catch block before abandoning the fiber,
  // since the C++ runtime keeps caught exceptions per OS thread, not per fiber.
  std::string thrown;
  try {
    b.launch->invoke(b.launch->body);
  } catch (const std::exception& e) {
    thrown = std::string("a C++ exception: ") + e.what();
  } catch (...) {
    thrown = "a C++ exception";
  }
  if (!thrown.empty())
    fault_in_thread(cudaErrorLaunchFailure, "error: " + kernel_and_block(b) + " thread " +
                                                describe_thread(t.index) + " threw " + thrown);
  t.state = thread_state::finished;
  check_recent_loads(t);
  san::release(&tsan_launch_done);
}

// The life of a fiber: CUDA thread after CUDA thread. Making a fiber, with the switches that start
// and end it, costs more than the whole thread in a grid of many small blocks (lab 02's grid-limit
// shape runs 67 million threads), so a fiber whose thread ended waits at the end of this loop, and
// the scheduler resumes it as the same thread index of a later block (current_thread says which).
struct fiber_main {
  boost::context::fiber operator()(boost::context::fiber&& scheduler) {
    thread_slot* t = current_thread;
    t->scheduler = std::move(scheduler);
    san::fiber_started(*t);
    for (;;) {
      run_thread(*t);
      t->stack_hint = static_cast<const char*>(__builtin_frame_address(0));
      san::leave_fiber(*t, current_block->tsan_scheduler);
      boost::context::fiber back = std::move(t->scheduler).resume();
      t = current_thread;
      t->scheduler = std::move(back);
      san::back_in_fiber(*t);
    }
  }
};

// A finished thread's fiber waits in its slot's pool for the next block.
void park(block_slot& s, thread_slot& t) {
  if (s.parked.size() <= size_t(t.pool_index)) s.parked.resize(size_t(t.pool_index) + 1);
  parked_fiber& p = s.parked[size_t(t.pool_index)];
  p.context = std::move(t.context);
  p.fake_stack = t.fiber_fake_stack;
  p.scheduler_stack_bottom = t.scheduler_stack_bottom;
  p.scheduler_stack_size = t.scheduler_stack_size;
}

// Fibers of a failed block that had not finished are never resumed again, and never destroyed:
// destroying a suspended boost fiber unwinds it, which would run through the kernel's frames (and
// through __assert_fail, which may not throw). Their stacks are leaked with them.
std::mutex abandoned_mutex;
std::vector<boost::context::fiber*> abandoned;

void abandon(block_slot& s, thread_slot& t) {
  std::lock_guard<std::mutex> lock(abandoned_mutex);
  abandoned.push_back(new boost::context::fiber(std::move(t.context)));
  s.stacks.forget(t.pool_index);
}

// ThreadSanitizer fibers are costly to create (about a millisecond each) and to keep (770 KB of
// state each), so they are reused, as few as can be: in a block of n threads, thread i gets the
// slot's fiber (and stack) number (i + k) mod (n + 1) in the slot's k-th block. Thread i of two
// blocks less than n + 1 apart on the same OS thread then has two fibers, which ThreadSanitizer
// does not order, so a race between them is found (the usual one: thread 0 of every block adding
// to one total); only thread i + d of a block and thread i of the block d later share a fiber,
// and a race between just those two would go unseen.
int pool_index(const block_slot& s, const block_context& b, const thread_slot& t) {
  return san::tsan ? int((t.linear + s.blocks_run) % (unsigned long long)(b.nthreads + 1)) : t.linear;
}

// False when there is no memory left for its stack (the launch then fails: start_threads).
bool start_fiber(block_slot& s, block_context& b, thread_slot& t) {
  t.pool_index = pool_index(s, b, t);
  t.stack = s.stacks.take(t.pool_index);
  if (t.stack.base == nullptr) return false;
  if (size_t(t.pool_index) < s.parked.size() && s.parked[size_t(t.pool_index)].context) {
    parked_fiber& p = s.parked[size_t(t.pool_index)];
    t.context = std::move(p.context);
    t.fiber_fake_stack = p.fake_stack;
    t.scheduler_stack_bottom = p.scheduler_stack_bottom;
    t.scheduler_stack_size = p.scheduler_stack_size;
  } else {
    boost::context::stack_context sctx;
    // Each stack's top at another offset within a page: stacks a whole number of pages apart
    // would put every fiber's hot frames in the same few cache sets, and switching through a
    // block's threads would miss the cache at each switch.
    const size_t stagger = size_t(t.pool_index) * 64 % 4096;
    sctx.size = t.stack.size - stagger;
    sctx.sp = t.stack.base + sctx.size;
    t.context = boost::context::fiber(std::allocator_arg, boost::context::preallocated(sctx.sp, sctx.size, sctx),
                                      pooled_stack{}, fiber_main{});
  }
#if defined(CPUSIM_TSAN)
  std::vector<void*>& fibers = s.stacks.tsan_fibers;
  if (fibers.size() <= size_t(t.pool_index)) fibers.resize(size_t(t.pool_index) + 1);
  if (fibers[t.pool_index] == nullptr) fibers[t.pool_index] = __tsan_create_fiber(0);
  t.tsan_fiber = fibers[t.pool_index];
  char name[96];
  snprintf(name, sizeof name, "CUDA block (%u,%u,%u) thread (%u,%u,%u)", b.index.x, b.index.y, b.index.z,
           t.index.x, t.index.y, t.index.z);
  __tsan_set_fiber_name(t.tsan_fiber, name);
#endif
  (void)b;
  return true;
}

void resume(thread_slot& t) {
  threadIdx = t.index;
  current_thread = &t;
  san::enter_fiber(t);
  t.context = std::move(t.context).resume();
  san::back_in_scheduler(t);
  current_thread = nullptr;
}

void order_round(block_context& b, std::vector<int>& round) {
  switch (config().schedule) {
    case schedule_kind::forward: break;
    case schedule_kind::reverse: std::reverse(round.begin(), round.end()); break;
    case schedule_kind::alternate:
      if (b.linear_index % 2 == 1) std::reverse(round.begin(), round.end());
      break;
    case schedule_kind::random: std::shuffle(round.begin(), round.end(), b.rng); break;
  }
}

// Makes `b` the launch's block number `linear_index`, and the one this OS thread runs: its
// index, counters and seed, the CUDA built-in variables, its shared memory.
void begin_block(block_context& b, launch_state& launch, unsigned long long linear_index, block_slot& s) {
  const dim3 g = launch.grid;
  b.launch = &launch;
  b.linear_index = linear_index;
  b.index = uint3{unsigned(linear_index % g.x), unsigned(linear_index / g.x % g.y), unsigned(linear_index / g.x / g.y)};
  b.nthreads = launch.nthreads;
  b.live = b.nthreads;
  b.at_barrier = 0;
  b.barrier_mismatch = -1;
  b.barrier_generation = 0;
  b.fault = cudaSuccess;
  // Seeding costs about a microsecond (312 words): only the random schedule draws from it.
  if (config().schedule == schedule_kind::random) b.rng.seed(config().seed ^ (linear_index * 0x9E3779B97F4A7C15ull));
  // Fibers push to these vectors; reserving here keeps the fibers from allocating, which
  // ThreadSanitizer would see as the fibers racing on the runtime's own memory.
  b.runnable.clear();
  b.runnable.reserve(size_t(b.nthreads));
  b.round.reserve(size_t(b.nthreads));
  b.shared.reserve(256);
  b.tile_scratch = nullptr;
  b.tile_arrivals.assign(5 * size_t((b.nthreads + 63) / 64), 0);  // tile syncs, tiles of 64 to 1024 (sync.cpp)
  if (san::tsan) {
    // Fresh heap memory: freeing the previous block's sync objects forgets their clocks, so no
    // order leaks from one block to the next through them.
    b.tsan_sync = std::vector<char>(3 + 4 * size_t(b.nthreads));
#if defined(CPUSIM_TSAN)
    b.tsan_scheduler = __tsan_get_current_fiber();
#endif
  }
  b.arena = &s.arena;
  s.arena.begin_block(b, launch.dynamic_bytes);
  enter_block(b);
}

// A fiber for every thread of the block, none started yet; the first round (b.round): every
// thread, in index order. Without memory for the stacks the block fails, as a GPU fails a launch
// that asks for more than it has.
void start_threads(block_context& b, block_slot& s) {
  const dim3 d = b.launch->block;
  b.threads.resize(b.nthreads);
  b.round.resize(b.nthreads);
  for (int i = 0; i < b.nthreads; ++i) {
    thread_slot& t = b.threads[i];
    t.index = uint3{unsigned(i) % d.x, unsigned(i) / d.x % d.y, unsigned(i) / d.x / d.y};
    t.linear = i;
    t.state = thread_state::runnable;
    t.returned = {};
    t.last_barrier = {};
    t.warp_ops = 0;
#if defined(CPUSIM_COUNT_ACCESSES)
    t.next_recent_load = 0;
    for (recent_load& l : t.recent_loads) l.size = 0;
    t.made_atomic = false;
#endif
    if (!start_fiber(s, b, t)) {
      fault_in_block(b, cudaErrorLaunchOutOfResources,
                     "error: " + kernel_and_block(b) + ": no memory left for the stacks of its threads (" +
                         std::to_string(config().stack_bytes / 1024) + " KB each, CPUSIM_STACK_KB; " +
                         std::to_string(i) + " of " + std::to_string(b.nthreads) +
                         " made).\n  Fewer threads resident at once (a smaller cooperative grid, fewer CPUSIM_THREADS)"
                         " need fewer stacks.");
      b.threads.resize(size_t(i));
      b.round.clear();
      return;
    }
    b.round[i] = i;
  }
  // Fiber identities are reused across blocks, so their creation does not order them after this
  // block's setup: this release (acquired as each fiber starts) does.
  if (san::tsan) san::release(&b.tsan_sync[2]);
}

// Every thread of the block waits at the same grid barrier (this_grid().sync()).
bool at_grid_barrier(const block_context& b) {
  return b.barrier_type == barrier_grid && b.at_barrier > 0 && b.at_barrier == b.live && b.live == b.nthreads &&
         b.barrier_mismatch < 0;
}

// Rounds until every thread has finished, one has faulted, none can ever proceed, or (true) all
// wait at a grid barrier, which only the launch can open (cooperative.cpp).
bool run_rounds(block_context& b) {
  std::vector<int>& round = b.round;
  for (;;) {
    order_round(b, round);
    // The round does not change while it runs (fibers add to b.runnable): held in registers
    // across the fiber switches rather than read from the block again after each.
    const int* const ids = round.data();
    const size_t count = round.size();
    for (size_t k = 0; k < count; ++k) {
      thread_slot& t = b.threads[ids[k]];
      // The next fiber's stack, where it will resume, into the cache while this one runs: a
      // block's fibers take turns through more stack than the cache holds (lab 02's tall shape
      // ran 11% faster with this).
      if (k + 1 < count) {
        const char* hint = b.threads[ids[k + 1]].stack_hint;
        if (hint != nullptr)
          for (int line = -6; line < 6; ++line) __builtin_prefetch(hint + line * 64);
      }
      resume(t);
      if (b.fault != cudaSuccess) break;
      if (t.state == thread_state::finished) --b.live;
    }
    if (b.fault != cudaSuccess) break;
    round.swap(b.runnable);
    b.runnable.clear();
    if (!round.empty()) continue;
    if (b.live == 0) break;
    // Quiescent: open what can open, else nothing will ever run again.
    if (complete_active_masks(b) || complete_barrier(b)) {
      round.swap(b.runnable);
      b.runnable.clear();
      continue;
    }
    if (at_grid_barrier(b)) {
      count_block_accesses(b);  // every thread is here: what they did before it is complete
      return true;
    }
    diagnose_deadlock(b);
    break;
  }
  return false;
}

// What outlives the block: its fibers, its memory traffic, its static shared
// memory in the launch's largest.
void end_block(block_context& b, launch_state& launch, block_slot& s) {
  for (thread_slot& t : b.threads) {
    if (!t.context) continue;
    if (t.state == thread_state::finished) park(s, t);
    else abandon(s, t);  // the block failed
  }
  count_block_accesses(b);
  ++s.blocks_run;
  size_t seen = launch.static_shared_bytes.load();
  while (b.static_shared_bytes > seen && !launch.static_shared_bytes.compare_exchange_weak(seen, b.static_shared_bytes)) {
  }
  current_block = nullptr;
}

}  // namespace

void yield_to_scheduler(thread_slot& t) {
  t.stack_hint = static_cast<const char*>(__builtin_frame_address(0));
  check_recent_loads(t);
  san::leave_fiber(t, current_block->tsan_scheduler);
  t.scheduler = std::move(t.scheduler).resume();
  san::back_in_fiber(t);
  refresh_recent_loads(t);
}

void enter_block(block_context& b) {
  blockIdx = b.index;
  blockDim = b.launch->block;
  gridDim = b.launch->grid;
  current_block = &b;
  dynamic_shared_base = b.dynamic_shared;
}

void run_block(launch_state& launch, unsigned long long linear_index, block_slot& s) {
  start_block(launch, linear_index, s);
  run_rounds(s.block);
  end_block(s.block, launch, s);
}

void start_block(launch_state& launch, unsigned long long linear_index, block_slot& s) {
  begin_block(s.block, launch, linear_index, s);
  start_threads(s.block, s);
}

bool run_until_grid_barrier(block_context& b) {
  enter_block(b);
  return run_rounds(b);
}

void open_grid_barrier(block_context& b) {
  release_barrier(b, 0);
}

void finish_block(block_slot& s) {
  enter_block(s.block);
  end_block(s.block, *s.block.launch, s);
}

block_slot& worker::slot(size_t i) {
  while (slots.size() <= i) slots.push_back(std::make_unique<block_slot>());
  return *slots[i];
}

}  // namespace cpusim::detail
