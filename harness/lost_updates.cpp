#include "harness/lost_updates.h"

#include <cuda_runtime.h>

#if defined(__CPUSIM__)

unsigned long long lab::lost_updates() { return cpusim::lost_updates(); }
std::string lab::last_lost_update() { return cpusim::last_lost_update(); }

#else

unsigned long long lab::lost_updates() { return 0; }
std::string lab::last_lost_update() { return ""; }

#endif
