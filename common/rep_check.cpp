#include "common/rep_check.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "common/compare.h"
#include "common/fill.h"

namespace lab {

namespace {

// Streams of the generator (common/fill.h) for what a seed decides; the inputs use 1 and 2.
constexpr uint64_t kEditValues = 11, kEditPlaces = 12, kSamplePlaces = 13;

// `count` distinct indices below `n`, drawn from `seed`.
std::vector<size_t> distinct_indices(uint64_t seed, uint64_t stream, size_t count, size_t n) {
  std::vector<size_t> picked;
  for (uint64_t draw = 0; picked.size() < std::min(count, n); ++draw) {
    const size_t i = size_t(random_bits(seed, stream, draw) % n);
    if (std::find(picked.begin(), picked.end(), i) == picked.end()) picked.push_back(i);
  }
  return picked;
}

std::string describe_sample(size_t position, float got, double expected) {
  char text[160];
  snprintf(text, sizeof text, "element %zu is %.9g, expected %.9g", position, got, expected);
  return text;
}

}  // namespace

std::vector<Edit> rep_edits(const Case& c, uint64_t seed) {
  std::vector<Edit> edits;
  if (c.empty()) return edits;
  switch (c.op) {
    case Op::kMatmul: {
      const size_t k = size_t(random_bits(seed, kEditPlaces, 0) % uint64_t(c.K));
      for (int64_t j = 0; j < c.N; ++j) edits.push_back({1, k * size_t(c.N) + size_t(j), uniform_at(seed, kEditValues, j)});
      break;
    }
    case Op::kTranspose:
      for (size_t i : distinct_indices(seed, kEditPlaces, 64, c.output_count())) {
        edits.push_back({0, i, uniform_at(seed, kEditValues, i)});
      }
      break;
    case Op::kDot:
      // Positive values in [64, 128): each product grows by at least 4095.
      for (size_t i : distinct_indices(seed, kEditPlaces, 16, size_t(c.n))) {
        edits.push_back({0, i, 96.0f + 32.0f * uniform_at(seed, kEditValues, 2 * i)});
        edits.push_back({1, i, 96.0f + 32.0f * uniform_at(seed, kEditValues, 2 * i + 1)});
      }
      break;
  }
  return edits;
}

std::vector<size_t> sample_positions(const Case& c, uint64_t seed, const std::vector<Edit>& edits) {
  const size_t n = c.output_count();
  std::vector<size_t> positions;
  if (n <= kSampled) {
    for (size_t i = 0; i < n; ++i) positions.push_back(i);
    return positions;
  }
  if (c.op == Op::kTranspose) {  // in[r][c] lands at out[c][r]
    for (const Edit& e : edits) positions.push_back(e.index % size_t(c.cols) * size_t(c.rows) + e.index / size_t(c.cols));
  }
  for (size_t s = 0; s < kSampled; ++s) positions.push_back(size_t(random_bits(seed, kSamplePlaces, s) % n));
  return positions;
}

std::string check_samples(const Case& c, std::vector<std::vector<float>>& inputs, const std::vector<Edit>& edits,
                          const std::vector<size_t>& positions, const std::vector<float>& got,
                          const DotReference* base_dot) {
  if (got.size() != positions.size()) return "the program reported " + std::to_string(got.size()) + " sampled values, not " +
                                              std::to_string(positions.size());
  std::vector<float> saved;
  for (const Edit& e : edits) {
    saved.push_back(inputs[e.input][e.index]);
    inputs[e.input][e.index] = e.value;
  }
  std::string wrong;
  for (size_t s = 0; s < positions.size() && wrong.empty(); ++s) {
    const size_t p = positions[s];
    switch (c.op) {
      case Op::kMatmul: {
        const size_t i = p / size_t(c.N), j = p % size_t(c.N);
        double value = 0, magnitude = 0;
        for (int64_t k = 0; k < c.K; ++k) {
          const double term = double(inputs[0][i * size_t(c.K) + size_t(k)]) * inputs[1][size_t(k) * size_t(c.N) + j];
          value += term;
          magnitude += std::fabs(term);
        }
        if (!(std::fabs(got[s] - value) <= error_bound(magnitude))) wrong = describe_sample(p, got[s], value);
        break;
      }
      case Op::kTranspose: {
        const float expected = inputs[0][p % size_t(c.rows) * size_t(c.cols) + p / size_t(c.rows)];
        if (std::memcmp(&expected, &got[s], sizeof expected) != 0) wrong = describe_sample(p, got[s], expected);
        break;
      }
      case Op::kDot: {
        DotReference ref = *base_dot;
        double edited = 0;  // Σ |a_i·b_i| over the edited positions
        for (size_t e = 0; e + 1 < edits.size(); e += 2) {
          const size_t i = edits[e].index;
          const double before = double(saved[e]) * saved[e + 1], after = double(inputs[0][i]) * inputs[1][i];
          ref.value += after - before;
          ref.magnitude -= std::fabs(before);
          edited += std::fabs(after);
        }
        // The bound of common/compare.h holds for inputs like the others; a large product
        // rounds every addition after it into a large partial sum, which adds an error
        // growing like sqrt(n)·u·|product| (measured in tests/common/test_rep_check.cpp). Still far
        // below the edits' own sum, which a result that missed them lacks.
        const double bound = error_bound(ref.magnitude) + kBoundFactor * std::sqrt(double(c.n)) * kUnitRoundoff * edited;
        if (!(std::fabs(got[s] - ref.value) <= bound)) wrong = describe_sample(p, got[s], ref.value);
        break;
      }
    }
  }
  for (size_t e = edits.size(); e-- > 0;) inputs[edits[e].input][edits[e].index] = saved[e];
  return wrong;
}

}  // namespace lab
