// Cooperative launches (cudaLaunchCooperativeKernel): every block of the grid resident at once,
// so that a grid barrier (this_grid().sync()) can open. A GPU guarantees it by refusing a grid
// larger than its multiprocessors hold at once (launch.cpp checks the same occupancy); here each
// OS thread is a multiprocessor and keeps its share of the blocks resident, each in a slot of its
// own (its fibers' stacks, its shared memory). It runs them one after another, each until all its
// threads wait at the grid barrier or it ends, then waits for the other OS threads: when every
// block of the grid waits, the barrier opens and they all go on. A block that ends while others
// wait is a bug of the kernel (the grid would hang on a GPU), reported with both blocks.
#include <condition_variable>
#include <mutex>

#include "internal.h"

namespace cpusim::detail {

// Where the OS threads of a cooperative launch meet when each has run its blocks as far as they go.
struct grid_rendezvous {
  std::mutex mutex;
  std::condition_variable met;
  int multiprocessors = 0;
  unsigned long long blocks = 0;
  int arrived = 0;                      // OS threads at the meeting now
  unsigned long long ended = 0;         // blocks that have ended, in all
  unsigned meeting = 0;                 // meetings held
  enum verdict { open, done, stop } last = open;
  // For the report of a grid barrier that can never open.
  bool have_waiting = false, have_ended = false;
  uint3 waiting_block{}, ended_block{};
  call_site waiting_at, ended_at;       // the barrier; where the ended block's thread 0 returned
};

std::shared_ptr<grid_rendezvous> make_rendezvous(const launch_state& launch) {
  auto r = std::make_shared<grid_rendezvous>();
  r->multiprocessors = launch.multiprocessors;
  r->blocks = launch.total_blocks;
  return r;
}

namespace {

std::string block_name(uint3 b) { return "block " + describe_thread(b); }

// The last OS thread to arrive decides: every block waits (the barrier opens), every block has
// ended (the launch is done), or some of each (the barrier can never open: a fault), or a block
// failed (stop).
grid_rendezvous::verdict decide(grid_rendezvous& r, launch_state& launch) {
  if (launch.error.load() != cudaSuccess) return grid_rendezvous::stop;
  if (r.ended == r.blocks) return grid_rendezvous::done;
  if (r.ended == 0) {
    ++launch.grid_generation;
    return grid_rendezvous::open;
  }
  const std::string returned = r.ended_at.line ? "its thread (0,0,0) returned at " + where(r.ended_at)
                                               : "its threads reached the end of the kernel";
  int none = cudaSuccess;
  if (launch.error.compare_exchange_strong(none, cudaErrorLaunchFailure))
    report("error: kernel '" + std::string(launch.site.name) + "': " + block_name(r.waiting_block) + " waits at " +
           "this_grid().sync() at " + where(r.waiting_at) + ", but " + block_name(r.ended_block) +
           " has exited the kernel (" + returned + "),\n  so the grid barrier can never open. Every block of a "
           "cooperative grid must reach each this_grid().sync() (on a GPU the grid hangs).");
  return grid_rendezvous::stop;
}

grid_rendezvous::verdict meet(grid_rendezvous& r, launch_state& launch) {
  std::unique_lock<std::mutex> lock(r.mutex);
  const unsigned meeting = r.meeting;
  if (++r.arrived == r.multiprocessors) {
    r.last = decide(r, launch);
    r.arrived = 0;
    r.have_waiting = false;
    ++r.meeting;
    r.met.notify_all();
  } else {
    r.met.wait(lock, [&] { return r.meeting != meeting; });
  }
  return r.last;
}

}  // namespace

void run_resident_blocks(launch_state& launch) {
  grid_rendezvous& r = *launch.rendezvous;
  const int multiprocessor = launch.next_multiprocessor++;
  worker& w = this_worker();
  std::vector<block_slot*> resident;
  for (unsigned long long i = multiprocessor, slot = 0; i < launch.total_blocks; i += launch.multiprocessors, ++slot) {
    block_slot& s = w.slot(slot);
    start_block(launch, block_in_order(launch, i), s);
    resident.push_back(&s);
  }
  std::vector<bool> ended(resident.size(), false);
  for (;;) {
    unsigned long long newly_ended = 0;
    for (size_t k = 0; k < resident.size(); ++k) {
      if (ended[k]) continue;
      block_context& b = resident[k]->block;
      if (launch.error.load() == cudaSuccess && b.fault == cudaSuccess && run_until_grid_barrier(b)) {
        std::lock_guard<std::mutex> lock(r.mutex);
        if (!r.have_waiting) r.have_waiting = true, r.waiting_block = b.index, r.waiting_at = b.barrier_site;
        continue;
      }
      if (b.fault == cudaSuccess && !b.threads.empty()) {
        std::lock_guard<std::mutex> lock(r.mutex);
        if (!r.have_ended) r.have_ended = true, r.ended_block = b.index, r.ended_at = b.threads[0].returned;
      }
      finish_block(*resident[k]);
      ended[k] = true;
      ++newly_ended;
    }
    {
      std::lock_guard<std::mutex> lock(r.mutex);
      r.ended += newly_ended;
    }
    const grid_rendezvous::verdict v = meet(r, launch);
    if (v == grid_rendezvous::open) {
      for (size_t k = 0; k < resident.size(); ++k)
        if (!ended[k]) open_grid_barrier(resident[k]->block);
      continue;
    }
    // Done, or stopped: blocks still waiting are abandoned with their fibers.
    for (size_t k = 0; k < resident.size(); ++k)
      if (!ended[k]) finish_block(*resident[k]);
    return;
  }
}

}  // namespace cpusim::detail
