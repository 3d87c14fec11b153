// Lost updates (the count flavor): a read-modify-write of device memory without an atomic, such
// as `*result += part`, made by threads that nothing orders. On a GPU the blocks of a launch run
// at the same time, and so do the warps of a block between two barriers: two such updates both
// read the old value, and the later store wipes out the earlier one. Here blocks run one after
// another and a block's threads take turns, so every update would land and the result would be
// right by luck. This file makes the run lose them as a GPU may, and says where.
//
// Each CUDA thread keeps its last few loads of device memory with the bytes it read. A store is
// not always seen (GCC's instrumentation skips a store to an address the same basic block has
// just loaded, which is exactly `*result += part`), so the loads are compared with memory
// instead: when a newer load takes a load's place, when the thread waits (a barrier, a warp
// operation) and when it ends; after a wait they are read again. With the blocks on one OS
// thread (CPUSIM_THREADS=1: the check is off otherwise) and the threads of a block switching only
// where they wait, only the thread itself can have changed those bytes in between, so a change
// is its update (two updates of one address in between count as one). The launch keeps, per
// updated address, who updated it last: the block, the block's barrier generation, the grid's
// (a cooperative launch's grid barriers) and the thread. An update that nothing orders after the
// last one (another block between the same two grid barriers, or another thread of the same block
// between the same two barriers) is lost: the bytes it overwrote are put back,
// which is what a GPU gives when both threads read first and the earlier update is stored last.
// A thread that made an atomic before its update (a lock) is left alone, since the atomic may
// order it; atomics themselves are atomic here, and never lost.
//
// Each launch that lost an update reports its first on stderr, with the source line of the load
// (addr2line reads the count flavor's line tables), and cpusim::lost_updates() counts them for the
// lab harness.
#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

#include "internal.h"

namespace cpusim::detail {

#if defined(CPUSIM_COUNT_ACCESSES)

// Who updated an address last.
struct update_owner {
  unsigned long long block;
  unsigned barrier_generation;
  unsigned grid_generation;
  int thread;
};

// A launch's updates, and the first one lost, for the report.
struct launch_updates {
  std::unordered_map<uintptr_t, update_owner> owners;
  unsigned long long lost = 0;
  std::string first_lost;  // who, without the source line (found once, at the end)
  uintptr_t first_site = 0;
};

namespace {

std::atomic<unsigned long long> lost_in_process{0};
std::mutex last_report_mutex;
std::string last_report;

std::string block_and_thread(const block_context& b, unsigned long long block, int thread) {
  const dim3 g = b.launch->grid, d = b.launch->block;
  const uint3 bi{unsigned(block % g.x), unsigned(block / g.x % g.y), unsigned(block / g.x / g.y)};
  const uint3 ti{unsigned(thread) % d.x, unsigned(thread) / d.x % d.y, unsigned(thread) / d.x / d.y};
  return "block " + describe_thread(bi) + " thread " + describe_thread(ti);
}

// "file:line" of the code at PC, from the program's line tables; "" when unknown.
std::string source_line(uintptr_t pc) {
  Dl_info info{};
  link_map* map = nullptr;
  if (dladdr1(reinterpret_cast<void*>(pc), &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0 || map == nullptr)
    return "";
  std::string object = map->l_name != nullptr ? map->l_name : "";
  if (object.empty()) {
    char path[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0) return "";
    object.assign(path, size_t(n));
  }
  char command[PATH_MAX + 96];
  snprintf(command, sizeof command, "addr2line -i -e '%s' 0x%lx 2>/dev/null", object.c_str(),
           static_cast<unsigned long>(pc - map->l_addr));
  FILE* out = popen(command, "r");
  if (out == nullptr) return "";
  // Innermost frame first: the first one outside cpusim's headers and the system's.
  std::string found;
  char line[PATH_MAX + 32];
  while (found.empty() && fgets(line, sizeof line, out) != nullptr) {
    std::string where(line);
    where = where.substr(0, where.find_first_of(" \n"));
    if (where.find("??") == std::string::npos && where.find("/include/cpusim/") == std::string::npos &&
        where.rfind("/usr/", 0) != 0)
      found = where;
  }
  pclose(out);
  return found;
}

// Thread T changed the bytes of its load L since it made it: an update, lost when nothing orders
// it after the last update of the same address.
void updated(thread_slot& t, recent_load& l) {
  block_context& b = *current_block;
  launch_updates& u = *b.launch->updates;
  const update_owner me{b.linear_index, b.barrier_generation, b.launch->grid_generation.load(), t.linear};
  auto [it, first] = u.owners.try_emplace(l.address, me);
  const update_owner last = it->second;
  const bool ordered = first || t.made_atomic || last.grid_generation != me.grid_generation ||
                       (last.block == me.block && (last.barrier_generation != me.barrier_generation || last.thread == me.thread));
  if (ordered) {
    it->second = me;
    std::memcpy(l.bytes, reinterpret_cast<const void*>(l.address), l.size);
    return;
  }
  std::memcpy(reinterpret_cast<void*>(l.address), l.bytes, l.size);  // the update is lost
  if (u.lost++ == 0) {
    u.first_site = l.site - 1;  // the call itself, one byte before where it returns
    u.first_lost = block_and_thread(b, last.block, last.thread) + " and " + block_and_thread(b, me.block, me.thread) +
                   " of '" + b.launch->site.name + "' both read and then wrote the same " + std::to_string(l.size) +
                   " bytes of device memory";
  }
}

}  // namespace

std::shared_ptr<launch_updates> start_updates() {
  return config().threads == 1 ? std::make_shared<launch_updates>() : nullptr;
}

void check_recent_loads(thread_slot& t) {
  if (current_block == nullptr || !current_block->launch->updates) return;
  for (recent_load& l : t.recent_loads)
    if (l.size != 0 && std::memcmp(l.bytes, reinterpret_cast<const void*>(l.address), l.size) != 0) updated(t, l);
}

void refresh_recent_loads(thread_slot& t) {
  for (recent_load& l : t.recent_loads)
    if (l.size != 0) std::memcpy(l.bytes, reinterpret_cast<const void*>(l.address), l.size);
}

void note_load(thread_slot& t, uintptr_t address, unsigned size, uintptr_t site) {
  if (!current_block->launch->updates || size > sizeof t.recent_loads[0].bytes) return;
  recent_load& l = t.recent_loads[t.next_recent_load++ % thread_slot::kRecentLoads];
  if (l.size != 0 && std::memcmp(l.bytes, reinterpret_cast<const void*>(l.address), l.size) != 0) updated(t, l);
  l = {address, size, site, {}};
  std::memcpy(l.bytes, reinterpret_cast<const void*>(address), size);
}

void note_atomic(thread_slot& t, uintptr_t address) {
  t.made_atomic = true;
  for (recent_load& l : t.recent_loads)
    if (address < l.address + l.size && l.address < address + 16) l.size = 0;  // its change is the atomic's
}

void report_lost_updates(const launch_state& launch) {
  if (!launch.updates || launch.updates->lost == 0) return;
  launch_updates& u = *launch.updates;
  lost_in_process += u.lost;
  const std::string line = source_line(u.first_site);
  const std::string text = "lost update: " + u.first_lost + (line.empty() ? "" : " (" + line + ")") +
                           " with no atomic between the read and the write. On a GPU they run at the same time, both "
                           "read the old value, and one update is lost; this run lost " + std::to_string(u.lost) +
                           " so. Add with atomicAdd (once per block, after a reduction in the block), or order the "
                           "updates with a barrier.";
  report(text);
  std::lock_guard<std::mutex> lock(last_report_mutex);
  last_report = text;
}

#else

std::shared_ptr<launch_updates> start_updates() { return nullptr; }
void check_recent_loads(thread_slot&) {}
void refresh_recent_loads(thread_slot&) {}
void report_lost_updates(const launch_state&) {}

#endif

}  // namespace cpusim::detail

#if defined(CPUSIM_COUNT_ACCESSES)
unsigned long long cpusim::lost_updates() { return cpusim::detail::lost_in_process.load(); }
const char* cpusim::last_lost_update() {
  std::lock_guard<std::mutex> lock(cpusim::detail::last_report_mutex);
  return cpusim::detail::last_report.c_str();
}
#else
unsigned long long cpusim::lost_updates() { return 0; }
const char* cpusim::last_lost_update() { return ""; }
#endif
