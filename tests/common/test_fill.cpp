// Inputs must be reproducible from their seed, varied (never constant) and exact in fp32;
// the poison must be a NaN.
#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <vector>

#include "common/fill.h"

TEST_SUITE("fill") {

TEST_CASE("the same seed and stream give the same values") {
  std::vector<float> a(1000), b(1000);
  lab::fill_uniform(a.data(), a.size(), 42, 1);
  lab::fill_uniform(b.data(), b.size(), 42, 1);
  CHECK(a == b);
}

TEST_CASE("other seeds and other streams give other values") {
  std::vector<float> base(1000), other_seed(1000), other_stream(1000);
  lab::fill_uniform(base.data(), base.size(), 42, 1);
  lab::fill_uniform(other_seed.data(), other_seed.size(), 43, 1);
  lab::fill_uniform(other_stream.data(), other_stream.size(), 42, 2);
  int same_seed = 0, same_stream = 0;
  for (size_t i = 0; i < base.size(); ++i) {
    same_seed += base[i] == other_seed[i];
    same_stream += base[i] == other_stream[i];
  }
  CHECK(same_seed < 5);
  CHECK(same_stream < 5);
}

TEST_CASE("values are uniform in [-1, 1), varied, and multiples of 2^-23") {
  std::vector<float> v(100000);
  lab::fill_uniform(v.data(), v.size(), 7, 1);
  std::set<float> distinct(v.begin(), v.end());
  CHECK(distinct.size() > 90000);  // no constant or short-period fill
  double sum = 0, negative = 0;
  for (float x : v) {
    REQUIRE(x >= -1.0f);
    REQUIRE(x < 1.0f);
    REQUIRE(std::ldexp(double(x), 23) == std::floor(std::ldexp(double(x), 23)));
    sum += x;
    negative += x < 0;
  }
  CHECK(std::fabs(sum / double(v.size())) < 0.01);  // mean near 0
  CHECK(negative / double(v.size()) == doctest::Approx(0.5).epsilon(0.02));
}

TEST_CASE("the poison is a NaN in every element") {
  std::vector<float> v(16, 1.0f);
  lab::fill_poison(v.data(), v.size());
  for (float x : v) CHECK(std::isnan(x));
}

}  // TEST_SUITE
