#include "fill.h"

#include <cstring>

namespace lab {

namespace {

// splitmix64: a counter-based generator, so element i needs no state from element i-1.
uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

uint64_t stream_key(uint64_t seed, uint64_t stream) { return mix(mix(seed) ^ (stream * 0xD1B54A32D192ED03ull)); }

// 24 random bits -> k / 2^23 - 1 for k in [0, 2^24): exact in fp32.
float to_uniform(uint64_t bits) { return float(uint32_t(bits >> 40)) * 0x1p-23f - 1.0f; }

}  // namespace

uint64_t random_bits(uint64_t seed, uint64_t stream, uint64_t index) { return mix(stream_key(seed, stream) + index); }

float uniform_at(uint64_t seed, uint64_t stream, uint64_t index) { return to_uniform(random_bits(seed, stream, index)); }

void fill_uniform(float* data, size_t n, uint64_t seed, uint64_t stream) {
  const uint64_t key = stream_key(seed, stream);
  for (size_t i = 0; i < n; ++i) data[i] = to_uniform(mix(key + i));
}

void fill_poison(float* data, size_t n) { std::memset(data, kPoisonByte, n * sizeof(float)); }

}  // namespace lab
