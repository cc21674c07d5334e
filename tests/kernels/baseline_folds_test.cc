// The benchmark-only baseline folds agree with a plain loop, so their timings compare like with
// like (kernels).
#include "kernels/baseline_folds.h"

#include <gtest/gtest.h>

#include <vector>

#include "kernel_test_util.h"

namespace rowjit::kernels {
namespace {

TEST(BaselineFolds, RunWalkAndPerRowBranchMatchPlainSum) {
  testing::ForEachCase(900, [](std::mt19937_64& rng, int64_t offset, int64_t length,
                               double density, const std::string& where) {
    const testing::Bits validity = testing::RandomBits(offset, length, density, rng);
    std::vector<int32_t> v(length);
    int64_t want = 0;
    for (int64_t i = 0; i < length; ++i) {
      v[i] = static_cast<int32_t>(rng() % 1000) - 500;
      if (validity[i]) want += v[i];
    }
    auto add = [](int64_t a, int32_t x) { return a + x; };
    EXPECT_EQ(baseline::RunWalkFold(v.data(), length, validity.span(), int64_t{0}, add), want) << where;
    EXPECT_EQ(baseline::PerRowBranchFold(v.data(), length, validity.span(), int64_t{0}, add), want) << where;
  });
}

}  // namespace
}  // namespace rowjit::kernels
