// Grouped folds against plain per-row references over every type, length, validity offset and
// density, group pattern and slot count (few slots: the vectorized pass; many: the scatter);
// float sums bit for bit by the lane rule; hand-written cases (kernels).
#include "kernels/grouped_fold.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernel_test_util.h"

namespace rowjit::kernels {
namespace {

using testing::Bits;
using testing::RandomBits;

// ---- Shapes: one call's length, validity and slot count.

struct Shape {
  int64_t length = 0;
  int64_t offset = 0;
  double density = -1;  // < 0: no bitmap
  int64_t slots = 1;
};

std::vector<Shape> AllShapes() {
  std::vector<Shape> shapes;
  // Every length to 200 over the few-slot counts and either side of the strategy switch.
  for (int64_t slots : {1, 2, 4, 6, 8, 9, 255}) {
    for (int64_t length = 0; length <= 200; ++length) {
      for (double density : {-1.0, 0.5}) shapes.push_back({length, 3, density, slots});
    }
  }
  // Word boundaries x offsets x densities (0: all null, 1: a bitmap with every bit set).
  for (int64_t slots : {1, 2, 4, 6, 255, 256}) {
    for (int64_t length : {0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 1000, 5000}) {
      for (int64_t offset : {0, 3, 63}) {
        for (double density : {-1.0, 0.0, 0.1, 0.5, 0.9, 1.0}) {
          shapes.push_back({length, offset, density, slots});
        }
      }
    }
  }
  // Large tables, few calls (a million slots' float lanes take 128 MB).
  shapes.push_back({0, 5, 0.5, 65536});
  shapes.push_back({1000, 5, -1, 65536});
  shapes.push_back({20000, 5, 0.5, 65536});
  shapes.push_back({5000, 5, 0.5, int64_t{1} << 20});
  // Longer than the vectorized pass's chunk of 2^16 rows, whose sums it adds exactly.
  for (int64_t slots : {4, 6, 256}) {
    for (double density : {-1.0, 0.9}) shapes.push_back({300000, 1, density, slots});
  }
  return shapes;
}

std::string Describe(uint64_t seed, const Shape& s) {
  return "seed " + std::to_string(seed) + " length " + std::to_string(s.length) + " offset " +
         std::to_string(s.offset) + " density " + std::to_string(s.density) + " slots " +
         std::to_string(s.slots);
}

// Groups uniform over the slots, in runs of one group (consecutive rows hitting one slot), or
// all in the last slot.
std::vector<uint32_t> RandomGroups(int64_t length, int64_t slots, std::mt19937_64& rng) {
  std::vector<uint32_t> g(static_cast<size_t>(length));
  const int pattern = static_cast<int>(rng() % 3);
  uint32_t run = 0;
  for (int64_t i = 0; i < length; ++i) {
    if (pattern == 0 || (pattern == 1 && rng() % 8 == 0)) run = static_cast<uint32_t>(rng() % slots);
    g[i] = pattern == 2 ? static_cast<uint32_t>(slots - 1) : run;
  }
  return g;
}

// Values with the awkward cases mixed in: every integer bit pattern (128-bit ones bounded so
// that no sum wraps), and for floats signed zeros, infinities, subnormals and signed NaNs with
// payloads.
template <typename T>
T RandomValue(std::mt19937_64& rng) {
  const uint64_t r = rng();
  if constexpr (std::is_floating_point_v<T>) {
    using U = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
    using L = std::numeric_limits<T>;
    switch (r % 24) {
      case 0: return T(0.0);
      case 1: return T(-0.0);
      case 2: return L::infinity();
      case 3: return -L::infinity();
      case 4: return L::denorm_min() * T(rng() % 7 + 1);
      case 5: return std::bit_cast<T>(std::bit_cast<U>(L::quiet_NaN()) | U(rng() % 1000));
      case 6: return -std::bit_cast<T>(std::bit_cast<U>(L::quiet_NaN()) | U(rng() % 1000));
      case 7: return T(1e16);
      default: return T(static_cast<int64_t>(r % 2000001) - 1000000) / T(7);
    }
  } else if constexpr (sizeof(T) == 16) {
    return (static_cast<__int128>(static_cast<int64_t>(r)) << 36) ^ static_cast<__int128>(rng());
  } else {
    return static_cast<T>(r);
  }
}

// The data of one call, nulls holding random values too (they must not fold).
template <typename T>
struct Input {
  std::vector<T> values;
  std::vector<uint32_t> groups;
  Bits bits;
  bool has_bitmap = false;
  int64_t length = 0;
  BitSpan validity() const { return has_bitmap ? bits.span() : BitSpan{}; }
  bool Valid(int64_t i) const { return !has_bitmap || bits[i]; }
};

template <typename T>
Input<T> MakeInput(const Shape& s, std::mt19937_64& rng) {
  Input<T> in;
  in.length = s.length;
  in.has_bitmap = s.density >= 0;
  in.bits = RandomBits(s.offset, s.length, in.has_bitmap ? s.density : 1, rng);
  in.groups = RandomGroups(s.length, s.slots, rng);
  for (int64_t i = 0; i < s.length; ++i) in.values.push_back(RandomValue<T>(rng));
  return in;
}

enum class Levels { kBest, kEvery };

// Calls body(shape, rng, where) for every shape with a fresh generator whose seed `where` names.
// Levels::kEvery: the folds whose few-slot pass is compiled per kernel level run the few-slot
// shapes at every level this CPU has (the rest at the best level, which runs last).
template <typename Body>
void ForEachShape(uint64_t seed, Levels levels, Body body) {
  testing::EveryLevel guard;
  const std::vector<KernelLevel> best = {BestKernelLevel()};
  for (KernelLevel level : levels == Levels::kEvery ? guard.levels() : best) {
    ASSERT_NO_FATAL_FAILURE(testing::EveryLevel::Use(level));
    for (const Shape& shape : AllShapes()) {
      std::mt19937_64 rng(++seed);
      if (level != BestKernelLevel() && shape.slots > kFewGroupedSlots) continue;
      body(shape, rng, std::string(KernelLevelName(level)) + " " + Describe(seed, shape));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// Tables start random (a call adds to what they hold), small enough that no sum wraps.
std::vector<int64_t> StartCounts(int64_t slots, std::mt19937_64& rng) {
  std::vector<int64_t> c(static_cast<size_t>(slots));
  for (auto& x : c) x = static_cast<int64_t>(rng() % 100);
  return c;
}

// ---- Sums and counts.

template <typename T>
class GroupedIntTest : public ::testing::Test {};
using IntTypes = ::testing::Types<int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
                                  uint64_t, __int128>;
TYPED_TEST_SUITE(GroupedIntTest, IntTypes);

TYPED_TEST(GroupedIntTest, SumMatchesReference) {
  using T = TypeParam;
  using A = GroupedSumType<T>;
  using U = std::conditional_t<sizeof(A) == 16, unsigned __int128, uint64_t>;
  ForEachShape(1000 + sizeof(T) * 10 + std::is_signed_v<T>, Levels::kEvery, [](const Shape& s, std::mt19937_64& rng, const std::string& where) {
    const Input<T> in = MakeInput<T>(s, rng);
    std::vector<A> sums(static_cast<size_t>(s.slots));
    for (auto& x : sums) x = static_cast<A>(static_cast<int64_t>(rng() % 2001) - 1000);
    std::vector<int64_t> counts = StartCounts(s.slots, rng);
    std::vector<A> want_sums = sums;
    std::vector<int64_t> want_counts = counts;
    for (int64_t i = 0; i < s.length; ++i) {
      if (!in.Valid(i)) continue;
      const uint32_t g = in.groups[i];
      want_sums[g] = static_cast<A>(static_cast<U>(want_sums[g]) + static_cast<U>(static_cast<A>(in.values[i])));
      ++want_counts[g];
    }
    const bool with_counts = rng() % 4 != 0;
    GroupedSum(in.values.data(), in.groups.data(), s.length, in.validity(), s.slots, sums.data(),
               with_counts ? counts.data() : nullptr);
    for (int64_t g = 0; g < s.slots; ++g) {
      ASSERT_TRUE(sums[g] == want_sums[g]) << where << " slot " << g << " sum "
                                           << static_cast<double>(sums[g]) << " want "
                                           << static_cast<double>(want_sums[g]);
    }
    if (with_counts) {
      ASSERT_EQ(counts, want_counts) << where;
    }
  });
}

// Values as large as the bound lets them be: |x| <= (2^62 - 1) / length, so that the call's
// valid rows sum below 2^62 in absolute value and the random starting tables cannot carry a
// total out of int64.
std::vector<int64_t> BoundedValues(int64_t length, std::mt19937_64& rng) {
  const int64_t bound = ((int64_t{1} << 62) - 1) / std::max<int64_t>(length, 1);
  std::vector<int64_t> v(static_cast<size_t>(length));
  for (auto& x : v) {
    const uint64_t r = rng();
    x = r % 8 == 0 ? (r % 16 == 0 ? bound : -bound) : static_cast<int64_t>(r % (2 * uint64_t(bound) + 1)) - bound;
  }
  return v;
}

TEST(GroupedSumBounded, MatchesReference) {
  ForEachShape(1500, Levels::kEvery, [](const Shape& s, std::mt19937_64& rng, const std::string& where) {
    Input<int64_t> in = MakeInput<int64_t>(s, rng);
    in.values = BoundedValues(s.length, rng);
    std::vector<int64_t> sums(static_cast<size_t>(s.slots));
    for (auto& x : sums) x = static_cast<int64_t>(rng() % 2001) - 1000;
    std::vector<int64_t> counts = StartCounts(s.slots, rng);
    std::vector<int64_t> want_sums = sums;
    std::vector<int64_t> want_counts = counts;
    for (int64_t i = 0; i < s.length; ++i) {
      if (!in.Valid(i)) continue;
      want_sums[in.groups[i]] += in.values[i];
      ++want_counts[in.groups[i]];
    }
    const bool with_counts = rng() % 4 != 0;
    GroupedSumBounded(in.values.data(), in.groups.data(), s.length, in.validity(), s.slots,
                      sums.data(), with_counts ? counts.data() : nullptr);
    ASSERT_EQ(sums, want_sums) << where;
    if (with_counts) {
      ASSERT_EQ(counts, want_counts) << where;
    }
  });
}

// Each shape with a random number of columns (0 to 8: none folds the counts alone), each column
// within the bound, against one reference sum per column.
TEST(GroupedSumBoundedMany, MatchesReference) {
  ForEachShape(1700, Levels::kEvery, [](const Shape& s, std::mt19937_64& rng, const std::string& where) {
    const Input<uint8_t> in = MakeInput<uint8_t>(s, rng);
    const int columns = static_cast<int>(rng() % (kMaxBoundedSumColumns + 1));
    std::vector<std::vector<int64_t>> values;
    std::vector<const int64_t*> pointers;
    for (int c = 0; c < columns; ++c) values.push_back(BoundedValues(s.length, rng));
    for (const auto& v : values) pointers.push_back(v.data());
    std::vector<int64_t> sums(static_cast<size_t>(columns * s.slots));
    for (auto& x : sums) x = static_cast<int64_t>(rng() % 2001) - 1000;
    std::vector<int64_t> counts = StartCounts(s.slots, rng);
    std::vector<int64_t> want_sums = sums;
    std::vector<int64_t> want_counts = counts;
    for (int64_t i = 0; i < s.length; ++i) {
      if (!in.Valid(i)) continue;
      for (int c = 0; c < columns; ++c) want_sums[c * s.slots + in.groups[i]] += values[c][i];
      ++want_counts[in.groups[i]];
    }
    const bool with_counts = rng() % 4 != 0;
    GroupedSumBoundedMany(pointers.data(), columns, in.groups.data(), s.length, in.validity(),
                          s.slots, sums.data(), with_counts ? counts.data() : nullptr);
    ASSERT_EQ(sums, want_sums) << where << " columns " << columns;
    if (with_counts) {
      ASSERT_EQ(counts, want_counts) << where << " columns " << columns;
    }
  });
}

// Totals up to the edge of int64 that the bound allows: 2 * (2^62 - 1) in one slot, its
// negation plus one more in another, nulls holding values that would overflow.
TEST(GroupedSumBounded, EdgeOfTheBoundByHand) {
  testing::EveryLevel guard;
  constexpr int64_t kBig = (int64_t{1} << 62) - 1;
  const int64_t values[] = {kBig, -kBig, std::numeric_limits<int64_t>::max(), kBig, -kBig - 1};
  const uint32_t groups[] = {0, 1, 0, 0, 1};
  const Bits bits{.bytes = {0b11011}, .offset = 0, .length = 5};  // row 2 null
  for (KernelLevel level : guard.levels()) {
    ASSERT_NO_FATAL_FAILURE(testing::EveryLevel::Use(level));
    for (int64_t slots : {2, 6, 300}) {
      std::vector<int64_t> sums(static_cast<size_t>(slots)), counts(static_cast<size_t>(slots));
      GroupedSumBounded(values, groups, 5, bits.span(), slots, sums.data(), counts.data());
      EXPECT_EQ(sums[0], 2 * kBig) << KernelLevelName(level) << " slots " << slots;
      EXPECT_EQ(sums[1], -2 * kBig - 1) << KernelLevelName(level) << " slots " << slots;
      EXPECT_EQ(counts[0], 2);
      EXPECT_EQ(counts[1], 2);
    }
  }
}

TYPED_TEST(GroupedIntTest, MinMaxMatchReference) {
  using T = TypeParam;
  ForEachShape(2000 + sizeof(T) * 10 + std::is_signed_v<T>, Levels::kBest, [](const Shape& s, std::mt19937_64& rng, const std::string& where) {
    const Input<T> in = MakeInput<T>(s, rng);
    std::vector<T> mins(static_cast<size_t>(s.slots)), maxs(mins.size());
    std::vector<uint8_t> seen(mins.size());
    for (size_t g = 0; g < mins.size(); ++g) {
      seen[g] = rng() % 2;
      mins[g] = maxs[g] = RandomValue<T>(rng);
    }
    std::vector<T> want_mins = mins, want_maxs = maxs;
    std::vector<uint8_t> want_seen = seen, seen_max = seen;
    for (int64_t i = 0; i < s.length; ++i) {
      if (!in.Valid(i)) continue;
      const uint32_t g = in.groups[i];
      const T x = in.values[i];
      if (!want_seen[g] || x < want_mins[g]) want_mins[g] = x;
      if (!want_seen[g] || x > want_maxs[g]) want_maxs[g] = x;
      want_seen[g] = 1;
    }
    GroupedMin(in.values.data(), in.groups.data(), s.length, in.validity(), NanMode::kSkip, s.slots, mins.data(), seen.data());
    GroupedMax(in.values.data(), in.groups.data(), s.length, in.validity(), NanMode::kSkip, s.slots, maxs.data(), seen_max.data());
    ASSERT_EQ(seen, want_seen) << where;
    ASSERT_EQ(seen_max, want_seen) << where;
    for (int64_t g = 0; g < s.slots; ++g) {
      if (!want_seen[g]) continue;
      ASSERT_TRUE(mins[g] == want_mins[g]) << where << " slot " << g;
      ASSERT_TRUE(maxs[g] == want_maxs[g]) << where << " slot " << g;
    }
  });
}

TEST(GroupedCount, MatchesReference) {
  ForEachShape(3000, Levels::kEvery, [](const Shape& s, std::mt19937_64& rng, const std::string& where) {
    const Input<uint8_t> in = MakeInput<uint8_t>(s, rng);
    std::vector<int64_t> counts = StartCounts(s.slots, rng);
    std::vector<int64_t> want = counts;
    for (int64_t i = 0; i < s.length; ++i) want[in.groups[i]] += in.Valid(i);
    GroupedCount(in.groups.data(), s.length, in.validity(), s.slots, counts.data());
    ASSERT_EQ(counts, want) << where;
  });
}

TEST(GroupedAnyAll, MatchesReference) {
  ForEachShape(4000, Levels::kBest, [](const Shape& s, std::mt19937_64& rng, const std::string& where) {
    const Input<uint8_t> in = MakeInput<uint8_t>(s, rng);
    const Bits values = RandomBits((s.offset * 7) % 64, s.length, rng() % 2 ? 0.5 : 0.97, rng);
    std::vector<uint8_t> any(static_cast<size_t>(s.slots)), all(any.size()), seen(any.size());
    for (size_t g = 0; g < any.size(); ++g) {
      seen[g] = rng() % 2;
      any[g] = seen[g] && rng() % 2;
      all[g] = !seen[g] || rng() % 2;
    }
    std::vector<uint8_t> want_any = any, want_all = all, want_seen = seen;
    for (int64_t i = 0; i < s.length; ++i) {
      if (!in.Valid(i)) continue;
      const uint32_t g = in.groups[i];
      want_any[g] = want_any[g] || values[i];
      want_all[g] = want_all[g] && values[i];
      want_seen[g] = 1;
    }
    GroupedAnyAll(values.span(), in.groups.data(), s.length, in.validity(), s.slots, any.data(), all.data(), seen.data());
    ASSERT_EQ(any, want_any) << where;
    ASSERT_EQ(all, want_all) << where;
    ASSERT_EQ(seen, want_seen) << where;
  });
}

// ---- Floats.

template <typename T>
class GroupedFloatTest : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(GroupedFloatTest, FloatTypes);

// totalOrder on bit patterns, written from the standard rather than from the key trick.
template <typename T>
bool TotalLess(T a, T b) {
  using U = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
  const U ua = std::bit_cast<U>(a), ub = std::bit_cast<U>(b);
  const U sign = U{1} << (8 * sizeof(T) - 1);
  const bool na = ua & sign, nb = ub & sign;
  if (na != nb) return na;
  return na ? ua > ub : ua < ub;
}

template <typename T>
bool SameBits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// The lane rule as the header states it, row by row.
TYPED_TEST(GroupedFloatTest, SumMatchesLaneRuleBitForBit) {
  using T = TypeParam;
  ForEachShape(5000 + sizeof(T), Levels::kEvery, [](const Shape& s, std::mt19937_64& rng, const std::string& at) {
    // A million slots' lanes take 128 MB; they scatter as 65536 slots do.
    if (s.slots > 65536) return;
    const Input<T> in = MakeInput<T>(s, rng);
    const int64_t first_position = std::vector<int64_t>{0, 9, 16, 43}[rng() % 4];
    const std::string where = at + " first_position " + std::to_string(first_position);
    std::vector<double> lanes(static_cast<size_t>(s.slots * kFloatSumLanes));
    // Tables holding earlier rows (never -0.0: lanes start at +0.0 and no sum reaches -0.0).
    if (s.slots <= 256) {
      for (auto& x : lanes) x = rng() % 3 ? 0.0 : static_cast<double>(rng() % 1000) / 3;
    }
    std::vector<int64_t> counts = StartCounts(s.slots, rng);
    std::vector<double> want = lanes;
    std::vector<int64_t> want_counts = counts;
    for (int64_t i = 0; i < s.length; ++i) {
      if (!in.Valid(i)) continue;
      const uint32_t g = in.groups[i];
      want[g * kFloatSumLanes + (first_position + i) % kFloatSumLanes] += static_cast<double>(in.values[i]);
      ++want_counts[g];
    }
    const bool with_counts = rng() % 4 != 0;
    GroupedFloatSum(in.values.data(), in.groups.data(), s.length, in.validity(), first_position,
                    s.slots, lanes.data(), with_counts ? counts.data() : nullptr);
    for (size_t l = 0; l < lanes.size(); ++l) {
      // An addition's NaN payload is open (FinishFloatSum canonicalizes it).
      if (SameBits(lanes[l], want[l]) || (std::isnan(lanes[l]) && std::isnan(want[l]))) continue;
      ASSERT_TRUE(SameBits(lanes[l], want[l])) << where << " lane " << l << " got " << lanes[l] << " want " << want[l];
    }
    for (int64_t g = 0; g < std::min<int64_t>(s.slots, 300); ++g) {
      ASSERT_TRUE(SameBits(FinishFloatSum(&lanes[g * kFloatSumLanes]), FinishFloatSum(&want[g * kFloatSumLanes]))) << where;
    }
    if (with_counts) {
      ASSERT_EQ(counts, want_counts) << where;
    }
  });
}

TYPED_TEST(GroupedFloatTest, MinMaxNanCountMatchReference) {
  using T = TypeParam;
  ForEachShape(6000 + sizeof(T), Levels::kBest, [](const Shape& s, std::mt19937_64& rng, const std::string& where) {
    const Input<T> in = MakeInput<T>(s, rng);
    for (NanMode mode : {NanMode::kSkip, NanMode::kTotalOrder}) {
      const bool skip = mode == NanMode::kSkip;
      std::vector<T> mins(static_cast<size_t>(s.slots)), maxs(mins.size());
      std::vector<uint8_t> seen(mins.size());
      for (size_t g = 0; g < mins.size(); ++g) {
        seen[g] = rng() % 2;
        do {
          mins[g] = maxs[g] = RandomValue<T>(rng);
        } while (skip && std::isnan(mins[g]));
      }
      std::vector<T> want_mins = mins, want_maxs = maxs;
      std::vector<uint8_t> want_seen = seen, seen_max = seen;
      for (int64_t i = 0; i < s.length; ++i) {
        const T x = in.values[i];
        if (!in.Valid(i) || (skip && std::isnan(x))) continue;
        const uint32_t g = in.groups[i];
        if (!want_seen[g] || TotalLess(x, want_mins[g])) want_mins[g] = x;
        if (!want_seen[g] || TotalLess(want_maxs[g], x)) want_maxs[g] = x;
        want_seen[g] = 1;
      }
      const std::string at = where + (skip ? " skip" : " total order");
      GroupedMin(in.values.data(), in.groups.data(), s.length, in.validity(), mode, s.slots, mins.data(), seen.data());
      GroupedMax(in.values.data(), in.groups.data(), s.length, in.validity(), mode, s.slots, maxs.data(), seen_max.data());
      ASSERT_EQ(seen, want_seen) << at;
      ASSERT_EQ(seen_max, want_seen) << at;
      for (int64_t g = 0; g < s.slots; ++g) {
        if (!want_seen[g]) continue;
        ASSERT_TRUE(SameBits(mins[g], want_mins[g])) << at << " slot " << g << " min " << mins[g] << " want " << want_mins[g];
        ASSERT_TRUE(SameBits(maxs[g], want_maxs[g])) << at << " slot " << g << " max " << maxs[g] << " want " << want_maxs[g];
      }
    }
    std::vector<int64_t> nans = StartCounts(s.slots, rng);
    std::vector<int64_t> want = nans;
    for (int64_t i = 0; i < s.length; ++i) want[in.groups[i]] += in.Valid(i) && std::isnan(in.values[i]);
    GroupedNanCount(in.values.data(), in.groups.data(), s.length, in.validity(), s.slots, nans.data());
    ASSERT_EQ(nans, want) << where;
  });
}

// ---- Hand-written cases.

TEST(GroupedSum, SmallCaseByHand) {
  const int32_t v[] = {1, 2, 3, 4, 5};
  const uint32_t g[] = {0, 1, 0, 1, 2};
  const uint8_t bits[] = {0b10111};  // row 3 null
  for (int64_t slots : {3, 300}) {
    int64_t sums[300] = {}, counts[300] = {};
    GroupedSum(v, g, 5, BitSpan{bits, 0, 5}, slots, sums, counts);
    EXPECT_EQ(sums[0], 4);
    EXPECT_EQ(sums[1], 2);
    EXPECT_EQ(sums[2], 5);
    EXPECT_EQ(counts[0], 2);
    EXPECT_EQ(counts[1], 1);
    EXPECT_EQ(counts[2], 1);
    // A second call adds to what the tables hold.
    GroupedSum(v, g, 5, BitSpan{}, slots, sums, counts);
    EXPECT_EQ(sums[1], 8);
    EXPECT_EQ(counts[1], 3);
  }
}

TEST(GroupedSum, SixtyFourBitSumsAreExact) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  const int64_t v[] = {kMax, kMax, kMin, kMin, kMin};
  const uint32_t g[] = {1, 1, 0, 0, 0};
  const uint64_t u[] = {~uint64_t{0}, ~uint64_t{0}, ~uint64_t{0}};
  for (int64_t slots : {2, 1000}) {
    __int128 sums[1000] = {};
    GroupedSum(v, g, 5, BitSpan{}, slots, sums, nullptr);
    EXPECT_TRUE(sums[1] == (static_cast<__int128>(1) << 64) - 2);
    EXPECT_TRUE(sums[0] == -3 * (static_cast<__int128>(1) << 63));
    __int128 usums[1000] = {};
    GroupedSum(u, g + 2, 3, BitSpan{}, slots, usums, nullptr);
    EXPECT_TRUE(usums[0] == 3 * ((static_cast<__int128>(1) << 64) - 1));
  }
}

TEST(GroupedSum, I128CheckedReportsOverflow) {
  const __int128 max = ~(static_cast<unsigned __int128>(1) << 127);
  const __int128 v[] = {max, 1, 5};
  const uint32_t g[] = {0, 1, 0};
  __int128 sums[2] = {};
  int64_t counts[2] = {};
  EXPECT_TRUE(GroupedSumI128Checked(v, g, 2, BitSpan{}, 2, sums, counts));
  EXPECT_TRUE(sums[0] == max && sums[1] == 1 && counts[0] == 1);
  // Slot 0 holds the maximum already: adding row 0 again leaves the range.
  EXPECT_FALSE(GroupedSumI128Checked(v, g, 3, BitSpan{}, 2, sums, counts));
  // Null: it does not fold.
  __int128 fresh[2] = {};
  const uint8_t bits[] = {0b011};
  EXPECT_TRUE(GroupedSumI128Checked(v, g, 3, BitSpan{bits, 0, 3}, 2, fresh, nullptr));
}

// 1e16 + 1 rounds back to 1e16 (ties to even, spacing 2), so the order of the adds shows.
TEST(GroupedFloatSum, LaneRuleByHand) {
  for (int64_t slots : {1, 50}) {
    // Lanes 0..3: 1e16, 1, -1e16, 1; the tree adds lane 0 to 2 and 1 to 3: 0 + 2. A sequential
    // sum would give 1.
    const double v[] = {1e16, 1, -1e16, 1};
    const uint32_t g[] = {0, 0, 0, 0};
    std::vector<double> lanes(slots * kFloatSumLanes);
    GroupedFloatSum(v, g, 4, BitSpan{}, 0, slots, lanes.data(), nullptr);
    EXPECT_EQ(FinishFloatSum(lanes.data()), 2.0);
    // Rows 0, 16 and 32 share lane 0: (1e16 + 1) + 1 == 1e16.
    std::vector<double> w(33, 0.0);
    w[0] = 1e16;
    w[16] = w[32] = 1;
    std::vector<uint32_t> zeros(33, 0);
    std::vector<double> lanes2(slots * kFloatSumLanes);
    int64_t counts[50] = {};
    GroupedFloatSum(w.data(), zeros.data(), 33, BitSpan{}, 0, slots, lanes2.data(), counts);
    EXPECT_EQ(FinishFloatSum(lanes2.data()), 1e16);
    EXPECT_EQ(counts[0], 33);
    // Starting at position 8 puts them in lane 8, then the tree adds lane 8 to lane 0 alone.
    std::vector<double> lanes3(slots * kFloatSumLanes);
    GroupedFloatSum(w.data(), zeros.data(), 33, BitSpan{}, 8, slots, lanes3.data(), nullptr);
    EXPECT_EQ(lanes3[8], 1e16);
  }
}

TEST(GroupedFloatSum, FinishCanonicalizesNan) {
  double lanes[kFloatSumLanes] = {};
  lanes[3] = -std::bit_cast<double>(uint64_t{0x7ff8000000000123});
  EXPECT_EQ(std::bit_cast<uint64_t>(FinishFloatSum(lanes)), uint64_t{0x7ff8000000000000});
  double empty[kFloatSumLanes] = {};
  EXPECT_EQ(std::bit_cast<uint64_t>(FinishFloatSum(empty)), 0u);  // +0.0
}

TEST(GroupedMinMax, SignedZerosAndNansByHand) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double v[] = {0.0, -0.0, nan, -nan, 1.5, nan};
  const uint32_t g[] = {0, 0, 0, 0, 1, 2};
  for (int64_t slots : {3, 100}) {
    double mins[100], maxs[100];
    uint8_t seen_min[100] = {}, seen_max[100] = {};
    GroupedMin(v, g, 6, BitSpan{}, NanMode::kSkip, slots, mins, seen_min);
    GroupedMax(v, g, 6, BitSpan{}, NanMode::kSkip, slots, maxs, seen_max);
    EXPECT_TRUE(SameBits(mins[0], -0.0));
    EXPECT_TRUE(SameBits(maxs[0], 0.0));
    EXPECT_EQ(mins[1], 1.5);
    EXPECT_EQ(seen_min[2], 0);  // only NaN: skipped
    EXPECT_EQ(seen_max[2], 0);
    uint8_t seen[100] = {};
    GroupedMin(v, g, 6, BitSpan{}, NanMode::kTotalOrder, slots, mins, seen);
    GroupedMax(v, g, 6, BitSpan{}, NanMode::kTotalOrder, slots, maxs, seen);
    EXPECT_TRUE(SameBits(mins[0], -nan));
    EXPECT_TRUE(SameBits(maxs[0], nan));
    EXPECT_EQ(seen[2], 1);
  }
}

TEST(GroupedCountAnyAll, ByHand) {
  const uint32_t g[] = {2, 2, 0, 1};
  const uint8_t valid[] = {0b1101};  // row 1 null
  int64_t counts[3] = {};
  GroupedCount(g, 4, BitSpan{valid, 0, 4}, 3, counts);
  EXPECT_EQ(counts[0], 1);
  EXPECT_EQ(counts[1], 1);
  EXPECT_EQ(counts[2], 1);
  // Values 1, 0, 1, 0 into groups 2, 2, 0, 1 with row 1 null: group 2 sees only the 1.
  const uint8_t values[] = {0b0101};
  uint8_t any[3] = {}, all[3] = {1, 1, 1}, seen[3] = {};
  GroupedAnyAll(BitSpan{values, 0, 4}, g, 4, BitSpan{valid, 0, 4}, 3, any, all, seen);
  EXPECT_EQ(any[0], 1);
  EXPECT_EQ(all[0], 1);
  EXPECT_EQ(any[1], 0);
  EXPECT_EQ(all[1], 0);
  EXPECT_EQ(any[2], 1);
  EXPECT_EQ(all[2], 1);
  EXPECT_EQ(seen[0] + seen[1] + seen[2], 3);
}

}  // namespace
}  // namespace rowjit::kernels
