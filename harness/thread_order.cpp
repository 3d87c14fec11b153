#include "harness/thread_order.h"

#include <cuda_runtime.h>

#if defined(__CPUSIM__)

bool lab::reverse_thread_order() {
  cpusim::reverse_thread_order();
  return true;
}

#else

bool lab::reverse_thread_order() { return false; }

#endif
