// Part of cpusim, the CPU backend: outside its subset.
#pragma once
#error "cooperative_groups/memcpy_async.h (cg::memcpy_async, cg::wait) needs a GPU: asynchronous copies to shared memory are outside the CPU backend's (cpusim) subset; copy with loads and stores, then sync"
