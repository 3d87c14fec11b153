// What this machine gives the grader: the cores this process may run on and the memory it may
// still take, as a platform's container or a cgroup limits them, not as the hardware has them.
#pragma once

namespace grade {

// The cores this process may run on (sched_getaffinity: a container or taskset can give fewer
// than the machine has); at least 1.
int usable_cores();

// MiB of memory this process could still take: the least of the machine's available memory
// (MemAvailable) and what its cgroup's limits leave (cgroup v2, every level up to the root).
// 0 when none of them can be read.
long long memory_to_spare_mib();

}  // namespace grade
