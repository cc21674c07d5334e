// Bitmap kernels against a bit-at-a-time reference: offsets 0..63, lengths around 64 (kernels).
#include "kernels/bitmap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "kernels/bytebool.h"
#include "kernels/dispatch.h"

namespace rowjit::kernels {
namespace {

constexpr int64_t kOffsets[] = {0, 1, 3, 7, 8, 63};
constexpr int64_t kLengths[] = {0, 1, 7, 63, 64, 65, 127, 128, 129, 1000};

// Exactly NumBytes(offset + length) bytes, so reading past the span would show under ASan.
std::vector<uint8_t> RandomBits(int64_t offset, int64_t length, std::mt19937& rng) {
  std::vector<uint8_t> v(static_cast<size_t>(NumBytes(offset + length)));
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

bool RefBit(const std::vector<uint8_t>& v, int64_t off, int64_t i) { return GetBit(v.data(), off + i); }

TEST(Bitmap, ReadWordMatchesBits) {
  std::mt19937 rng(1);
  for (int64_t off : kOffsets) {
    for (int64_t len : kLengths) {
      auto v = RandomBits(off, len, rng);
      BitSpan s{v.data(), off, len};
      for (int64_t w = 0; w < NumWords(len); ++w) {
        uint64_t word = ReadWord(s, w);
        for (int64_t b = 0; b < 64; ++b) {
          const int64_t i = w * 64 + b;
          const bool expect = i < len && RefBit(v, off, i);
          ASSERT_EQ((word >> b) & 1, expect ? 1u : 0u) << "off " << off << " len " << len << " i " << i;
        }
      }
    }
  }
}

TEST(Bitmap, CountSetBits) {
  std::mt19937 rng(2);
  for (int64_t off : kOffsets) {
    for (int64_t len : kLengths) {
      auto v = RandomBits(off, len, rng);
      int64_t expect = 0;
      for (int64_t i = 0; i < len; ++i) expect += RefBit(v, off, i);
      EXPECT_EQ(CountSetBits({v.data(), off, len}), expect) << "off " << off << " len " << len;
    }
  }
}

TEST(Bitmap, BinaryOpsAtMixedOffsets) {
  std::mt19937 rng(3);
  for (int64_t oa : kOffsets) {
    for (int64_t ob : kOffsets) {
      for (int64_t len : kLengths) {
        auto a = RandomBits(oa, len, rng);
        auto b = RandomBits(ob, len, rng);
        // Output exactly NumBytes(len) bytes, prefilled to check trailing bits are zeroed.
        std::vector<uint8_t> and_out(NumBytes(len), 0xff), or_out(NumBytes(len), 0xff),
            andnot_out(NumBytes(len), 0xff), not_out(NumBytes(len), 0xff),
            copy_out(NumBytes(len), 0xff);
        BitmapAnd({a.data(), oa, len}, {b.data(), ob, len}, and_out.data());
        BitmapOr({a.data(), oa, len}, {b.data(), ob, len}, or_out.data());
        BitmapAndNot({a.data(), oa, len}, {b.data(), ob, len}, andnot_out.data());
        BitmapNot({a.data(), oa, len}, not_out.data());
        BitmapCopy({a.data(), oa, len}, copy_out.data());
        for (int64_t i = 0; i < NumBytes(len) * 8; ++i) {
          const bool in = i < len;
          const bool x = in && RefBit(a, oa, i), y = in && RefBit(b, ob, i);
          ASSERT_EQ(GetBit(and_out.data(), i), in && (x && y)) << oa << " " << ob << " " << len << " " << i;
          ASSERT_EQ(GetBit(or_out.data(), i), in && (x || y));
          ASSERT_EQ(GetBit(andnot_out.data(), i), in && (x && !y));
          ASSERT_EQ(GetBit(not_out.data(), i), in && !x);
          ASSERT_EQ(GetBit(copy_out.data(), i), in && x);
        }
        // In place: b (copied to offset 0) &= a gives a & b. Starting from b, not from a & b:
        // ANDing a into a & b changes nothing, so a no-op would pass.
        std::vector<uint8_t> inplace(NumBytes(len), 0xff);
        BitmapCopy({b.data(), ob, len}, inplace.data());
        BitmapAndInPlace(inplace.data(), {a.data(), oa, len});
        for (int64_t i = 0; i < len; ++i) {
          ASSERT_EQ(GetBit(inplace.data(), i), RefBit(a, oa, i) && RefBit(b, ob, i))
              << oa << " " << ob << " " << len << " " << i;
        }
        EXPECT_TRUE(BitmapEquals({copy_out.data(), 0, len}, {a.data(), oa, len}));
      }
    }
  }
}

TEST(Bitmap, EqualsComparesTheSpansBitsOnly) {
  std::mt19937 rng(6);
  for (int64_t oa : kOffsets) {
    for (int64_t ob : kOffsets) {
      for (int64_t len : kLengths) {
        // The same bits at two offsets, with different bits around them.
        auto a = RandomBits(oa, len, rng);
        auto b = RandomBits(ob, len, rng);
        for (int64_t i = 0; i < len; ++i) SetBitTo(b.data(), ob + i, RefBit(a, oa, i));
        EXPECT_TRUE(BitmapEquals({a.data(), oa, len}, {b.data(), ob, len}))
            << oa << " " << ob << " " << len;
        if (len == 0) continue;
        // Any one bit flipped (first, last, and one in between) makes them differ.
        for (int64_t i : {int64_t{0}, len / 2, len - 1}) {
          SetBitTo(b.data(), ob + i, !RefBit(a, oa, i));
          EXPECT_FALSE(BitmapEquals({a.data(), oa, len}, {b.data(), ob, len}))
              << oa << " " << ob << " " << len << " bit " << i;
          SetBitTo(b.data(), ob + i, RefBit(a, oa, i));
        }
      }
      // Different lengths never compare equal.
      auto a = RandomBits(oa, 64, rng);
      EXPECT_FALSE(BitmapEquals({a.data(), oa, 64}, {a.data(), oa, 63}));
    }
  }
}

// Bits to bytes at every level, offsets and lengths around 64 (the fold kernels' masks).
TEST(ByteBool, UnpackBitsMatchesBitsAtEveryLevel) {
  std::mt19937 rng(5);
  for (KernelLevel level : AvailableKernelLevels()) {
    ASSERT_TRUE(SetKernelLevel(level));
    for (int64_t off : kOffsets) {
      for (int64_t len : kLengths) {
        auto v = RandomBits(off, len, rng);
        if (len > 0 && rng() % 4 == 0) std::fill(v.begin(), v.end(), 0);  // no bit set
        std::vector<uint8_t> out(static_cast<size_t>(len) + 1, 0xAB);
        const int64_t count = UnpackBits({v.data(), off, len}, out.data());
        int64_t expect_count = 0;
        for (int64_t i = 0; i < len; ++i) {
          ASSERT_EQ(out[i], RefBit(v, off, i) ? 0xff : 0)
              << "level " << static_cast<int>(level) << " off " << off << " len " << len << " i " << i;
          expect_count += RefBit(v, off, i);
        }
        EXPECT_EQ(out[len], 0xAB) << "wrote past the end: off " << off << " len " << len;
        EXPECT_EQ(count, expect_count);
      }
    }
  }
  ASSERT_TRUE(SetKernelLevel(BestKernelLevel()));
}

TEST(ByteBool, PackMatchesReference) {
  std::mt19937 rng(4);
  for (int64_t len : {0, 1, 7, 8, 9, 63, 64, 65, 1000}) {
    std::vector<uint8_t> bytes(static_cast<size_t>(len));
    // Any nonzero byte is true, including 0x80 and 0xff (which SWAR tricks get wrong easily).
    for (auto& b : bytes) b = rng() % 3 == 0 ? 0 : static_cast<uint8_t>(rng() | (rng() % 2 ? 0x80 : 0));
    std::vector<uint8_t> out(NumBytes(len), 0xff);
    PackByteBools(bytes.data(), len, out.data());
    for (int64_t i = 0; i < NumBytes(len) * 8; ++i) {
      ASSERT_EQ(GetBit(out.data(), i), i < len && bytes[i] != 0) << "len " << len << " i " << i;
    }
  }
}

}  // namespace
}  // namespace rowjit::kernels
