// The count flavor (cpucc --count-accesses): each launch's global-memory traffic, counted as a
// GPU's L1 would see it. Device code is compiled with GCC's kernel-address instrumentation,
// reduced to one call before every load and store (__asan_load4_noabort(address), ...); those
// calls land here. An access counts when a CUDA thread makes it to memory from cudaMalloc.
//
// On a GPU a warp issues each instruction once for all its active lanes: one request. Here the
// lanes of a warp run one after another, so a request is rebuilt from the accesses of one warp
// at the same call site, reached for the same time by each lane. A request moves the distinct
// 32-byte sectors its lanes' bytes touch, and asks for the distinct bytes among them (a
// broadcast asks for 4, not 128). Atomics count the same way, and per thread.
// In the other flavors only the two hooks below exist, and do nothing.
#include <algorithm>

#include "internal.h"

namespace cpusim::detail {

#if defined(CPUSIM_COUNT_ACCESSES)
namespace {

enum class access_kind : uint8_t { load, store, atomic };

struct access {
  access_kind kind;
  unsigned warp;
  uintptr_t site;       // the instruction: where the hook was called from
  unsigned occurrence;  // how many times this thread had been there before
  uintptr_t address;
  unsigned size;
};

// The accesses of the block that this OS thread runs.
thread_local std::vector<access> recorded;

// The device allocations hit last: a kernel touches few buffers, so most lookups end here
// without taking the allocation table's lock. Allocations cannot change while a kernel runs.
struct range {
  const char* begin = nullptr;
  const char* end = nullptr;
};
constexpr int kCachedRanges = 4;
thread_local range cached[kCachedRanges];
thread_local int next_cached = 0;

bool in_device_memory(uintptr_t address) {
  const char* p = reinterpret_cast<const char*>(address);
  for (const range& r : cached)
    if (p >= r.begin && p < r.end) return true;
  range found;
  if (!device_allocation(p, &found.begin, &found.end)) return false;
  cached[next_cached] = found;
  next_cached = (next_cached + 1) % kCachedRanges;
  return true;
}

// Set while an atomic function runs: its loads and stores are the atomic's.
thread_local bool in_atomic = false;

void record(access_kind kind, uintptr_t address, unsigned size, uintptr_t site) {
  thread_slot* t = current_thread;
  if (t == nullptr || in_atomic || !in_device_memory(address)) return;  // host code, stacks, shared memory
  unsigned occurrence = 0;
  auto seen = std::find_if(t->access_sites.begin(), t->access_sites.end(), [&](auto& s) { return s.first == site; });
  if (seen == t->access_sites.end()) {
    t->access_sites.push_back({site, 1});
  } else {
    occurrence = seen->second++;
  }
  recorded.push_back({kind, unsigned(t->linear / 32), site, occurrence, address, size});
}

std::string fields(const char* name, const launch_state::traffic& t) {
  const std::string prefix = std::string(" global_") + name;
  return prefix + "_requests=" + std::to_string(t.requests.load()) + prefix + "_sectors=" +
         std::to_string(t.sectors.load()) + prefix + "_bytes=" + std::to_string(t.bytes.load());
}

}  // namespace

void count_block_accesses(launch_state& launch) {
  auto key = [](const access& a) { return std::tie(a.kind, a.warp, a.site, a.occurrence); };
  std::sort(recorded.begin(), recorded.end(), [&](const access& a, const access& b) {
    return key(a) < key(b) || (key(a) == key(b) && a.address < b.address);
  });
  for (size_t i = 0; i < recorded.size();) {
    size_t j = i;
    unsigned long long bytes = 0, sectors = 0;
    uintptr_t covered = 0, last_sector = ~uintptr_t(0);
    for (; j < recorded.size() && key(recorded[j]) == key(recorded[i]); ++j) {
      const uintptr_t begin = std::max(recorded[j].address, covered), end = recorded[j].address + recorded[j].size;
      if (end <= begin) continue;  // bytes another lane already asked for
      bytes += end - begin;
      const uintptr_t first = begin / 32, last = (end - 1) / 32;
      sectors += last - first + 1 - (first == last_sector ? 1 : 0);
      last_sector = last;
      covered = end;
    }
    launch_state::traffic& t = recorded[i].kind == access_kind::load    ? launch.loads
                               : recorded[i].kind == access_kind::store ? launch.stores
                                                                        : launch.atomics;
    t.requests += 1;
    t.sectors += sectors;
    t.bytes += bytes;
    if (recorded[i].kind == access_kind::atomic) launch.atomic_threads += j - i;
    i = j;
  }
  recorded.clear();
  for (thread_slot& t : current_block->threads) t.access_sites.clear();
}

std::string access_counts(const launch_state& launch) {
  return fields("load", launch.loads) + fields("store", launch.stores) + fields("atomic", launch.atomics) +
         " atomic_threads=" + std::to_string(launch.atomic_threads.load());
}

counted_atomic::counted_atomic(const void* address, unsigned size) {
  record(access_kind::atomic, reinterpret_cast<uintptr_t>(address), size,
         reinterpret_cast<uintptr_t>(__builtin_return_address(0)));
  in_atomic = true;
}
counted_atomic::~counted_atomic() { in_atomic = false; }

}  // namespace cpusim::detail

// What the instrumented code calls: loads and stores of 1, 2, 4, 8, 16 and N bytes.
#define CPUSIM_HOOKS(N)                                                                                  \
  extern "C" void __asan_load##N##_noabort(uintptr_t a) {                                              \
    cpusim::detail::record(cpusim::detail::access_kind::load, a, N,                                     \
                           reinterpret_cast<uintptr_t>(__builtin_return_address(0)));                  \
  }                                                                                                     \
  extern "C" void __asan_store##N##_noabort(uintptr_t a) {                                             \
    cpusim::detail::record(cpusim::detail::access_kind::store, a, N,                                    \
                           reinterpret_cast<uintptr_t>(__builtin_return_address(0)));                  \
  }
CPUSIM_HOOKS(1)
CPUSIM_HOOKS(2)
CPUSIM_HOOKS(4)
CPUSIM_HOOKS(8)
CPUSIM_HOOKS(16)
#undef CPUSIM_HOOKS
// Called before a noreturn call (exit, a throw): a real sanitizer unpoisons the stack there.
extern "C" void __asan_handle_no_return() {}
extern "C" void __asan_loadN_noabort(uintptr_t a, size_t n) {
  cpusim::detail::record(cpusim::detail::access_kind::load, a, unsigned(n),
                         reinterpret_cast<uintptr_t>(__builtin_return_address(0)));
}
extern "C" void __asan_storeN_noabort(uintptr_t a, size_t n) {
  cpusim::detail::record(cpusim::detail::access_kind::store, a, unsigned(n),
                         reinterpret_cast<uintptr_t>(__builtin_return_address(0)));
}

#else

void count_block_accesses(launch_state&) {}
std::string access_counts(const launch_state&) { return ""; }

}  // namespace cpusim::detail

#endif
