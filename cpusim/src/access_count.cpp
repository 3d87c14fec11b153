// The count flavor (cpucc --count-accesses): what each warp instruction of a kernel asks of
// global and shared memory, counted per instruction as an H100's L1 would serve it
// (access_model.h). Device code is compiled with GCC's kernel-address instrumentation, reduced
// to one call before every load and store (__asan_load4_noabort(address), ...); those calls
// land here. An access counts when a CUDA thread makes it to memory from cudaMalloc (global)
// or to its block's shared memory; stacks, host memory and __device__ variables are not counted.
//
// On a GPU a warp issues each instruction once for all its active lanes: one request. Here the
// lanes of a warp run one after another, so each thread keeps the sequence of its accesses, and
// at the block's next barrier (or its end, when every thread is there) the requests are rebuilt
// from them: the k-th access of every lane when the lanes made the same sequence (converged
// code), else each lane's k-th access from the same call site. Atomics count per request too
// (global memory only; an atomic's own loads and stores are not counted twice).
// In the other flavors only the hooks below exist, and do nothing.
#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <map>
#include <mutex>

#include "access_model.h"
#include "internal.h"

namespace cpusim::detail {

#if defined(CPUSIM_COUNT_ACCESSES)
namespace {

enum access_kind : uint8_t { load, store, atomic };
enum memory_space : uint8_t { global, shared };

// One instruction: where the hook was called from, and what it did there.
struct site_key {
  uintptr_t site;
  uint8_t kind, space;
  bool operator==(const site_key& o) const { return site == o.site && kind == o.kind && space == o.space; }
  bool operator<(const site_key& o) const {
    return site != o.site ? site < o.site : kind != o.kind ? kind < o.kind : space < o.space;
  }
};

// The requests of one instruction, summed (access_model.h says what each field is).
struct site_counts {
  uint64_t requests = 0, lanes = 0, bytes = 0, sectors = 0, ideal_sectors = 0, lines = 0, wavefronts = 0,
           ideal_wavefronts = 0;
  unsigned width = 0;  // its widest access, in bytes
  void add(const site_counts& o) {
    requests += o.requests, lanes += o.lanes, bytes += o.bytes, sectors += o.sectors;
    ideal_sectors += o.ideal_sectors, lines += o.lines, wavefronts += o.wavefronts;
    ideal_wavefronts += o.ideal_wavefronts, width = std::max(width, o.width);
  }
};

// One request of an instruction, kept to be drawn (make profile's page of a warp's lanes): the
// first the instruction made in the lowest-numbered block's lowest-numbered warp, so that every
// run draws the same warp, whichever order its blocks ran in. Addresses as the lanes gave them;
// `shared_base` is the block's shared memory (each OS thread has its own).
struct warp_sample {
  unsigned long long block = ULLONG_MAX;
  unsigned warp = 0;
  uintptr_t shared_base = 0;
  int count = 0;
  lane_access lanes[32];
  bool before(const warp_sample& o) const { return block != o.block ? block < o.block : warp < o.warp; }
};

// An instruction's counts and its drawn request.
struct site_entry {
  site_counts counts;
  warp_sample sample;
  void add(const site_entry& o) {
    counts.add(o.counts);
    if (o.sample.before(sample)) sample = o.sample;
  }
};

}  // namespace

// A launch's counts: per instruction, and a bit for each 32-byte sector of each allocation it
// touched (the DRAM estimate: each sector read or written once).
struct launch_counts {
  struct touched_bits {
    size_t sectors = 0;
    std::unique_ptr<std::atomic<uint64_t>[]> bits;
  };
  std::mutex mutex;
  std::map<site_key, site_entry> sites;
  std::map<const char*, touched_bits> touched;  // by the allocation's first byte
};

namespace {

// The device allocations hit last: a kernel touches few buffers, so most lookups end here
// without taking the allocation table's lock. Allocations cannot change while a kernel runs;
// the cache is emptied when another launch asks. `touched` is null when the launch is not counted.
struct device_range {
  const char* begin = nullptr;
  const char* end = nullptr;
  launch_counts::touched_bits* touched = nullptr;
};
constexpr int kCachedRanges = 4;
thread_local device_range cached[kCachedRanges];
thread_local int next_cached = 0;
thread_local uint64_t cached_serial = 0;

const device_range* device_range_of(const char* p, const launch_state& launch) {
  if (cached_serial != launch.serial) {
    for (device_range& r : cached) r = {};
    cached_serial = launch.serial;
  }
  for (const device_range& r : cached)
    if (p >= r.begin && p < r.end) return &r;
  device_range found;
  if (!device_allocation(p, &found.begin, &found.end)) return nullptr;
  if (launch.counts) {
    launch_counts& counts = *launch.counts;
    std::lock_guard<std::mutex> lock(counts.mutex);
    launch_counts::touched_bits& t = counts.touched[found.begin];
    if (!t.bits) {
      t.sectors = size_t(found.end - found.begin + 31) / 32;
      t.bits.reset(new std::atomic<uint64_t>[(t.sectors + 63) / 64]());
    }
    found.touched = &t;
  }
  device_range& slot = cached[next_cached];
  next_cached = (next_cached + 1) % kCachedRanges;
  slot = found;
  return &slot;
}

void mark_touched(const device_range& r, uintptr_t address, unsigned size) {
  const uintptr_t base = reinterpret_cast<uintptr_t>(r.begin);
  const uintptr_t last = std::min<uintptr_t>((address + size - 1 - base) / 32, r.touched->sectors - 1);
  for (uintptr_t s = (address - base) / 32; s <= last; ++s) {
    std::atomic<uint64_t>& word = r.touched->bits[s / 64];
    const uint64_t bit = uint64_t(1) << (s % 64);
    if (!(word.load(std::memory_order_relaxed) & bit)) word.fetch_or(bit, std::memory_order_relaxed);
  }
}

// Set while an atomic function runs: its loads and stores are the atomic's.
thread_local bool in_atomic = false;

// Every access of a CUDA thread: first what lost_updates.cpp watches, then, when the launch is
// counted, the access itself.
void record(access_kind kind, uintptr_t address, unsigned size, uintptr_t site) {
  thread_slot* t = current_thread;
  if (t == nullptr || in_atomic || size == 0) return;  // host code
  const launch_state& launch = *current_block->launch;
  if (kind == atomic) note_atomic(*t, address);
  if (!launch.counts && !launch.updates) return;
  const shared_arena& arena = *current_block->arena;
  memory_space space;
  if (address - reinterpret_cast<uintptr_t>(arena.memory) < arena.capacity) {
    if (kind == atomic) return;  // shared-memory atomics are not modelled
    space = shared;
  } else if (const device_range* r = device_range_of(reinterpret_cast<const char*>(address), launch)) {
    if (r->touched != nullptr) mark_touched(*r, address, size);
    space = global;
  } else {
    return;  // stacks, host memory, __device__ variables
  }
  if (kind == load && space == global) note_load(*t, address, size, site);
  if (launch.counts) t->accesses.push_back({site, address, size, kind, space});
}

// The counts of the block this OS thread runs, per instruction, until they join the launch's,
// and the warp whose requests count_request is given.
thread_local std::vector<std::pair<site_key, site_entry>> block_sites;
thread_local unsigned long long counted_block = 0;
thread_local unsigned counted_warp = 0;

site_entry& block_site(const site_key& key) {
  for (auto& s : block_sites)
    if (s.first == key) return s.second;
  block_sites.push_back({key, {}});
  return block_sites.back().second;
}

// One request: the lanes of a warp at one instruction, each lane once.
void count_request(const recorded_access& first, lane_access* lanes, int n) {
  site_entry& entry = block_site({first.site, first.kind, first.space});
  warp_sample& sample = entry.sample;
  if (counted_block < sample.block || (counted_block == sample.block && counted_warp < sample.warp)) {
    sample.block = counted_block, sample.warp = counted_warp, sample.count = n;
    std::copy(lanes, lanes + n, sample.lanes);  // before global_request sorts them
    sample.shared_base = reinterpret_cast<uintptr_t>(current_block->arena->memory);
  }
  site_counts c;
  c.requests = 1;
  c.lanes = unsigned(n);
  for (int i = 0; i < n; ++i) c.width = std::max(c.width, lanes[i].size);
  if (first.space == global) {
    const global_cost g = global_request(lanes, n);
    c.bytes = g.bytes, c.sectors = g.sectors, c.ideal_sectors = g.ideal_sectors, c.lines = g.lines;
  } else {
    const shared_cost s = shared_request(lanes, n);
    c.wavefronts = s.wavefronts, c.ideal_wavefronts = s.ideal_wavefronts;
  }
  entry.counts.add(c);
}

bool same_instructions(const std::vector<recorded_access>& a, const std::vector<recorded_access>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].site != b[i].site || a[i].kind != b[i].kind || a[i].space != b[i].space) return false;
  return true;
}

// Lanes whose sequences differ (divergent code): each lane's k-th access from one instruction
// joins the other lanes' k-th from it.
void count_diverged_warp(thread_slot* lanes, int count) {
  struct numbered {
    site_key key;
    unsigned occurrence, lane;
    const recorded_access* access;
  };
  thread_local std::vector<numbered> all;
  thread_local std::vector<std::pair<site_key, unsigned>> seen;
  all.clear();
  for (int i = 0; i < count; ++i) {
    seen.clear();
    for (const recorded_access& a : lanes[i].accesses) {
      const site_key key{a.site, a.kind, a.space};
      auto s = std::find_if(seen.begin(), seen.end(), [&](const auto& p) { return p.first == key; });
      if (s == seen.end()) s = seen.insert(seen.end(), {key, 0});
      all.push_back({key, s->second++, unsigned(i), &a});
    }
  }
  std::sort(all.begin(), all.end(), [](const numbered& a, const numbered& b) {
    return a.key < b.key || (a.key == b.key && (a.occurrence < b.occurrence || (a.occurrence == b.occurrence && a.lane < b.lane)));
  });
  lane_access request[32];
  for (size_t i = 0; i < all.size();) {
    int n = 0;
    size_t j = i;
    for (; j < all.size() && all[j].key == all[i].key && all[j].occurrence == all[i].occurrence; ++j)
      request[n++] = {all[j].lane, all[j].access->address, all[j].access->size};
    count_request(*all[i].access, request, n);
    i = j;
  }
}

void count_warp(thread_slot* lanes, int count) {
  const std::vector<recorded_access>* first = nullptr;
  for (int i = 0; i < count; ++i) {
    const std::vector<recorded_access>& a = lanes[i].accesses;
    if (a.empty()) continue;  // an inactive lane (it returned, or skipped this stretch)
    if (first == nullptr) {
      first = &a;
    } else if (!same_instructions(a, *first)) {
      count_diverged_warp(lanes, count);
      return;
    }
  }
  if (first == nullptr) return;
  lane_access request[32];
  for (size_t k = 0; k < first->size(); ++k) {
    int n = 0;
    for (int i = 0; i < count; ++i)
      if (!lanes[i].accesses.empty()) request[n++] = {unsigned(i), lanes[i].accesses[k].address, lanes[i].accesses[k].size};
    count_request((*first)[k], request, n);
  }
}

// "global_load", "shared_store"...
std::string field_prefix(uint8_t space, uint8_t kind) {
  static const char* const kinds[] = {"load", "store", "atomic"};
  return std::string(space == global ? "global_" : "shared_") + kinds[kind];
}

// The program file that holds `pc`, and pc's address in it (what addr2line takes).
std::string code_location(uintptr_t pc) {
  Dl_info info{};
  link_map* map = nullptr;
  char offset[32];
  if (dladdr1(reinterpret_cast<void*>(pc), &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0 || map == nullptr)
    return " offset=0x0 object=?";
  snprintf(offset, sizeof offset, "0x%lx", static_cast<unsigned long>(pc - map->l_addr));
  std::string object = map->l_name != nullptr ? map->l_name : "";
  if (object.empty()) {  // the program itself
    char path[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    object = n > 0 ? std::string(path, size_t(n)) : "?";
  }
  return std::string(" offset=") + offset + " object=" + object;
}

// " sample_block=5 sample_warp=0 sample=0:1024:4,1:1028:4,...": the drawn request, each lane as
// lane:offset:bytes, the offset from the start of its allocation (global) or of the block's
// shared memory.
std::string sample_words(uint8_t space, const warp_sample& sample) {
  if (sample.count == 0) return "";
  std::string words = " sample_block=" + std::to_string(sample.block) + " sample_warp=" + std::to_string(sample.warp) + " sample=";
  for (int i = 0; i < sample.count; ++i) {
    const lane_access& l = sample.lanes[i];
    uintptr_t base = sample.shared_base;
    const char *begin = nullptr, *end = nullptr;
    if (space == global) base = device_allocation(reinterpret_cast<const char*>(l.address), &begin, &end) ? reinterpret_cast<uintptr_t>(begin) : 0;
    words += (i ? "," : "") + std::to_string(l.lane) + ":" + std::to_string(l.address - base) + ":" + std::to_string(l.size);
  }
  return words;
}

}  // namespace

std::shared_ptr<launch_counts> start_counting() {
  // Counted only for a launch log: the model costs most of a counted run's time.
  if (config().launch_log == nullptr || *config().launch_log == 0) return nullptr;
  return std::make_shared<launch_counts>();
}

void count_block_accesses(block_context& b) {
  if (!b.launch->counts) return;
  counted_block = b.linear_index;
  for (int w = 0; w < b.nthreads; w += 32) {
    counted_warp = unsigned(w / 32);
    count_warp(&b.threads[w], std::min(32, b.nthreads - w));
  }
  for (int i = 0; i < b.nthreads; ++i) b.threads[i].accesses.clear();
  launch_counts& counts = *b.launch->counts;
  std::lock_guard<std::mutex> lock(counts.mutex);
  for (const auto& [key, entry] : block_sites) counts.sites[key].add(entry);
  block_sites.clear();
}

std::string access_counts(const launch_state& launch) {
  if (!launch.counts) return "";
  site_counts total[2][3];  // [space][kind]
  for (const auto& [key, entry] : launch.counts->sites) total[key.space][key.kind].add(entry.counts);
  std::string f;
  for (uint8_t kind : {load, store, atomic}) {
    const site_counts& t = total[global][kind];
    const std::string p = " " + field_prefix(global, kind);
    f += p + "_requests=" + std::to_string(t.requests) + p + "_sectors=" + std::to_string(t.sectors) + p + "_bytes=" +
         std::to_string(t.bytes);
  }
  f += " atomic_threads=" + std::to_string(total[global][atomic].lanes);
  for (uint8_t kind : {load, store}) f += " " + field_prefix(global, kind) + "_lines=" + std::to_string(total[global][kind].lines);
  for (uint8_t kind : {load, store}) {
    const site_counts& t = total[shared][kind];
    const std::string p = " " + field_prefix(shared, kind);
    f += p + "_requests=" + std::to_string(t.requests) + p + "_wavefronts=" + std::to_string(t.wavefronts) + p +
         "_ideal_wavefronts=" + std::to_string(t.ideal_wavefronts);
  }
  uint64_t touched = 0;
  for (const auto& [begin, t] : launch.counts->touched)
    for (size_t i = 0; i < (t.sectors + 63) / 64; ++i) touched += uint64_t(__builtin_popcountll(t.bits[i].load()));
  return f + " touched_bytes=" + std::to_string(32 * touched);
}

std::string access_sites(const launch_state& launch) {
  if (!launch.counts) return "";
  static const char* const kinds[] = {"load", "store", "atomic"};
  std::string lines;
  for (const auto& [key, entry] : launch.counts->sites) {
    const site_counts& c = entry.counts;
    lines += std::string("access space=") + (key.space == global ? "global" : "shared") + " kind=" + kinds[key.kind] +
             " width=" + std::to_string(c.width) + " requests=" + std::to_string(c.requests) + " lanes=" +
             std::to_string(c.lanes) + " bytes=" + std::to_string(c.bytes) + " sectors=" + std::to_string(c.sectors) +
             " ideal_sectors=" + std::to_string(c.ideal_sectors) + " lines=" + std::to_string(c.lines) +
             " wavefronts=" + std::to_string(c.wavefronts) + " ideal_wavefronts=" + std::to_string(c.ideal_wavefronts) +
             sample_words(key.space, entry.sample) + code_location(key.site - 1) + "\n";  // the call itself, one byte before where it returns
  }
  return lines;
}

counted_atomic::counted_atomic(const void* address, unsigned size) {
  record(atomic, reinterpret_cast<uintptr_t>(address), size, reinterpret_cast<uintptr_t>(__builtin_return_address(0)));
  in_atomic = true;
}
counted_atomic::~counted_atomic() { in_atomic = false; }

}  // namespace cpusim::detail

// What the instrumented code calls: loads and stores of 1, 2, 4, 8, 16 and N bytes.
#define CPUSIM_HOOKS(N)                                                                                  \
  extern "C" void __asan_load##N##_noabort(uintptr_t a) {                                              \
    cpusim::detail::record(cpusim::detail::load, a, N, reinterpret_cast<uintptr_t>(__builtin_return_address(0))); \
  }                                                                                                     \
  extern "C" void __asan_store##N##_noabort(uintptr_t a) {                                             \
    cpusim::detail::record(cpusim::detail::store, a, N, reinterpret_cast<uintptr_t>(__builtin_return_address(0))); \
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
  cpusim::detail::record(cpusim::detail::load, a, unsigned(n), reinterpret_cast<uintptr_t>(__builtin_return_address(0)));
}
extern "C" void __asan_storeN_noabort(uintptr_t a, size_t n) {
  cpusim::detail::record(cpusim::detail::store, a, unsigned(n), reinterpret_cast<uintptr_t>(__builtin_return_address(0)));
}

#else

std::shared_ptr<launch_counts> start_counting() { return nullptr; }
void count_block_accesses(block_context&) {}
std::string access_counts(const launch_state&) { return ""; }
std::string access_sites(const launch_state&) { return ""; }

}  // namespace cpusim::detail

#endif
