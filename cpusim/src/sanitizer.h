// Fiber switches told to the sanitizers. The runtime itself is not instrumented; user code is.
// AddressSanitizer must know which stack is live (or it reports false stack errors after a
// switch); ThreadSanitizer must know which fiber runs, and we switch "no_sync" so that only
// barriers, warp operations, atomics and launch boundaries order the CUDA threads.
#pragma once

#include "internal.h"

#if defined(CPUSIM_ASAN)
#include <sanitizer/asan_interface.h>
#endif
#if defined(CPUSIM_TSAN)
#include <sanitizer/tsan_interface.h>
#endif

namespace cpusim::detail::san {

// In the scheduler, just before resuming fiber t.
inline void enter_fiber(thread_slot& t) {
#if defined(CPUSIM_ASAN)
  __sanitizer_start_switch_fiber(&t.scheduler_fake_stack, t.stack.base, t.stack.size);
#endif
#if defined(CPUSIM_TSAN)
  __tsan_switch_to_fiber(t.tsan_fiber, __tsan_switch_to_fiber_no_sync);
#endif
  (void)t;
}

// In the scheduler, once fiber t has yielded or ended.
inline void back_in_scheduler(thread_slot& t) {
#if defined(CPUSIM_ASAN)
  __sanitizer_finish_switch_fiber(t.scheduler_fake_stack, nullptr, nullptr);
#endif
  (void)t;
}

// First thing a new fiber does.
inline void fiber_started(thread_slot& t) {
#if defined(CPUSIM_ASAN)
  __sanitizer_finish_switch_fiber(nullptr, &t.scheduler_stack_bottom, &t.scheduler_stack_size);
#endif
  (void)t;
}

// In fiber t, just before it yields (fibers never return: they wait for the next block's thread).
inline void leave_fiber(thread_slot& t, void* tsan_scheduler) {
#if defined(CPUSIM_ASAN)
  __sanitizer_start_switch_fiber(&t.fiber_fake_stack, t.scheduler_stack_bottom, t.scheduler_stack_size);
#endif
#if defined(CPUSIM_TSAN)
  __tsan_switch_to_fiber(tsan_scheduler, __tsan_switch_to_fiber_no_sync);
#endif
  (void)t, (void)tsan_scheduler;
}

// In fiber t, once the scheduler resumed it.
inline void back_in_fiber(thread_slot& t) {
#if defined(CPUSIM_ASAN)
  __sanitizer_finish_switch_fiber(t.fiber_fake_stack, &t.scheduler_stack_bottom, &t.scheduler_stack_size);
#endif
  (void)t;
}

inline void release(void* sync) {
#if defined(CPUSIM_TSAN)
  __tsan_release(sync);
#endif
  (void)sync;
}
inline void acquire(void* sync) {
#if defined(CPUSIM_TSAN)
  __tsan_acquire(sync);
#endif
  (void)sync;
}

inline void poison(const void* p, size_t n) {
#if defined(CPUSIM_ASAN)
  __asan_poison_memory_region(p, n);
#endif
  (void)p, (void)n;
}
inline void unpoison(const void* p, size_t n) {
#if defined(CPUSIM_ASAN)
  __asan_unpoison_memory_region(p, n);
#endif
  (void)p, (void)n;
}

constexpr bool asan =
#if defined(CPUSIM_ASAN)
    true;
#else
    false;
#endif
constexpr bool tsan =
#if defined(CPUSIM_TSAN)
    true;
#else
    false;
#endif

}  // namespace cpusim::detail::san
