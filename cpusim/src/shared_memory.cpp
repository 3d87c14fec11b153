// Shared memory: one arena per OS thread, handed to each block it runs. The block's dynamic
// shared memory comes first; each static __shared__ declaration gets its storage when the first
// thread of the block reaches it. Everything is filled with cpusim's NaN (fill_garbage), so reading
// before writing shows; under AddressSanitizer red zones between arrays catch a bad index.
#include <sys/mman.h>

#include <cstring>

#include "internal.h"
#include "sanitizer.h"

namespace cpusim::detail {

__thread char* dynamic_shared_base = nullptr;

namespace {
constexpr size_t static_limit = 48 * 1024;   // __shared__ arrays, as nvcc enforces
constexpr size_t total_limit = 227 * 1024;   // static + dynamic, with the opt-in (H100)
constexpr size_t red_zone = san::asan ? 64 : 0;
constexpr size_t arena_bytes = 256 * 1024 + 256 * red_zone;
}  // namespace

void shared_arena::begin_block(block_context& b, size_t dynamic_bytes) {
  // Under ThreadSanitizer each block gets fresh pages, for the same reason as fiber stacks.
  if (memory != nullptr && san::tsan) {
    munmap(memory, capacity);
    memory = nullptr;
  }
  if (memory == nullptr) {
    capacity = arena_bytes;
    void* m = mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
      report("out of memory for shared memory");
      std::abort();
    }
    memory = static_cast<char*>(m);
  }
  used = 0;
  san::poison(memory, capacity);
  // Under ThreadSanitizer the scheduler fills the whole arena now, before the block's fibers
  // exist: a fill by the fiber that first reaches a declaration would race with the others.
  if (san::tsan) fill_garbage(memory, capacity);
  b.shared.clear();
  b.static_shared_bytes = 0;
  char* dynamic = static_cast<char*>(allocate(dynamic_bytes, 128));
  b.shared.push_back({nullptr, dynamic, dynamic_bytes, "extern __shared__ (dynamic)", {}});
  b.dynamic_shared = dynamic;
}

void* shared_arena::allocate(size_t size, size_t align) {
  size_t offset = (used + red_zone + align - 1) / align * align;
  if (offset + size + red_zone > capacity) return nullptr;
  used = offset + size;
  san::unpoison(memory + offset, size);
  if (!san::tsan) fill_garbage(memory + offset, size);
  return memory + offset;
}

void* shared_alloc(const void* site, size_t size, size_t align, const char* name, const char* file, int line) {
  block_context& b = *current_block;
  for (const shared_region& r : b.shared)
    if (r.site == site) return r.data;

  // The first thread of the block to reach this declaration allocates it.
  const size_t statics = b.static_shared_bytes + size;
  const size_t dynamic = b.launch->dynamic_bytes;
  const std::string decl = "__shared__ '" + std::string(name) + "' (" + std::to_string(size) +
                           " bytes, declared at " + where({file, line}) + ")";
  if (statics > static_limit)
    fault_in_thread(cudaErrorLaunchOutOfResources,
                    "error: " + kernel_and_block(b) + ": static shared memory reaches " + std::to_string(statics) +
                        " bytes with " + decl + "; the limit is 48 KB (49152 bytes).\n"
                        "  nvcc rejects this kernel ('uses too much shared data'); beyond 48 KB use dynamic\n"
                        "  shared memory (extern __shared__) with cudaFuncSetAttribute.");
  if (statics + dynamic > total_limit)
    fault_in_thread(cudaErrorLaunchOutOfResources,
                    "error: " + kernel_and_block(b) + ": " + std::to_string(statics) + " bytes of static and " +
                        std::to_string(dynamic) + " bytes of dynamic shared memory exceed the 227 KB a block can have");
  if (b.launch->cooperative) {
    // The launch was checked with the static shared memory of earlier launches (launch.cpp); this
    // block now shows how much it takes, and with it the grid may no longer fit on the device.
    const launch_state& launch = *b.launch;
    const unsigned threads = launch.block.x * launch.block.y * launch.block.z;
    const unsigned long long fits =
        (unsigned long long)blocks_per_multiprocessor(launch.site.key, threads, dynamic, statics) * multiprocessor_count();
    if (fits < launch.total_blocks)
      fault_in_thread(cudaErrorCooperativeLaunchTooLarge,
                      "error: " + kernel_and_block(b) + ": with " + decl + " its blocks take " +
                          std::to_string(statics + dynamic) + " bytes of shared memory, and the device holds " +
                          std::to_string(fits) + " such blocks at once, fewer than the grid's " +
                          std::to_string(launch.total_blocks) + ".\n  A GPU refuses this cooperative launch "
                          "(cudaErrorCooperativeLaunchTooLarge); cpusim learns a kernel's static shared memory when "
                          "its blocks first declare it, and checks launches after this one with it.");
  }
  void* p = b.arena->allocate(size, align);
  if (p == nullptr)
    fault_in_thread(cudaErrorLaunchOutOfResources, "error: " + kernel_and_block(b) + ": out of shared memory at " + decl);
  b.shared.push_back({site, static_cast<char*>(p), size, name, {file, line}});
  b.static_shared_bytes = statics;
  return p;
}

}  // namespace cpusim::detail
