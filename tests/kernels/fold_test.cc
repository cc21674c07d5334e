// Masked folds against plain scalar references over every type, offset, length, density and
// kernel level; poison values behind nulls; exact sums and overflow (kernels).
#include "kernels/fold.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include "kernel_test_util.h"
#include "kernels/total_order.h"

namespace rowjit::kernels {
namespace {

using testing::Bits;
using testing::EveryLevel;
using testing::RandomBits;
using testing::Where;

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
  if constexpr (std::is_floating_point_v<T>) {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
  } else {
    return a == b;
  }
}

// Values with the awkward cases mixed in: extremes, and for floats signed zeros, infinities,
// subnormals and NaNs of both signs with payloads. 64-bit integers stay small enough that
// random sums rarely overflow (overflow has its own tests).
template <typename T>
T RandomValue(std::mt19937_64& rng) {
  const uint64_t r = rng();
  if constexpr (std::is_floating_point_v<T>) {
    using U = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
    using L = std::numeric_limits<T>;
    switch (r % 16) {
      case 0: return T(0.0);
      case 1: return T(-0.0);
      case 2: return L::infinity();
      case 3: return -L::infinity();
      case 4: return L::denorm_min() * T(rng() % 7 + 1);
      case 5: return std::bit_cast<T>(std::bit_cast<U>(L::quiet_NaN()) | U(rng() % 1000));
      case 6: return -std::bit_cast<T>(std::bit_cast<U>(L::quiet_NaN()) | U(rng() % 1000));
      default: return T(static_cast<int64_t>(r % 2001) - 1000) / T(8);
    }
  } else {
    using L = std::numeric_limits<T>;
    if (r % 16 == 0) return L::max();
    if (r % 16 == 1) return L::min();
    if constexpr (sizeof(T) == 8) return static_cast<T>(static_cast<int64_t>(rng() % (1ull << 40)) - (std::is_signed_v<T> ? int64_t{1} << 39 : 0));
    return static_cast<T>(rng());
  }
}

template <typename T>
T Poison(int64_t i) {
  using L = std::numeric_limits<T>;
  if constexpr (std::is_floating_point_v<T>) {
    const T p[] = {L::infinity(), -L::infinity(), L::quiet_NaN(), -L::quiet_NaN(), L::max(), L::lowest()};
    return p[i % 6];
  } else {
    return i % 2 ? L::max() : L::min();
  }
}

template <typename T>
struct Reference {
  int64_t count = 0;
  int64_t nan_count = 0;
  SumResult<T> sum;
  std::optional<T> min[2], max[2];  // [NanMode]
};

template <typename T>
Reference<T> Compute(const std::vector<T>& v, const Bits* validity) {
  Reference<T> r;
  const int64_t n = static_cast<int64_t>(v.size());
  __int128 exact = 0;
  double lanes[kFloatSumLanes] = {};
  for (int64_t i = 0; i < n; ++i) {
    const bool valid = validity == nullptr || (*validity)[i];
    if constexpr (std::is_floating_point_v<T>) {
      lanes[i % kFloatSumLanes] += valid ? static_cast<double>(v[i]) : 0.0;
    }
    if (!valid) continue;
    ++r.count;
    const T x = v[i];
    if constexpr (std::is_floating_point_v<T>) {
      r.nan_count += std::isnan(x);
      for (int mode = 0; mode < 2; ++mode) {
        if (mode == static_cast<int>(NanMode::kSkip) && std::isnan(x)) continue;
        if (!r.min[mode] || TotalLess(x, *r.min[mode])) r.min[mode] = x;
        if (!r.max[mode] || TotalLess(*r.max[mode], x)) r.max[mode] = x;
      }
    } else {
      exact += x;
      for (int mode = 0; mode < 2; ++mode) {
        if (!r.min[mode] || x < *r.min[mode]) r.min[mode] = x;
        if (!r.max[mode] || x > *r.max[mode]) r.max[mode] = x;
      }
    }
  }
  using State = typename SumResult<T>::State;
  if (r.count == 0) return r;
  r.sum.state = State::kValue;
  if constexpr (std::is_floating_point_v<T>) {
    for (int h = kFloatSumLanes / 2; h >= 1; h /= 2) {
      for (int l = 0; l < h; ++l) lanes[l] = lanes[l] + lanes[l + h];
    }
    r.sum.value = std::isnan(lanes[0]) ? std::bit_cast<double>(uint64_t{0x7ff8000000000000}) : lanes[0];
  } else {
    using S = SumType<T>;
    if (exact < static_cast<__int128>(std::numeric_limits<S>::min()) ||
        exact > static_cast<__int128>(std::numeric_limits<S>::max())) {
      r.sum.state = State::kOverflow;
    } else {
      r.sum.value = static_cast<S>(exact);
    }
  }
  return r;
}

template <typename T>
void ExpectFolds(const std::vector<T>& v, const Bits* validity, const std::string& where) {
  const Reference<T> ref = Compute(v, validity);
  const int64_t n = static_cast<int64_t>(v.size());
  const BitSpan span = validity ? validity->span() : BitSpan{};
  EXPECT_EQ(Count(n, span), ref.count) << where;
  const SumResult<T> sum = Sum(v.data(), n, span);
  ASSERT_EQ(sum.state, ref.sum.state) << where;
  if (sum.ok()) {
    ASSERT_TRUE(SameBits(sum.value, ref.sum.value)) << where << " sum " << sum.value << " want " << ref.sum.value;
  }
  for (NanMode mode : {NanMode::kSkip, NanMode::kTotalOrder}) {
    const int m = static_cast<int>(mode);
    const std::string at = where + " nan mode " + std::to_string(m);
    const std::optional<T> mn = Min(v.data(), n, span, mode), mx = Max(v.data(), n, span, mode);
    const auto both = MinMax(v.data(), n, span, mode);
    ASSERT_EQ(mn.has_value(), ref.min[m].has_value()) << at;
    ASSERT_EQ(mx.has_value(), ref.max[m].has_value()) << at;
    ASSERT_EQ(both.has_value(), ref.min[m].has_value()) << at;
    if (!mn) continue;
    EXPECT_TRUE(SameBits(*mn, *ref.min[m])) << at << " min " << +*mn << " want " << +*ref.min[m];
    EXPECT_TRUE(SameBits(*mx, *ref.max[m])) << at << " max " << +*mx << " want " << +*ref.max[m];
    EXPECT_TRUE(SameBits(both->min, *ref.min[m]) && SameBits(both->max, *ref.max[m])) << at;
  }
  if constexpr (std::is_floating_point_v<T>) {
    EXPECT_EQ(NanCount(v.data(), n, span), ref.nan_count) << where;
  }
}

template <typename T>
class FoldTest : public ::testing::Test {};
using FoldTypes = ::testing::Types<int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
                                   uint64_t, float, double>;
TYPED_TEST_SUITE(FoldTest, FoldTypes);

TYPED_TEST(FoldTest, MatchesReferenceEverywhere) {
  using T = TypeParam;
  const uint64_t seed = 100 + sizeof(T) * 7 + std::is_floating_point_v<T> * 3 + std::is_signed_v<T>;
  testing::ForEachCase(seed, [](std::mt19937_64& rng, int64_t offset, int64_t length,
                                double density, const std::string& where) {
    const Bits validity = RandomBits(offset, length, density, rng);
    std::vector<T> v(static_cast<size_t>(length));
    for (int64_t i = 0; i < length; ++i) v[i] = validity[i] ? RandomValue<T>(rng) : Poison<T>(i);
    ExpectFolds(v, &validity, where);
    if (offset == 0 && density == 1) ExpectFolds(v, nullptr, where + " no bitmap");
  });
}

// Null rows holding infinities, NaN or the type's extremes, across a full 64-row word and the
// partial word after it, must not reach any fold.
TYPED_TEST(FoldTest, PoisonBehindNullsNeverCounts) {
  using T = TypeParam;
  EveryLevel guard;
  for (KernelLevel level : guard.levels()) {
    ASSERT_NO_FATAL_FAILURE(EveryLevel::Use(level));
    for (int64_t offset : testing::kOffsets) {
      const int64_t n = 64 + 33;
      Bits validity{std::vector<uint8_t>(NumBytes(offset + n)), offset, n};
      std::vector<T> v(n);
      for (int64_t i = 0; i < n; ++i) {
        const bool valid = i % 5 == 2 || i == 70;
        SetBitTo(validity.bytes.data(), offset + i, valid);
        v[i] = valid ? static_cast<T>(i % 7 + 1) : Poison<T>(i);
      }
      const std::string where = Where(level, 0, offset, n, 0.2);
      ExpectFolds(v, &validity, where);
      const auto mm = MinMax(v.data(), n, validity.span(), NanMode::kTotalOrder);
      ASSERT_TRUE(mm.has_value()) << where;
      EXPECT_EQ(mm->min, T(1)) << where;
      EXPECT_EQ(mm->max, T(7)) << where;
    }
  }
}

TYPED_TEST(FoldTest, NoValidRowIsNull) {
  using T = TypeParam;
  std::vector<T> v(100, Poison<T>(0));
  std::vector<uint8_t> zeros(NumBytes(100));
  const BitSpan none{zeros.data(), 0, 100};
  EXPECT_EQ(Count(100, none), 0);
  EXPECT_EQ(Sum(v.data(), 100, none).state, SumResult<T>::State::kNull);
  for (NanMode mode : {NanMode::kSkip, NanMode::kTotalOrder}) {
    EXPECT_FALSE(Min(v.data(), 100, none, mode).has_value());
    EXPECT_FALSE(Max(v.data(), 100, none, mode).has_value());
    EXPECT_FALSE(MinMax(v.data(), 100, none, mode).has_value());
  }
  if constexpr (std::is_floating_point_v<T>) {
    EXPECT_EQ(NanCount(v.data(), 100, none), 0);
  }
  // No rows at all: the same, without a bitmap.
  EXPECT_EQ(Count(0, BitSpan{}), 0);
  EXPECT_EQ(Sum(v.data(), 0).state, SumResult<T>::State::kNull);
  EXPECT_FALSE(Min(v.data(), 0).has_value());
  EXPECT_FALSE(Max(v.data(), 0).has_value());
}

TEST(FoldFloat, AllNanSkipsToNullButTotalOrderKeepsPayload) {
  const double pos = std::bit_cast<double>(uint64_t{0x7ff8000000000123});
  const double neg = std::bit_cast<double>(uint64_t{0xfff8000000000456});
  const std::vector<double> v = {pos, neg, pos};
  EXPECT_FALSE(Max(v.data(), 3, {}, NanMode::kSkip).has_value());
  EXPECT_FALSE(Min(v.data(), 3, {}, NanMode::kSkip).has_value());
  EXPECT_EQ(NanCount(v.data(), 3), 3);
  const std::optional<double> max = Max(v.data(), 3, {}, NanMode::kTotalOrder);
  const std::optional<double> min = Min(v.data(), 3, {}, NanMode::kTotalOrder);
  ASSERT_TRUE(max.has_value());
  ASSERT_TRUE(min.has_value());
  EXPECT_EQ(std::bit_cast<uint64_t>(*max), 0x7ff8000000000123u);
  EXPECT_EQ(std::bit_cast<uint64_t>(*min), 0xfff8000000000456u);
}

TEST(FoldFloat, SumStartsAtPositiveZero) {
  const std::vector<double> v = {-0.0, -0.0};
  const SumResult<double> sum = Sum(v.data(), 2);
  ASSERT_EQ(sum.state, SumResult<double>::State::kValue);
  EXPECT_EQ(std::bit_cast<uint64_t>(sum.value), 0u);  // +0.0, documented
}

// The smallest inputs that overflow each 64-bit width; narrower widths sum exactly into 64 bits.
TEST(FoldSum, OverflowIsAnError) {
  EveryLevel guard;
  for (KernelLevel level : guard.levels()) {
    ASSERT_NO_FATAL_FAILURE(EveryLevel::Use(level));
    const std::string at(KernelLevelName(level));
    using State = SumResult<int64_t>::State;
    // A sum is its value only with state kValue: a wrapped i64 sum of these rows gives the same
    // value as the exact one, so every value check comes with its state.
    auto expect_value = [&](auto sum, auto want, const char* what) {
      EXPECT_EQ(sum.state, decltype(sum)::State::kValue) << at << " " << what;
      EXPECT_EQ(sum.value, want) << at << " " << what;
    };
    const int64_t i64_up[] = {INT64_MAX, 1};
    const int64_t i64_down[] = {INT64_MIN, -1};
    const uint64_t u64_up[] = {UINT64_MAX, 1};
    EXPECT_EQ(Sum(i64_up, 2).state, State::kOverflow) << at;
    EXPECT_EQ(Sum(i64_down, 2).state, State::kOverflow) << at;
    EXPECT_EQ(Sum(u64_up, 2).state, SumResult<uint64_t>::State::kOverflow) << at;
    const int64_t i64_edge[] = {INT64_MAX, 0};
    expect_value(Sum(i64_edge, 2), INT64_MAX, "max + 0");
    const int64_t i64_low_edge[] = {INT64_MIN, 0};
    expect_value(Sum(i64_low_edge, 2), INT64_MIN, "min + 0");
    // Exact semantics: a partial sum past the range that comes back is not an overflow.
    const int64_t back[] = {INT64_MAX, 1, -1};
    expect_value(Sum(back, 3), INT64_MAX, "max + 1 - 1");
    // Overflow in lanes far apart, hidden behind a null that holds the value that would cancel.
    std::vector<int64_t> wide(200, 0);
    wide[3] = INT64_MAX;
    wide[150] = 1;
    wide[160] = -5;
    std::vector<uint8_t> bits(NumBytes(200), 0xff);
    SetBitTo(bits.data(), 160, false);
    EXPECT_EQ(Sum(wide.data(), 200, {bits.data(), 0, 200}).state, State::kOverflow) << at;
    SetBitTo(bits.data(), 160, true);
    expect_value(Sum(wide.data(), 200, {bits.data(), 0, 200}), INT64_MAX - 4, "lanes cancel");
    // i32 at its extremes for 100,000 rows: far outside i32, exact in i64.
    std::vector<int32_t> big(100000, INT32_MIN);
    expect_value(Sum(big.data(), 100000), int64_t{INT32_MIN} * 100000, "i32 min x 100000");
    std::vector<uint32_t> ubig(100000, UINT32_MAX);
    expect_value(Sum(ubig.data(), 100000), uint64_t{UINT32_MAX} * 100000, "u32 max x 100000");
  }
}

}  // namespace
}  // namespace rowjit::kernels
