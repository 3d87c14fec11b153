// The runtime's shared vocabulary: a CUDA thread (a fiber), a block (the fibers that one OS
// thread runs together), a launch (a grid of blocks spread over a pool of OS threads).
#pragma once

#include <atomic>
#include <boost/context/fiber.hpp>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "../include/cpusim/cpusim.h"

namespace cpusim::detail {

// Fills memory nobody has written yet (cudaMalloc'd buffers, shared memory at block start)
// with a NaN of cpusim's own, 0x7FC5A5A5. Reading it before writing shows as NaN results,
// and it differs from the lab harness's output poison (0xFF bytes), so a report can tell
// "computed from garbage" from "never written".
void fill_garbage(void* p, size_t bytes);

struct call_site {
  const char* file = nullptr;
  int line = 0;
};
bool same_site(call_site a, call_site b);
std::string where(call_site s);  // "file:line"

// ---- settings, read once from the environment ----
// alternate: forward in even-numbered blocks, reverse in odd ones (one run that has both orders)
enum class schedule_kind { forward, reverse, alternate, random };
struct settings {
  int threads;              // CPUSIM_THREADS: OS threads that run blocks
  schedule_kind schedule;   // CPUSIM_SCHEDULE: order of threads between barriers, and of blocks
  uint64_t seed;            // CPUSIM_SCHEDULE=random:SEED
  size_t stack_bytes;       // CPUSIM_STACK_KB: the stack of each CUDA thread
  double timeout_s;         // CPUSIM_TIMEOUT_S: the watchdog's limit for one launch
  const char* launch_log;   // CPUSIM_LAUNCH_LOG: file that gets one line per launch
};
const settings& config();

// ---- fiber stacks ----
struct stack_span {
  char* base = nullptr;  // lowest usable address; the guard page lies just below
  size_t size = 0;
};
// The stacks of an OS thread, reused from block to block (and, under ThreadSanitizer, fiber
// identities: see scheduler.cpp).
struct stack_pool {
  std::vector<stack_span> by_thread;
  std::vector<void*> tsan_fibers;
  stack_span take(int thread);
  void forget(int thread);  // the stack of an abandoned fiber is never used again
};

// ---- one CUDA thread ----
// The count flavor (access_count.cpp): one load, store or atomic of a CUDA thread, in order.
struct recorded_access {
  uintptr_t site;     // the instruction: where the hook was called from
  uintptr_t address;
  unsigned size;
  uint8_t kind;       // load, store, atomic
  uint8_t space;      // global, shared
};

// The count flavor: a load of device memory and the bytes it read (lost_updates.cpp).
struct recent_load {
  uintptr_t address;
  unsigned size;       // 0: none
  uintptr_t site;      // the instruction, as recorded_access's
  unsigned char bytes[16];
};

enum class thread_state : uint8_t { runnable, at_barrier, at_warp_op, at_tile_sync, finished, abandoned };

struct warp_request {
  warp_op op;
  unsigned mask;
  unsigned long long value;
  int param;
  int width;
  unsigned parity;  // ThreadSanitizer: its arrival object; then the completing lane's token (sync.cpp)
};

struct thread_slot {
  boost::context::fiber context;    // the suspended fiber (empty while it runs or once it ended)
  boost::context::fiber scheduler;  // held by the running fiber: where it yields to
  uint3 index;
  int linear = 0;
  thread_state state = thread_state::runnable;
  call_site site;                   // the barrier or warp operation it waits at
  call_site last_barrier;           // the last barrier it passed, for diagnostics
  call_site returned;               // its last `return;` in a kernel body
  int predicate = 0, barrier_result = 0;
  unsigned barrier_parity = 0;
  warp_request warp{};
  unsigned long long warp_result = 0;
  unsigned tile_size = 0;           // at_tile_sync: the size of its tile of several warps (sync.cpp)
  unsigned warp_ops = 0;
  stack_span stack;
  const char* stack_hint = nullptr;  // near where its fiber's stack was last in use
  int pool_index = 0;               // which of the OS thread's stacks (see scheduler.cpp)
  // sanitizer bookkeeping for fiber switches
  void* fiber_fake_stack = nullptr;
  void* scheduler_fake_stack = nullptr;
  const void* scheduler_stack_bottom = nullptr;
  size_t scheduler_stack_size = 0;
  void* tsan_fiber = nullptr;
  // the count flavor: this thread's global and shared accesses since the block's last barrier
  // (when the launch is counted), the addresses of its last loads and whether it made an atomic
  // (lost_updates.cpp)
  std::vector<recorded_access> accesses;
  static constexpr int kRecentLoads = 4;
  recent_load recent_loads[kRecentLoads] = {};
  unsigned next_recent_load = 0;
  bool made_atomic = false;
};

struct launch_state;
struct grid_rendezvous;
struct launch_counts;
struct launch_updates;
struct shared_arena;

// A __shared__ allocation of the running block.
struct shared_region {
  const void* site;
  char* data;
  size_t size;
  const char* name;
  call_site declared;
};

// ---- one block: its fibers and its synchronization state ----
struct block_context {
  launch_state* launch = nullptr;
  uint3 index{};
  unsigned long long linear_index = 0;
  int nthreads = 0;
  std::vector<thread_slot> threads;
  std::vector<int> round;           // fibers to resume in this round
  std::vector<int> runnable;        // fibers to resume in the next round
  int live = 0;                     // not finished
  int at_barrier = 0;
  call_site barrier_site;
  barrier_kind barrier_type = barrier_plain;
  int barrier_mismatch = -1;        // a thread waiting at another barrier than the first one
  unsigned barrier_generation = 0;
  std::vector<shared_region> shared;
  size_t static_shared_bytes = 0;
  shared_arena* arena = nullptr;    // its shared memory (its slot's: see block_slot)
  char* dynamic_shared = nullptr;   // where its extern __shared__ memory begins
  char* tile_scratch = nullptr;     // cg::reduce over tiles of several warps: a slot per warp (sync.cpp)
  std::vector<int> tile_arrivals;   // threads at each tile's sync, by tile size and index (sync.cpp)
  cudaError_t fault = cudaSuccess;
  std::mt19937_64 rng;
  std::vector<char> tsan_sync;      // addresses that barriers and warp ops release and acquire
  void* tsan_scheduler = nullptr;
};

// ---- one launch ----
struct launch_state {
  launch_site site;
  dim3 grid, block;
  size_t dynamic_bytes = 0;
  void (*invoke)(const void*) = nullptr;
  const void* body = nullptr;
  int nthreads = 0;
  unsigned long long total_blocks = 0;
  unsigned long long order_a = 1, order_b = 0;  // block i runs as (a*i + b) mod total
  uint64_t serial = 0;                          // tells this launch from an earlier one
  std::atomic<unsigned long long> next_block{0};
  std::atomic<int> error{cudaSuccess};
  std::atomic<size_t> static_shared_bytes{0};
  // A cooperative launch (cudaLaunchCooperativeKernel): every block resident at once, spread
  // over `multiprocessors` OS threads, and grid barriers between them (cooperative.cpp).
  bool cooperative = false;
  int multiprocessors = 0;
  std::atomic<int> next_multiprocessor{0};
  std::shared_ptr<grid_rendezvous> rendezvous;
  std::atomic<unsigned> grid_generation{0};    // grid barriers opened so far
  char tsan_grid_sync[2] = {};                 // ThreadSanitizer: a grid barrier, by parity
  // the count flavor: what its warps' accesses cost (access_count.cpp; null when nobody asked,
  // CPUSIM_LAUNCH_LOG) and its updates of device memory (lost_updates.cpp); null in other flavors
  std::shared_ptr<launch_counts> counts;
  std::shared_ptr<launch_updates> updates;
};

// The launch's i-th block in the order CPUSIM_SCHEDULE asks for (launch.cpp sets a and b).
inline unsigned long long block_in_order(const launch_state& launch, unsigned long long i) {
  return (unsigned long long)(((unsigned __int128)launch.order_a * i + launch.order_b) % launch.total_blocks);
}

// ---- per OS thread ----
struct shared_arena {
  char* memory = nullptr;
  size_t capacity = 0, used = 0;
  void begin_block(block_context& b, size_t dynamic_bytes);
  void* allocate(size_t size, size_t align);
};
// A fiber that ended its CUDA thread and waits to serve the same thread index of a later block,
// with what the sanitizers know of it (see scheduler.cpp).
struct parked_fiber {
  boost::context::fiber context;
  void* fake_stack = nullptr;
  const void* scheduler_stack_bottom = nullptr;
  size_t scheduler_stack_size = 0;
};
// What a block that runs on an OS thread needs of its own: its fibers' stacks, the fibers
// parked between blocks, its shared memory. An ordinary launch runs one block at a time per OS
// thread, in slot 0; a cooperative launch keeps several blocks resident at once, one per slot.
struct block_slot {
  stack_pool stacks;
  std::vector<parked_fiber> parked;  // by the fiber's pool index
  shared_arena arena;
  block_context block;
  unsigned long long blocks_run = 0;
};
struct worker {
  std::vector<std::unique_ptr<block_slot>> slots;
  block_slot& slot(size_t i);  // made on first use
};
worker& this_worker();

extern __thread thread_slot* current_thread;
extern char tsan_launch_done;  // each fiber releases it as it ends; the host acquires it
extern __thread block_context* current_block;

// ---- running blocks (scheduler.cpp, sync.cpp, cooperative.cpp) ----
void run_block(launch_state& launch, unsigned long long linear_index, block_slot& s);
// A block of a cooperative launch: started, then run until it ends or all its threads wait at a
// grid barrier (the return value says which: true when it waits); enter_block makes a block the
// one the OS thread runs (its built-in variables, its shared memory) before it is run again.
void start_block(launch_state& launch, unsigned long long linear_index, block_slot& s);
bool run_until_grid_barrier(block_context& b);
void enter_block(block_context& b);
void finish_block(block_slot& s);
void open_grid_barrier(block_context& b);  // its threads go on past the grid barrier
// The blocks of a cooperative launch that the OS thread running this is given, resident at once.
void run_resident_blocks(launch_state& launch);
std::shared_ptr<grid_rendezvous> make_rendezvous(const launch_state& launch);
void yield_to_scheduler(thread_slot& t);
bool complete_barrier(block_context& b);      // at quiescence: release a full barrier
void release_barrier(block_context& b, int result);  // every thread goes on past its barrier
bool complete_active_masks(block_context& b);
void diagnose_deadlock(block_context& b);     // at quiescence when nothing can proceed

// ---- the count flavor (access_count.cpp); in other flavors these do nothing ----
// A launch's empty counts; null in other flavors, and when CPUSIM_LAUNCH_LOG asks for none.
std::shared_ptr<launch_counts> start_counting();
// Folds the accesses the block's threads made so far into its launch's counts: at each barrier
// that opens (every thread is there) and when the block ends.
void count_block_accesses(block_context& b);
// The totals as launch-log fields (" global_load_requests=..."), and a line per instruction
// ("access ...\n", cpusim/memory-model.md); "" in other flavors.
std::string access_counts(const launch_state& launch);
std::string access_sites(const launch_state& launch);
// ---- lost updates (lost_updates.cpp, the count flavor); in other flavors these do nothing ----
// A launch's updates; null in other flavors, and when blocks run on more than one OS thread.
std::shared_ptr<launch_updates> start_updates();
void note_load(thread_slot& t, uintptr_t address, unsigned size, uintptr_t site);  // a load of device memory
void note_atomic(thread_slot& t, uintptr_t address);
// Compares the thread's recent loads with memory (before it waits, and at its end): a change is
// its update, undone when it is lost.
void check_recent_loads(thread_slot& t);
// Reads them again after a wait, in which other threads may have written them.
void refresh_recent_loads(thread_slot& t);
// After the launch: its first lost update on stderr, and the process's count.
void report_lost_updates(const launch_state& launch);
// The device allocation that holds p: [*begin, *end). False when p is not device memory.
bool device_allocation(const void* p, const char** begin, const char** end);

// ---- errors and reports (faults.cpp) ----
void report(const std::string& text);         // each line prefixed with "cpusim: "
std::string describe_thread(const uint3& t);
std::string kernel_and_block(const block_context& b);
// A fault in the running block. From a fiber this never returns: the fiber is abandoned.
[[noreturn]] void fault_in_thread(cudaError_t error, const std::string& text);
void fault_in_block(block_context& b, cudaError_t error, const std::string& text);
void install_crash_handlers();
void watchdog_arm(const launch_state* launch);

// ---- runtime state (api.cpp, memory.cpp) ----
cudaError_t sticky_error();
void set_sticky_error(cudaError_t e);
cudaError_t record_error(cudaError_t e);  // remembers e for cudaGetLastError, returns it
size_t dynamic_smem_limit(const void* key, bool* set = nullptr);  // set: by cudaFuncSetAttribute
// Occupancy (occupancy.cpp): how many blocks of `threads` threads with this much shared memory one
// multiprocessor holds at once; the largest static shared memory a kernel's blocks have used.
int blocks_per_multiprocessor(const void* key, long long threads, size_t dynamic_bytes, size_t static_bytes);
size_t static_smem_seen(const void* key);
void note_static_smem(const void* key, size_t bytes);
int multiprocessor_count();
bool device_accessible(const void* p);
bool take_bad_argument(int* index, const void** pointer);  // from check_kernel_args
void free_all_allocations();

}  // namespace cpusim::detail
