#include "device_info.h"

#include <cstdio>
#include <cstdlib>

#include "device_buffer.h"
#include "timing.h"

namespace lab {

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 6) {
    bytes /= 1024;
    ++unit;
  }
  char text[32];
  snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", bytes, units[unit]);
  return text;
}

std::string DeviceInfo::describe() const {
  char text[256];
  if (cpu_backend) {
    snprintf(text, sizeof text, "%s", name.c_str());
  } else {
    snprintf(text, sizeof text, "%s, sm_%d%d, %d SMs, %s, %s L2", name.c_str(), cc_major, cc_minor,
             sm_count, format_bytes(double(memory_bytes)).c_str(), format_bytes(double(l2_bytes)).c_str());
  }
  return text;
}

DeviceInfo open_device() {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    std::fprintf(stderr,
                 "no CUDA GPU found (%s). This program was built for a GPU; on a machine without "
                 "one, build and run it on the CPU backend: make run BACKEND=cpu\n",
                 err != cudaSuccess ? cudaGetErrorString(err) : "the driver reports 0 devices");
    std::exit(kExitCannotRun);
  }
  CUDA_CHECK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  DeviceInfo info;
  info.name = prop.name;
  info.cpu_backend = info.name.find("CPU backend") != std::string::npos;
  info.sm_count = prop.multiProcessorCount;
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  info.memory_bytes = prop.totalGlobalMem;
  info.l2_bytes = size_t(prop.l2CacheSize);
  size_t total = 0;
  CUDA_CHECK(cudaMemGetInfo(&info.free_bytes, &total));
  return info;
}

double measure_copy_bandwidth(size_t bytes, int reps) {
  DeviceBuffer<unsigned char> src(bytes), dst(bytes);
  src.fill_bytes(1);
  const Timing t = time_on_device(
      [&] { CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice)); }, reps, 2);
  return 2.0 * double(bytes) / (t.median * 1e-3);
}

}  // namespace lab
