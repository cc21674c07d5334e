// Total-order keys: ordering matches IEEE totalOrder across signed zeros, infinities,
// subnormals and NaNs of both signs with payloads; keys round-trip to the same bits (kernels).
#include "kernels/total_order.h"

#include <gtest/gtest.h>

#include <bit>
#include <limits>
#include <vector>

namespace rowjit::kernels {
namespace {

// The totalOrder ladder from least to greatest, as bit patterns.
const std::vector<uint64_t> kF64Ladder = {
    0xffffffffffffffff, 0xfff8000000000001, 0xfff8000000000000, 0xfff0000000000001,  // -NaNs
    0xfff0000000000000,                                                                // -inf
    0xffefffffffffffff, 0xbff0000000000000, 0x8010000000000000,                        // -normal
    0x800fffffffffffff, 0x8000000000000001,                                            // -subnormal
    0x8000000000000000, 0x0000000000000000,                                            // -0, +0
    0x0000000000000001, 0x000fffffffffffff, 0x0010000000000000, 0x3ff0000000000000,
    0x7fefffffffffffff, 0x7ff0000000000000,                                            // +inf
    0x7ff0000000000001, 0x7ff8000000000000, 0x7ff8000000000001, 0x7fffffffffffffff};
const std::vector<uint32_t> kF32Ladder = {
    0xffffffff, 0xffc00001, 0xffc00000, 0xff800001, 0xff800000, 0xff7fffff, 0xbf800000,
    0x80800000, 0x807fffff, 0x80000001, 0x80000000, 0x00000000, 0x00000001, 0x007fffff,
    0x00800000, 0x3f800000, 0x7f7fffff, 0x7f800000, 0x7f800001, 0x7fc00000, 0x7fffffff};

TEST(TotalOrder, F64LadderIsStrictlyIncreasingAndRoundTrips) {
  for (size_t i = 0; i < kF64Ladder.size(); ++i) {
    const double x = std::bit_cast<double>(kF64Ladder[i]);
    EXPECT_EQ(std::bit_cast<uint64_t>(FromTotalOrderKey(TotalOrderKey(x))), kF64Ladder[i]);
    for (size_t j = 0; j < kF64Ladder.size(); ++j) {
      const double y = std::bit_cast<double>(kF64Ladder[j]);
      EXPECT_EQ(TotalOrderKey(x) < TotalOrderKey(y), i < j) << std::hex << kF64Ladder[i] << " " << kF64Ladder[j];
    }
  }
}

TEST(TotalOrder, F32LadderIsStrictlyIncreasingAndRoundTrips) {
  for (size_t i = 0; i < kF32Ladder.size(); ++i) {
    const float x = std::bit_cast<float>(kF32Ladder[i]);
    EXPECT_EQ(std::bit_cast<uint32_t>(FromTotalOrderKey(TotalOrderKey(x))), kF32Ladder[i]);
    for (size_t j = 0; j < kF32Ladder.size(); ++j) {
      const float y = std::bit_cast<float>(kF32Ladder[j]);
      EXPECT_EQ(TotalOrderKey(x) < TotalOrderKey(y), i < j) << std::hex << kF32Ladder[i] << " " << kF32Ladder[j];
    }
  }
}

TEST(TotalOrder, KeysAgreeWithOrdinaryComparisonOnNumbers) {
  const double xs[] = {-1e300, -2.5, -std::numeric_limits<double>::denorm_min(), 0.0, 1e-310, 3.0, 1e300};
  for (double a : xs) {
    for (double b : xs) EXPECT_EQ(TotalOrderKey(a) < TotalOrderKey(b), a < b) << a << " " << b;
  }
}

}  // namespace
}  // namespace rowjit::kernels
