// Kernel level dispatch: names, detection, forcing a level, refusing one the CPU lacks (kernels).
#include "kernels/dispatch.h"

#include <gtest/gtest.h>

#include <cstdlib>

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
  for (size_t i = 1; i < levels.size(); ++i) EXPECT_LT(levels[i - 1], levels[i]);  // lowest first
  // Nothing forced a level (every test that forces one restores the best): the best runs.
  if (std::getenv("ROWJIT_KERNEL_LEVEL") == nullptr) {
    EXPECT_EQ(ActiveKernelLevel(), BestKernelLevel());
  }
  EXPECT_EQ(__builtin_cpu_supports("avx2") != 0, KernelLevelAvailable(KernelLevel::kV3));
}

TEST(Dispatch, ForcingALevelSwitchesAndAMissingOneIsRefused) {
  for (KernelLevel l : AvailableKernelLevels()) {
    ASSERT_TRUE(SetKernelLevel(l));
    EXPECT_EQ(ActiveKernelLevel(), l);
    const uint8_t bits[] = {0xff, 0x0f};
    EXPECT_EQ(CountSetBits({bits, 0, 16}), 12);
  }
  // A level the CPU lacks is refused and changes nothing. On a host with every x86 level there
  // is no real one to refuse, so a value outside the enum stands in for it (always checked).
  ASSERT_TRUE(SetKernelLevel(KernelLevel::kBaseline));
  const auto not_a_level = static_cast<KernelLevel>(200);
  EXPECT_FALSE(KernelLevelAvailable(not_a_level));
  EXPECT_FALSE(SetKernelLevel(not_a_level));
  EXPECT_EQ(ActiveKernelLevel(), KernelLevel::kBaseline);
  if (!KernelLevelAvailable(KernelLevel::kV4)) {
    EXPECT_FALSE(SetKernelLevel(KernelLevel::kV4));
    EXPECT_EQ(ActiveKernelLevel(), KernelLevel::kBaseline);
  }
  ASSERT_TRUE(SetKernelLevel(BestKernelLevel()));
  EXPECT_EQ(ActiveKernelLevel(), BestKernelLevel());
}

}  // namespace
}  // namespace rowjit::kernels
