// Validity zip on runtime validities: shortcuts without a bitmap, bitmaps at offsets (runtime).
#include "runtime/zip.h"

#include <gtest/gtest.h>

#include <vector>

#include "support/assert_ok.h"

namespace rowjit {
namespace {

TEST(ZipValidity, ShortcutsNeedNoBitmap) {
  const uint8_t mask[] = {0b1010};
  ASSERT_OK_AND_ASSIGN(Validity valid,
                       ZipValidity({mask, 0, 4}, Validity::AllValid(), Validity::AllValid(), 4));
  EXPECT_TRUE(valid.all_valid());
  EXPECT_EQ(valid.bitmap(), nullptr);
  ASSERT_OK_AND_ASSIGN(Validity null,
                       ZipValidity({mask, 0, 4}, Validity::AllNull(), Validity::AllNull(), 4));
  EXPECT_TRUE(null.all_null());
  EXPECT_EQ(null.bitmap(), nullptr);
}

TEST(ZipValidity, SelectsTheChosenSidesValidity) {
  // 70 rows: mask alternates, if_true valid on even rows (bitmap at offset 5), if_false null.
  const int64_t n = 70;
  ASSERT_OK_AND_ASSIGN(BufferPtr tbits, AllocateBitmap(n + 5));
  std::vector<uint8_t> mask(kernels::NumBytes(n));
  for (int64_t i = 0; i < n; ++i) {
    kernels::SetBitTo(tbits->mutable_data(), 5 + i, i % 2 == 0);
    kernels::SetBitTo(mask.data(), i, i % 3 == 0);
  }
  ASSERT_OK_AND_ASSIGN(const Validity t, Validity::FromBitmap(tbits, 5, n));
  ASSERT_OK_AND_ASSIGN(Validity out, ZipValidity({mask.data(), 0, n}, t, Validity::AllNull(), n));
  ASSERT_TRUE(out.has_bitmap());
  for (int64_t i = 0; i < n; ++i) EXPECT_EQ(out.IsValid(i), i % 3 == 0 && i % 2 == 0) << i;
  ASSERT_OK_AND_ASSIGN(Validity all, ZipValidity({mask.data(), 0, n}, t, Validity::AllValid(), n));
  ASSERT_TRUE(all.has_bitmap());
  for (int64_t i = 0; i < n; ++i) EXPECT_EQ(all.IsValid(i), i % 3 != 0 || i % 2 == 0) << i;
}

TEST(ZipValidity, MaskLengthMismatchIsAnError) {
  const uint8_t mask[] = {0};
  auto r = ZipValidity({mask, 0, 3}, Validity::AllValid(), Validity::AllNull(), 4);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidInput);
  EXPECT_NE(r.error().message().find("zip mask has 3 rows, expected 4"), std::string::npos)
      << r.error().ToString();
}

}  // namespace
}  // namespace rowjit
