// Word-at-a-time bitmap operations (kernels layer). Each loop handles whole 64-bit words with
// loop-invariant shifts, which the compiler vectorizes; the last partial word goes through
// ReadWord's bounded path and a partial store.
#include "kernels/bitmap.h"

namespace rowjit::kernels {
namespace {

// Writes the low `bits` bits of `word` to out at word index w (bytes beyond the span untouched).
inline void WriteWord(uint8_t* out, int64_t w, uint64_t word, int64_t bits) {
  if (bits >= 64) {
    StoreU64(out + w * 8, word);
    return;
  }
  const int64_t nbytes = NumBytes(bits);
  word &= LowBits(bits);
  std::memcpy(out + w * 8, &word, static_cast<size_t>(nbytes));
}

// Whole words of a span that can be read with two unaligned loads without passing its end.
inline int64_t FastWords(BitSpan s) {
  // Word w touches bytes [(offset + 64w) / 8, +9). Must stay below NumBytes(offset + length).
  const int64_t end_bytes = NumBytes(s.offset + s.length);
  const int64_t start_byte = s.offset >> 3;
  int64_t n = (end_bytes - start_byte - 9) / 8 + 1;
  if (end_bytes - start_byte < 9) n = 0;
  const int64_t full = s.length / 64;
  return n < full ? n : full;
}

inline uint64_t FastWord(const uint8_t* base, int shift, int64_t w) {
  const uint8_t* p = base + w * 8;
  uint64_t lo = LoadU64(p) >> shift;
  uint64_t hi = shift ? uint64_t{p[8]} << (64 - shift) : 0;
  return lo | hi;
}

template <typename Op>
void Binary(BitSpan a, BitSpan b, uint8_t* out, Op op) {
  const int64_t words = NumWords(a.length);
  int64_t fast = FastWords(a);
  const int64_t fb = FastWords(b);
  if (fb < fast) fast = fb;
  const uint8_t* pa = a.data + (a.offset >> 3);
  const uint8_t* pb = b.data + (b.offset >> 3);
  const int sa = static_cast<int>(a.offset & 7);
  const int sb = static_cast<int>(b.offset & 7);
  for (int64_t w = 0; w < fast; ++w) {
    StoreU64(out + w * 8, op(FastWord(pa, sa, w), FastWord(pb, sb, w)));
  }
  for (int64_t w = fast; w < words; ++w) {
    WriteWord(out, w, op(ReadWord(a, w), ReadWord(b, w)), a.length - w * 64);
  }
}

template <typename Op>
void Unary(BitSpan a, uint8_t* out, Op op) {
  const int64_t words = NumWords(a.length);
  const int64_t fast = FastWords(a);
  const uint8_t* pa = a.data + (a.offset >> 3);
  const int sa = static_cast<int>(a.offset & 7);
  for (int64_t w = 0; w < fast; ++w) StoreU64(out + w * 8, op(FastWord(pa, sa, w)));
  for (int64_t w = fast; w < words; ++w) WriteWord(out, w, op(ReadWord(a, w)), a.length - w * 64);
}

}  // namespace

int64_t CountSetBits(BitSpan s) {
  const int64_t words = NumWords(s.length);
  const int64_t fast = FastWords(s);
  const uint8_t* p = s.data + (s.offset >> 3);
  const int shift = static_cast<int>(s.offset & 7);
  int64_t count = 0;
  for (int64_t w = 0; w < fast; ++w) count += std::popcount(FastWord(p, shift, w));
  for (int64_t w = fast; w < words; ++w) count += std::popcount(ReadWord(s, w));
  return count;
}

void BitmapAnd(BitSpan a, BitSpan b, uint8_t* out) {
  Binary(a, b, out, [](uint64_t x, uint64_t y) { return x & y; });
}
void BitmapOr(BitSpan a, BitSpan b, uint8_t* out) {
  Binary(a, b, out, [](uint64_t x, uint64_t y) { return x | y; });
}
void BitmapAndNot(BitSpan a, BitSpan b, uint8_t* out) {
  Binary(a, b, out, [](uint64_t x, uint64_t y) { return x & ~y; });
}
void BitmapNot(BitSpan a, uint8_t* out) {
  Unary(a, out, [](uint64_t x) { return ~x; });
}
void BitmapCopy(BitSpan a, uint8_t* out) {
  Unary(a, out, [](uint64_t x) { return x; });
}
void BitmapAndInPlace(uint8_t* out, BitSpan a) {
  Binary(BitSpan{out, 0, a.length}, a, out, [](uint64_t x, uint64_t y) { return x & y; });
}

bool BitmapEquals(BitSpan a, BitSpan b) {
  if (a.length != b.length) return false;
  for (int64_t w = 0; w < NumWords(a.length); ++w) {
    if (ReadWord(a, w) != ReadWord(b, w)) return false;
  }
  return true;
}

}  // namespace rowjit::kernels
