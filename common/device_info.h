// Which device the program runs on, and the ceilings it reaches, measured on demand.
#pragma once

#include <cstddef>
#include <string>

namespace lab {

struct DeviceInfo {
  std::string name;
  bool cpu_backend = false;  // the CPU backend (common/cpu), not a GPU: timings mean little
  int sm_count = 0;
  int cc_major = 0, cc_minor = 0;
  size_t memory_bytes = 0;   // total device memory
  size_t free_bytes = 0;     // free when opened
  size_t l2_bytes = 0;
  std::string describe() const;  // "NVIDIA H100 80GB HBM3, sm_90, 132 SMs, 79.1 GiB, 50 MiB L2"
};

// Selects device 0 and describes it. Without a device, prints why and how to go on (the CPU
// backend) and exits with kExitCannotRun.
DeviceInfo open_device();

// Device-to-device copy bandwidth in bytes per second, counting bytes read plus bytes
// written: the ceiling of any kernel that reads and writes the same amount of memory.
double measure_copy_bandwidth(size_t bytes, int reps = 20);

std::string format_bytes(double bytes);  // "1.5 GiB"

}  // namespace lab
