// What this machine gives the grader: the cores this process may run on and the memory it may
// still take, as a platform's container, a cgroup or the grading that started it limits them,
// not as the hardware has them; the GPUs it was given; and whether it can build the CPU backend.
#pragma once

#include <string>

namespace grade {

// The GPUs this grader was given: CUDA_VISIBLE_DEVICES (make grade-class sets it), "all" when
// unset; the name its lock files and its run trace go by.
std::string visible_gpus();

// The cores this process may run on (sched_getaffinity: a container or taskset can give fewer
// than the machine has), at most what its cgroup's CPU quota gives (quota_cores: a container
// given 1.5 CPUs by quota has all the host's cores in its affinity, and 2 cores' worth of time),
// at most limit_cores's; at least 1.
int usable_cores();

// The CPUs that the quota of cgroup folder FOLDER and of each folder above it up to ROOT give
// (cgroup v2's cpu.max, v1's cpu.cfs_quota_us over cpu.cfs_period_us), the least, rounded up; 0
// when none has a quota.
int quota_cores(const std::string& folder, const std::string& root);

// At most CORES from now on (the grader's --cores: make grade-class gives each of the graders it
// runs at once its share of the machine). 0: no limit.
void limit_cores(int cores);

// MiB of memory this process could still take: the least of the machine's available memory
// (MemAvailable) and what its cgroup's limits leave (cgroup v2 at every level up to the root, or
// v1's memory controller), page cache the kernel may drop counted as free. 0 when none of them
// can be read.
long long memory_to_spare_mib();

// "" when the CPU backend can be built here, else why not: its toolchain's one test, cpusim/cpucc
// --check-deps (Boost.Context). A GPU's grading that counts with the model (--counts model) needs it.
std::string cpu_backend_missing();

}  // namespace grade
