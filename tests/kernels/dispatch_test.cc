// Kernel level dispatch: names, detection, forcing a level, refusing one the CPU lacks (kernels).
#include "kernels/dispatch.h"

#include <gtest/gtest.h>

#include "kernels/bitmap.h"

namespace rowjit::kernels {
namespace {

TEST(Dispatch, NamesRoundTrip) {
  for (KernelLevel l : {KernelLevel::kBaseline, KernelLevel::kV2, KernelLevel::kV3, KernelLevel::kV4}) {
    EXPECT_EQ(ParseKernelLevel(KernelLevelName(l)), l);
  }
  EXPECT_EQ(ParseKernelLevel("x86-64-v3"), KernelLevel::kV3);
  EXPECT_FALSE(ParseKernelLevel("avx9").has_value());
}

TEST(Dispatch, BaselineAlwaysAvailableAndBestIsDefault) {
  const auto& levels = AvailableKernelLevels();
  ASSERT_FALSE(levels.empty());
  EXPECT_EQ(levels.front(), KernelLevel::kBaseline);
  EXPECT_EQ(BestKernelLevel(), levels.back());
  EXPECT_EQ(__builtin_cpu_supports("avx2") != 0, KernelLevelAvailable(KernelLevel::kV3));
}

TEST(Dispatch, ForcingALevelSwitchesAndAMissingOneIsRefused) {
  for (KernelLevel l : AvailableKernelLevels()) {
    ASSERT_TRUE(SetKernelLevel(l));
    EXPECT_EQ(ActiveKernelLevel(), l);
    const uint8_t bits[] = {0xff, 0x0f};
    EXPECT_EQ(CountSetBits({bits, 0, 16}), 12);
  }
  if (!KernelLevelAvailable(KernelLevel::kV4)) {
    const KernelLevel before = ActiveKernelLevel();
    EXPECT_FALSE(SetKernelLevel(KernelLevel::kV4));
    EXPECT_EQ(ActiveKernelLevel(), before);
  }
  ASSERT_TRUE(SetKernelLevel(BestKernelLevel()));
}

}  // namespace
}  // namespace rowjit::kernels
