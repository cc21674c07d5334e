// Bool, primitive and validity zip against per-row references at mixed offsets, every level
// (kernels).
#include "kernels/zip.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kernel_test_util.h"

namespace rowjit::kernels {
namespace {

using testing::Bits;
using testing::EveryLevel;
using testing::RandomBits;
using testing::Where;

TEST(BoolZip, MatchesReferenceAtMixedOffsets) {
  EveryLevel guard;
  for (KernelLevel level : guard.levels()) {
    ASSERT_NO_FATAL_FAILURE(EveryLevel::Use(level));
    uint64_t seed = 7;
    for (int64_t om : testing::kOffsets) {
      for (int64_t ot : testing::kOffsets) {
        for (int64_t length : testing::kLengths) {
          std::mt19937_64 rng(++seed);
          const Bits m = RandomBits(om, length, 0.5, rng);
          const Bits t = RandomBits(ot, length, 0.5, rng);
          const Bits f = RandomBits((om + ot) % 64, length, 0.5, rng);
          std::vector<uint8_t> out(NumBytes(length), 0xff);
          BoolZip(m.span(), t.span(), f.span(), out.data());
          for (int64_t i = 0; i < NumBytes(length) * 8; ++i) {
            const bool want = i < length && (m[i] ? t[i] : f[i]);
            ASSERT_EQ(GetBit(out.data(), i), want) << Where(level, seed, om, length, ot) << " row " << i;
          }
        }
      }
    }
  }
}

template <typename T>
class PrimitiveZipTest : public ::testing::Test {};
using ZipTypes = ::testing::Types<uint8_t, int16_t, float, double>;
TYPED_TEST_SUITE(PrimitiveZipTest, ZipTypes);

TYPED_TEST(PrimitiveZipTest, MatchesReference) {
  using T = TypeParam;
  testing::ForEachCase(40 + sizeof(T), [](std::mt19937_64& rng, int64_t offset, int64_t length,
                                          double density, const std::string& where) {
    const Bits m = RandomBits(offset, length, density, rng);
    // A sentinel in `out` that neither side holds: every row must be written.
    std::vector<T> t(length), f(length), out(length, static_cast<T>(250));
    for (int64_t i = 0; i < length; ++i) {
      t[i] = static_cast<T>(rng() % 100);
      f[i] = static_cast<T>(100 + rng() % 100);
    }
    PrimitiveZip(m.span(), t.data(), f.data(), out.data());
    for (int64_t i = 0; i < length; ++i) ASSERT_EQ(out[i], m[i] ? t[i] : f[i]) << where << " row " << i;
  });
}

TEST(ZipValidity, EveryCombinationOfSides) {
  using Kind = ValiditySide::Kind;
  EveryLevel guard;
  for (KernelLevel level : guard.levels()) {
    ASSERT_NO_FATAL_FAILURE(EveryLevel::Use(level));
    uint64_t seed = 90;
    for (int64_t length : testing::kLengths) {
      std::mt19937_64 rng(++seed);
      const Bits m = RandomBits(3, length, 0.5, rng);
      const Bits tv = RandomBits(1, length, 0.7, rng);
      const Bits fv = RandomBits(63, length, 0.7, rng);
      for (Kind tk : {Kind::kAllValid, Kind::kAllNull, Kind::kBitmap}) {
        for (Kind fk : {Kind::kAllValid, Kind::kAllNull, Kind::kBitmap}) {
          auto valid = [&](Kind k, const Bits& b, int64_t i) {
            return k == Kind::kAllValid || (k == Kind::kBitmap && b[i]);
          };
          std::vector<uint8_t> out(NumBytes(length), 0xff);
          const Kind got = ZipValidity(m.span(), {tk, tv.span()}, {fk, fv.span()}, out.data());
          if (tk == fk && tk != Kind::kBitmap) {
            EXPECT_EQ(got, tk);
            continue;
          }
          ASSERT_EQ(got, Kind::kBitmap);
          for (int64_t i = 0; i < NumBytes(length) * 8; ++i) {
            const bool want = i < length && (m[i] ? valid(tk, tv, i) : valid(fk, fv, i));
            ASSERT_EQ(GetBit(out.data(), i), want)
                << Where(level, seed, 3, length, 0.5) << " sides " << int(tk) << int(fk) << " row " << i;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace rowjit::kernels
