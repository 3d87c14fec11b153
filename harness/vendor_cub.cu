// Lab 05's dot product in a library: CUB's device-wide reduction, the tuned one-pass
// reduction that CUDA ships (see vendor.h). CUB is templates of device code, so this file is
// compiled by nvcc, and only `make bench` links it.
//
// TransformReduce reads its input through an iterator and transforms each item before
// reducing: a counting iterator over 0..n-1 with a transform that returns a[i]·b[i] reads
// each vector once, as lab 05's kernel does, with no product vector in memory between.
#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include <thrust/iterator/counting_iterator.h>

#include "common/device_buffer.h"
#include "harness/vendor.h"

namespace lab {

namespace {

struct Product {
  const float* a;
  const float* b;
  __device__ float operator()(int i) const { return a[i] * b[i]; }
};

// With temp == nullptr, CUB only sets temp_bytes to what a reduction of n items needs.
cudaError_t cub_reduce(void* temp, size_t& temp_bytes, const float* a, const float* b, float* result, int n) {
  return cub::DeviceReduce::TransformReduce(temp, temp_bytes, thrust::counting_iterator<int>(0), result, n,
                                            cuda::std::plus<float>{}, Product{a, b}, 0.0f);
}

// The launcher is a plain function pointer: the scratch memory it reduces in lives here, set
// by time_cub_dot for the duration of one measurement.
void* cub_temp = nullptr;
size_t cub_temp_bytes = 0;

void cub_dot(const float* a, const float* b, float* result, int n) {
  CUDA_CHECK(cub_reduce(cub_temp, cub_temp_bytes, a, b, result, n));
}

}  // namespace

Measured time_cub_dot(const Case& c, const Inputs& inputs, int reps) {
  size_t bytes = 0;
  CUDA_CHECK(cub_reduce(nullptr, bytes, nullptr, nullptr, nullptr, int(c.n)));
  DeviceBuffer<unsigned char> temp(bytes);
  cub_temp = temp.get();
  cub_temp_bytes = bytes;
  Launcher launcher;
  launcher.dot = cub_dot;
  const Measured m = check_and_time("CUB DeviceReduce (dot)", c, inputs, launcher, reps);
  cub_temp = nullptr;
  cub_temp_bytes = 0;
  return m;
}

}  // namespace lab
