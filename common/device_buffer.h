// Device memory that frees itself, and an output with guard zones around it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <utility>
#include <vector>

#include "common/cuda_check.h"

namespace lab {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t count) : count_(count) {
    if (count_ > 0) CUDA_CHECK(cudaMalloc(&data_, count_ * sizeof(T)));
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    DeviceBuffer(std::move(other)).swap(*this);
    return *this;
  }
  // Unchecked: after a sticky error (an illegal address) cudaFree fails too, and the error
  // that matters has been reported already.
  ~DeviceBuffer() { cudaFree(data_); }

  T* get() const { return data_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }

  void fill_bytes(unsigned char byte) { CUDA_CHECK(cudaMemset(data_, byte, bytes())); }

 private:
  void swap(DeviceBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
  }

  T* data_ = nullptr;
  size_t count_ = 0;
};

// An output buffer with guard zones before and after it, filled with a canary pattern that
// no kernel computes. A kernel that writes past either end of its output (a grid one tile
// too large without a bounds guard) changes a canary, and damaged_guards() says where.
// A guard holds `guard` floats: the caller sizes it to cover the overruns it expects (a
// tile's worth of rows past the last one), so that they land in a canary rather than in
// someone else's memory. `offset` starts the output that many floats past an aligned address,
// to check kernels that must not assume alignment.
class GuardedOutput {
 public:
  static constexpr unsigned kCanaryBits = 0x7FA1B2C3u;  // a NaN with a payload of our own

  GuardedOutput(size_t count, size_t guard, size_t offset = 0)
      : count_(count), guard_(guard + offset), buffer_(count + guard_ + guard) {
    std::vector<float> canaries(std::max(guard_, guard), canary());
    CUDA_CHECK(cudaMemcpy(buffer_.get(), canaries.data(), guard_ * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(buffer_.get() + guard_ + count_, canaries.data(), guard * sizeof(float),
                          cudaMemcpyHostToDevice));
  }

  float* get() const { return buffer_.get() + guard_; }
  size_t size() const { return count_; }
  void poison(unsigned char byte) { CUDA_CHECK(cudaMemset(get(), byte, count_ * sizeof(float))); }
  void download(float* host) const {
    CUDA_CHECK(cudaMemcpy(host, get(), count_ * sizeof(float), cudaMemcpyDeviceToHost));
  }

  // How many canaries changed before and after the output.
  std::pair<size_t, size_t> damaged_guards() const {
    const size_t after_count = buffer_.size() - guard_ - count_;
    std::vector<float> before(guard_), after(after_count);
    CUDA_CHECK(cudaMemcpy(before.data(), buffer_.get(), guard_ * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(after.data(), get() + count_, after_count * sizeof(float), cudaMemcpyDeviceToHost));
    size_t damaged_before = 0, damaged_after = 0;
    for (float f : before) damaged_before += !is_canary(f);
    for (float f : after) damaged_after += !is_canary(f);
    return {damaged_before, damaged_after};
  }

 private:
  static float canary() {
    float f;
    std::memcpy(&f, &kCanaryBits, sizeof f);
    return f;
  }
  static bool is_canary(float f) { return std::memcmp(&f, &kCanaryBits, sizeof f) == 0; }

  size_t count_, guard_;  // guard_: the floats before the output
  DeviceBuffer<float> buffer_;
};

}  // namespace lab
