// Bit-level loops over LSB-first (Arrow order) bitmaps at any bit offset (kernels layer).
// Spans in, spans out: no arrays, no ownership. Nothing here reads a byte past a span's end.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace rowjit::kernels {

// `length` bits starting at bit `offset` of `data`.
struct BitSpan {
  const uint8_t* data = nullptr;
  int64_t offset = 0;
  int64_t length = 0;
};

constexpr int64_t NumWords(int64_t bits) { return (bits + 63) / 64; }
constexpr int64_t NumBytes(int64_t bits) { return (bits + 7) / 8; }
constexpr uint64_t kAllOnes = ~uint64_t{0};
// The low `n` bits set (n in [0, 64]).
constexpr uint64_t LowBits(int64_t n) { return n >= 64 ? kAllOnes : (uint64_t{1} << n) - 1; }

inline bool GetBit(const uint8_t* data, int64_t i) { return (data[i >> 3] >> (i & 7)) & 1; }
inline void SetBitTo(uint8_t* data, int64_t i, bool v) {
  data[i >> 3] = static_cast<uint8_t>((data[i >> 3] & ~(1u << (i & 7))) | (unsigned{v} << (i & 7)));
}

inline uint64_t LoadU64(const uint8_t* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}
inline void StoreU64(uint8_t* p, uint64_t w) { std::memcpy(p, &w, 8); }

// Word `w` of a span: bits [64w, 64w+64) of it, bits past the span's length read as zero.
// The fast path loads whole words; only the last word of a span takes the byte-by-byte path.
inline uint64_t ReadWord(BitSpan s, int64_t w) {
  const int64_t first = s.offset + w * 64;
  const int64_t bits = s.length - w * 64 < 64 ? s.length - w * 64 : 64;
  const uint8_t* p = s.data + (first >> 3);
  const int shift = static_cast<int>(first & 7);
  // Bytes this word may touch that lie inside the span: [p, end).
  const uint8_t* end = s.data + NumBytes(s.offset + s.length);
  uint64_t word;
  if (end - p >= 9) {
    word = LoadU64(p) >> shift;
    if (shift) word |= uint64_t{p[8]} << (64 - shift);
  } else {
    word = 0;
    for (int64_t i = 0; i < end - p; ++i) word |= uint64_t{p[i]} << (8 * i);
    word >>= shift;  // fewer than 9 bytes remain, so the span's bits all fit after the shift
  }
  return word & LowBits(bits);
}

// Number of set bits in the span.
int64_t CountSetBits(BitSpan s);

// out (bit offset 0, NumBytes(length) bytes; trailing bits of the last byte are zeroed) = op(a, b).
// Both inputs must have the same length.
void BitmapAnd(BitSpan a, BitSpan b, uint8_t* out);
void BitmapOr(BitSpan a, BitSpan b, uint8_t* out);
void BitmapAndNot(BitSpan a, BitSpan b, uint8_t* out);  // a & ~b
void BitmapNot(BitSpan a, uint8_t* out);
// Copy to bit offset 0.
void BitmapCopy(BitSpan a, uint8_t* out);
// out &= a, where out is already at bit offset 0 with a's length.
void BitmapAndInPlace(uint8_t* out, BitSpan a);

bool BitmapEquals(BitSpan a, BitSpan b);

}  // namespace rowjit::kernels
