// Which device the program runs on.
#pragma once

#include <cstddef>
#include <string>

namespace lab {

struct DeviceInfo {
  std::string name;
  bool cpu_backend = false;  // the CPU backend (cpu), not a GPU: timings mean little
  int sm_count = 0;
  int cc_major = 0, cc_minor = 0;
  size_t memory_bytes = 0;   // total device memory
  size_t free_bytes = 0;     // free when opened
  size_t l2_bytes = 0;
  std::string describe() const;  // "NVIDIA H100 80GB HBM3, sm_90, 132 SMs, 79.1 GiB, 50 MiB L2"
};

// What a lab program says to do on a machine without a GPU.
inline constexpr const char kUseCpuBackend[] =
    "This program was built for a GPU; on a machine without one, build and run it on the CPU "
    "backend: make run BACKEND=cpu";

// Selects device 0 and describes it. Without a device, prints why and `without_gpu` (how to go
// on) and exits with kExitCannotRun.
DeviceInfo open_device(const char* without_gpu = kUseCpuBackend);

std::string format_bytes(double bytes);  // "1.5 GiB"

// What bounds any time on the open device: its FP32 peak in TFLOP/s, and the rate of a
// device-to-device copy in TB/s of traffic (read + write), measured.
double fp32_peak_tflops();
double copy_tbps();

}  // namespace lab
