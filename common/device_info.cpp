#include "device_info.h"

#include <cstdio>
#include <cstdlib>

#include "device_buffer.h"

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

DeviceInfo open_device(const char* without_gpu) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    std::fprintf(stderr, "no CUDA GPU found (%s). %s\n",
                 err != cudaSuccess ? cudaGetErrorString(err) : "the driver reports 0 devices", without_gpu);
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

}  // namespace lab
