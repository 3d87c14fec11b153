// What makes a timed call honest. Each timed call of a launcher runs on inputs changed just
// before it, by a seed drawn at that moment, and on a poisoned output. After the call the
// program reports a sample of the output, at positions drawn from a second seed only once the
// call has returned. The grader knows the base inputs: it replays the change from the first
// seed and checks every sampled value. A launcher that skips work when its output looks done,
// or hands back a result it kept from an earlier call, is caught at the call where it did so.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/problems.h"

namespace lab {

// One input element set to a new value.
struct Edit {
  size_t input = 0;  // which input (0: A, in, a; 1: B, b)
  size_t index = 0;  // element
  float value = 0;
};

// The change a seed makes, to distinct elements. matmul: one row of B, which changes every
// element of C; transpose: 64 elements of in; dot: 16 positions of a and b, set far outside
// [-1, 1) so that a sum that missed them misses the bound by far. Nothing for an empty case.
std::vector<Edit> rep_edits(const Case& c, uint64_t seed);

// The output elements reported after a call: every element the edits moved (transpose) and
// kSampled more drawn from `seed` (all of them when the output is smaller).
constexpr size_t kSampled = 256;
std::vector<size_t> sample_positions(const Case& c, uint64_t seed, const std::vector<Edit>& edits);

// The sampled values of a call, checked against `inputs` changed by `edits` (restored
// before it returns). `base_dot` is dot_reference of the unchanged inputs (dot only), so that
// a changed dot costs 16 products, not n. Returns "" or what is wrong, with one example.
std::string check_samples(const Case& c, std::vector<std::vector<float>>& inputs, const std::vector<Edit>& edits,
                          const std::vector<size_t>& positions, const std::vector<float>& got,
                          const DotReference* base_dot);

}  // namespace lab
