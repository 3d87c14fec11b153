#include "device_info.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "device_buffer.h"

namespace lab {

namespace {

int attribute(cudaDeviceAttr attr) {
  int value = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, 0));
  return value;
}

}  // namespace

// One fused multiply-add (2 flops) per FP32 lane per clock. Volta, Turing and the A100
// (compute capability 7.x and 8.0) have 64 FP32 lanes per SM; every later GPU, and Pascal's 6.1
// and 6.2, have 128.
double fp32_peak_tflops() {
  const int major = attribute(cudaDevAttrComputeCapabilityMajor), minor = attribute(cudaDevAttrComputeCapabilityMinor);
  const int lanes = major == 7 || (major == 8 && minor == 0) || (major == 6 && minor == 0) ? 64 : 128;
  const double clock_hz = attribute(cudaDevAttrClockRate) * 1e3;
  return attribute(cudaDevAttrMultiProcessorCount) * lanes * 2.0 * clock_hz / 1e12;
}

// The best of five device-to-device copies of 256 MiB, larger than any L2.
double copy_tbps() {
  const size_t bytes = size_t(256) << 20;
  DeviceBuffer<unsigned char> from(bytes), to(bytes);
  CUDA_CHECK(cudaMemset(from.get(), 1, bytes));
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  float best = INFINITY;
  for (int i = 0; i < 5; ++i) {
    CUDA_CHECK(cudaEventRecord(start));
    CUDA_CHECK(cudaMemcpy(to.get(), from.get(), bytes, cudaMemcpyDeviceToDevice));
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    best = std::min(best, ms);
  }
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  return 2.0 * double(bytes) / (best * 1e-3) / 1e12;
}

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
