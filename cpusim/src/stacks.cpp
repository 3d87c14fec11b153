// Fiber stacks: mmap'd with a guard page below each one, so that an overflow faults at once
// instead of silently overwriting a neighbouring CUDA thread's stack. Thread i of every block
// that an OS thread runs in a slot gets that slot's i-th stack (internal.h: block_slot).
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

namespace cpusim::detail {

static size_t page_size() {
  static const size_t size = size_t(sysconf(_SC_PAGESIZE));
  return size;
}

stack_span stack_pool::take(int thread) {
  if (size_t(thread) >= by_thread.size()) by_thread.resize(size_t(thread) + 1);
  stack_span& s = by_thread[size_t(thread)];
  if (s.base != nullptr) return s;
  const size_t page = page_size();
  const size_t size = (config().stack_bytes + page - 1) / page * page;
  void* memory = mmap(nullptr, size + page, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (memory == MAP_FAILED) return {};  // no stack: the block fails (scheduler.cpp says why)
  mprotect(memory, page, PROT_NONE);
  s = {static_cast<char*>(memory) + page, size};
  return s;
}

void stack_pool::forget(int thread) {
  by_thread[size_t(thread)] = {};
  if (size_t(thread) < tsan_fibers.size()) tsan_fibers[size_t(thread)] = nullptr;
}

}  // namespace cpusim::detail
