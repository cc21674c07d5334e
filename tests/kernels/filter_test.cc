// Filter and scatter for every width and for bits against per-row references, every level
// (kernels).
#include "kernels/filter.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kernel_test_util.h"

namespace rowjit::kernels {
namespace {

using testing::Bits;
using testing::RandomBits;

template <typename T>
class FilterTest : public ::testing::Test {};
using FilterTypes = ::testing::Types<uint8_t, uint16_t, uint32_t, uint64_t>;
TYPED_TEST_SUITE(FilterTest, FilterTypes);

TYPED_TEST(FilterTest, FilterAndScatterMatchReference) {
  using T = TypeParam;
  testing::ForEachCase(300 + sizeof(T), [](std::mt19937_64& rng, int64_t offset, int64_t length,
                                           double density, const std::string& where) {
    const Bits m = RandomBits(offset, length, density, rng);
    std::vector<T> v(length);
    for (auto& x : v) x = static_cast<T>(rng());
    std::vector<T> want;
    for (int64_t i = 0; i < length; ++i) {
      if (m[i]) want.push_back(v[i]);
    }
    std::vector<T> got(want.size());
    ASSERT_EQ(Filter(v.data(), m.span(), got.data()), static_cast<int64_t>(want.size())) << where;
    ASSERT_EQ(got, want) << where;
    // Scatter back over a sentinel-filled output: set rows get the values, others keep it.
    std::vector<T> back(length, T(0x5a));
    Scatter(got.data(), m.span(), back.data());
    for (int64_t i = 0; i < length; ++i) ASSERT_EQ(back[i], m[i] ? v[i] : T(0x5a)) << where << " row " << i;
  });
}

TEST(FilterBits, FilterAndScatterMatchReference) {
  testing::ForEachCase(500, [](std::mt19937_64& rng, int64_t offset, int64_t length,
                               double density, const std::string& where) {
    const Bits m = RandomBits(offset, length, density, rng);
    const Bits v = RandomBits((offset * 7) % 64, length, 0.5, rng);
    std::vector<bool> want;
    for (int64_t i = 0; i < length; ++i) {
      if (m[i]) want.push_back(v[i]);
    }
    const int64_t k = static_cast<int64_t>(want.size());
    std::vector<uint8_t> out(NumBytes(k), 0xff);
    ASSERT_EQ(FilterBits(v.span(), m.span(), out.data()), k) << where;
    for (int64_t i = 0; i < NumBytes(k) * 8; ++i) {
      ASSERT_EQ(GetBit(out.data(), i), i < k && want[i]) << where << " bit " << i;
    }
    std::vector<uint8_t> back(NumBytes(length));
    for (auto& b : back) b = static_cast<uint8_t>(rng());
    const std::vector<uint8_t> before = back;
    ScatterBits({out.data(), 0, k}, m.span(), back.data());
    for (int64_t i = 0; i < length; ++i) {
      ASSERT_EQ(GetBit(back.data(), i), m[i] ? v[i] : GetBit(before.data(), i)) << where << " row " << i;
    }
  });
}

}  // namespace
}  // namespace rowjit::kernels
