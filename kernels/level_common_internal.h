// Helpers every per-level kernel body uses (kernels layer, internal; only level_*.cc include it).
// Everything lives in an anonymous namespace inside the level's namespace: a helper compiled with
// AVX must never be the copy the linker picks for a baseline caller, so nothing here is shared
// with other translation units -- not even bitmap.h's inline helpers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "kernels/kernel_table_internal.h"

#ifndef ROWJIT_LEVEL_NS
#error "define ROWJIT_LEVEL_NS before including the kernel bodies"
#endif

namespace rowjit::kernels::ROWJIT_LEVEL_NS {
namespace {

template <typename To, typename From>
inline To BitCast(From x) {
  static_assert(sizeof(To) == sizeof(From));
  To y;
  __builtin_memcpy(&y, &x, sizeof y);
  return y;
}
inline uint64_t Load64(const uint8_t* p) {
  uint64_t w;
  __builtin_memcpy(&w, p, 8);
  return w;
}
inline void Store64(uint8_t* p, uint64_t w) { __builtin_memcpy(p, &w, 8); }
constexpr int64_t Bytes(int64_t bits) { return (bits + 7) / 8; }
constexpr int64_t Words64(int64_t bits) { return (bits + 63) / 64; }
constexpr uint64_t LowMask(int64_t n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }
template <typename T>
inline T MinOf(T a, T b) { return b < a ? b : a; }
template <typename T>
inline T MaxOf(T a, T b) { return a < b ? b : a; }

inline int Popcount(uint64_t x) {
#if defined(__POPCNT__)
  return __builtin_popcountll(x);
#else
  // Without POPCNT the builtin is a libgcc call per word.
  x = x - ((x >> 1) & 0x5555555555555555ULL);
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
  return static_cast<int>((x * 0x0101010101010101ULL) >> 56);
#endif
}

// Writes the low `bits` bits of `word` as word w of out (no byte past NumBytes(64w + bits)).
inline void WriteWord(uint8_t* out, int64_t w, uint64_t word, int64_t bits) {
  if (bits >= 64) {
    Store64(out + 8 * w, word);
    return;
  }
  word &= LowMask(bits);
  __builtin_memcpy(out + 8 * w, &word, static_cast<size_t>(Bytes(bits)));
}

// Reads 64-bit words of a bit span at any offset. Word w is bits [64w, 64w + 64), zero past the
// span's length. The first fast_words() words take two unaligned loads and a funnel shift; the
// rest (at most the last two) go byte by byte so nothing past the span's last byte is read.
class WordReader {
 public:
  explicit WordReader(BitSpan s)
      : span_(s), base_(s.data + (s.offset >> 3)), shift_(static_cast<int>(s.offset & 7)) {
    const int64_t avail = Bytes(s.offset + s.length) - (s.offset >> 3);
    fast_ = avail >= 16 ? (avail - 16) / 8 + 1 : 0;
    if (fast_ > s.length / 64) fast_ = s.length / 64;
  }
  int64_t fast_words() const { return fast_; }
  const uint8_t* base() const { return base_; }
  int shift() const { return shift_; }

  // Word w < fast_words(). Branch-free for every shift: with shift 0 the high part shifts out.
  static uint64_t Fast(const uint8_t* base, int shift, int64_t w) {
    const uint8_t* p = base + 8 * w;
    return (Load64(p) >> shift) | ((Load64(p + 8) << 1) << (63 - shift));
  }
  uint64_t Word(int64_t w) const { return w < fast_ ? Fast(base_, shift_, w) : Slow(w); }

 private:
  uint64_t Slow(int64_t w) const {
    const int64_t bits = span_.length - 64 * w;
    if (bits <= 0) return 0;
    const int64_t first = span_.offset + 64 * w;
    const uint8_t* p = span_.data + (first >> 3);
    const uint8_t* end = span_.data + Bytes(span_.offset + span_.length);
    const int64_t n = end - p < 9 ? end - p : 9;
    unsigned __int128 acc = 0;
    for (int64_t i = 0; i < n; ++i) acc |= static_cast<unsigned __int128>(p[i]) << (8 * i);
    return static_cast<uint64_t>(acc >> (first & 7)) & LowMask(bits);
  }

  BitSpan span_;
  const uint8_t* base_;
  int shift_;
  int64_t fast_;
};

// Bit j of a 32-row half as a constant of the lane's width: the lane test is an AND and a compare
// against a constant vector, not a shift by the lane index (no per-lane variable shift before
// AVX2, none for 64-bit lanes before AVX-512 in the forms the vectorizer uses).
template <typename M>
struct LaneBitTable {
  M bit[32];
};
template <typename M>
constexpr LaneBitTable<M> MakeLaneBits() {
  LaneBitTable<M> t{};
  for (int j = 0; j < 32; ++j) t.bit[j] = static_cast<M>(M{1} << j);
  return t;
}
template <typename M>
alignas(64) constexpr LaneBitTable<M> kLaneBits = MakeLaneBits<M>();
// Mask lanes as wide as the value lanes where that fits 32 bits of position.
template <typename T>
using LaneMask = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;

}  // namespace
}  // namespace rowjit::kernels::ROWJIT_LEVEL_NS
