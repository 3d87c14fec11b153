#include "timing.h"

#include <algorithm>

#include "device_buffer.h"

namespace lab {

Timing time_on_device(const std::function<void()>& work, int reps, int warmup) {
  int device = 0;
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  // Writing twice the L2's size evicts whatever the previous repetition left there.
  DeviceBuffer<unsigned char> flush(std::max<size_t>(2 * size_t(prop.l2CacheSize), 1 << 20));

  for (int i = 0; i < warmup; ++i) work();
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    CUDA_CHECK(cudaMemsetAsync(flush.get(), i & 0xFF, flush.bytes()));
    CUDA_CHECK(cudaEventRecord(start));
    work();
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    CUDA_CHECK(cudaGetLastError());
    float elapsed = 0;
    CUDA_CHECK(cudaEventElapsedTime(&elapsed, start, stop));
    ms.push_back(elapsed);
  }
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  return summarize(std::move(ms));
}

}  // namespace lab
