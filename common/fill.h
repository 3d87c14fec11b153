// Inputs and poison. Inputs are seeded pseudo-random values, never constant fills: a constant
// input hides wrong indexing. Outputs are poisoned with NaN before a launch, so any element
// the kernel never writes fails the check.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lab {

// Fills data[0..n) with values uniform in [-1, 1), each a multiple of 2^-23, so exactly
// representable in fp32. The values depend only on (seed, stream, index): the same on every
// machine and compiler, and different streams give independent arrays (A and B of a matmul).
void fill_uniform(float* data, size_t n, uint64_t seed, uint64_t stream);
// Element `index` of that array alone, and the 64 random bits it comes from.
float uniform_at(uint64_t seed, uint64_t stream, uint64_t index);
uint64_t random_bits(uint64_t seed, uint64_t stream, uint64_t index);

// The poison: every byte 0xFF. As a float that is a NaN, and cudaMemset can write it.
constexpr unsigned char kPoisonByte = 0xFF;
void fill_poison(float* data, size_t n);

}  // namespace lab
