// Filter and scatter for every width and for bits against per-row references, every level
// (kernels).
#include "kernels/filter.h"

#include <gtest/gtest.h>

#include <cstring>
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
// Selections: the set-bit positions as 32-bit indices (plus a base), every level, and take by
// index against per-row references; the vector forms may write the slack past the count, never
// further.
TEST(Selection, SetBitIndicesMatchReference) {
  testing::ForEachCase(900, [](std::mt19937_64& rng, int64_t offset, int64_t length, double density,
                               const std::string& where) {
    const Bits m = RandomBits(offset, length, density, rng);
    const uint32_t first = static_cast<uint32_t>(rng() % 1000);
    std::vector<uint32_t> want;
    for (int64_t i = 0; i < length; ++i) {
      if (m[i]) want.push_back(first + static_cast<uint32_t>(i));
    }
    std::vector<uint32_t> got(want.size() + kIndexSlack + 1, 0xdeadbeef);
    ASSERT_EQ(SetBitIndices(m.span(), first, got.data()), static_cast<int64_t>(want.size())) << where;
    ASSERT_EQ(got.back(), 0xdeadbeefu) << where << ": wrote past the slack";
    got.resize(want.size());
    ASSERT_EQ(got, want) << where;
  });
}

TEST(Selection, GatherAndGatherBitsMatchReference) {
  testing::ForEachCase(950, [](std::mt19937_64& rng, int64_t offset, int64_t length, double density,
                               const std::string& where) {
    const Bits bits = RandomBits(offset, length, 0.5, rng);
    std::vector<uint32_t> idx;
    for (int64_t i = 0; i < length; ++i) {
      if (std::bernoulli_distribution(density)(rng)) idx.push_back(static_cast<uint32_t>(i));
    }
    if (!idx.empty() && rng() % 2) std::swap(idx.front(), idx.back());  // take needs no order
    const auto n = static_cast<int64_t>(idx.size());
    std::vector<uint8_t> out(NumBytes(n) + 1, 0xff);
    GatherBits(bits.span(), idx.data(), n, out.data());
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(GetBit(out.data(), i), bits[idx[i]]) << where << " row " << i;
    for (int64_t i = n; i < NumBytes(n) * 8; ++i) ASSERT_FALSE(GetBit(out.data(), i)) << where << " padding bit " << i;
    ASSERT_EQ(out.back(), 0xff) << where << ": wrote past the last byte";
    std::vector<uint64_t> v(length);
    for (auto& x : v) x = rng();
    for (int width : {1, 2, 4, 8}) {
      std::vector<uint8_t> got(static_cast<size_t>(n * width));
      Gather(v.data(), idx.data(), n, width, got.data());
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(std::memcmp(got.data() + i * width, reinterpret_cast<const uint8_t*>(v.data()) + idx[i] * width, width), 0)
            << where << " width " << width << " row " << i;
      }
    }
  });
}

// Row indices from 2^31 on (selections index batches of up to 2^32 rows): hardware gathers
// sign-extend 32-bit indices, so such blocks must not go through them. The values pointer is
// placed 2^31 elements before a small array, so that indices 2^31 + k name its elements.
TEST(Selection, GatherIndicesFrom2To31) {
  testing::EveryLevel guard;
  for (KernelLevel level : guard.levels()) {
    ASSERT_NO_FATAL_FAILURE(testing::EveryLevel::Use(level));
    std::vector<uint64_t> small(40);
    for (size_t k = 0; k < small.size(); ++k) small[k] = 0x1000 + k;
    std::vector<uint32_t> idx;
    for (uint32_t k = 0; k < 37; ++k) idx.push_back((uint32_t{1} << 31) + k);
    for (int width : {4, 8}) {
      const auto base = reinterpret_cast<uintptr_t>(small.data()) - (uintptr_t{1} << 31) * static_cast<uintptr_t>(width);
      std::vector<uint64_t> out(idx.size(), 0);
      Gather(reinterpret_cast<const void*>(base), idx.data(), static_cast<int64_t>(idx.size()), width, out.data());
      for (size_t k = 0; k < idx.size(); ++k) {
        uint64_t want = 0, got = 0;
        std::memcpy(&want, reinterpret_cast<const uint8_t*>(small.data()) + k * width, width);
        std::memcpy(&got, reinterpret_cast<const uint8_t*>(out.data()) + k * width, width);
        ASSERT_EQ(got, want) << KernelLevelName(level) << " width " << width << " at " << k;
      }
    }
  }
}

}  // namespace rowjit::kernels
