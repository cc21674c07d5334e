// Code point counts of a word's string rows, compiled once per x86-64 level (kernels layer,
// internal; level_*.cc only): the lead bytes of 64 bytes are one compare to a mask at AVX-512BW,
// two at AVX2, four at SSE2, and each row's count is a masked popcount (POPCNT from x86-64-v2).
#pragma once

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "kernels/level_common_internal.h"

namespace rowjit::kernels::ROWJIT_LEVEL_NS {
namespace {

// Bit i: byte i of the 64 at `s` is a lead byte (not 10xxxxxx, which as int8 is -128..-65).
inline uint64_t LeadBytes64(const uint8_t* s) {
#if defined(__AVX512BW__)
  return _mm512_cmpgt_epi8_mask(_mm512_loadu_si512(s), _mm512_set1_epi8(-65));
#elif defined(__AVX2__)
  const __m256i limit = _mm256_set1_epi8(-65);
  const auto lo = static_cast<uint32_t>(_mm256_movemask_epi8(
      _mm256_cmpgt_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(s)), limit)));
  const auto hi = static_cast<uint32_t>(_mm256_movemask_epi8(
      _mm256_cmpgt_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 32)), limit)));
  return lo | static_cast<uint64_t>(hi) << 32;
#elif defined(__SSE2__)
  const __m128i limit = _mm_set1_epi8(-65);
  uint64_t mask = 0;
  for (int k = 0; k < 4; ++k) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16 * k));
    mask |= static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpgt_epi8(v, limit)))) << (16 * k);
  }
  return mask;
#else
  uint64_t mask = 0;
  for (int i = 0; i < 64; ++i) mask |= static_cast<uint64_t>(static_cast<int8_t>(s[i]) > -65) << i;
  return mask;
#endif
}

// The same over `n` readable bytes: past them, bits are zero (no byte past the range is read).
inline uint64_t LeadBytes(const uint8_t* s, size_t n) {
  if (n >= 64) return LeadBytes64(s);
  alignas(64) uint8_t tail[64];
  __builtin_memset(tail, 0x80, sizeof(tail));
  __builtin_memcpy(tail, s, n);
  return LeadBytes64(tail);
}

// kernels::CodePointCounts: lead-byte masks of the rows' byte range 64 bytes at a time, a row's
// count the lead bytes before its end less those before its start.
template <typename O>
void CodePointCounts(const O* offsets, int rows, const uint8_t* data, int64_t* out) {
  const uint8_t* base = data + offsets[0];
  const auto total = static_cast<size_t>(offsets[rows] - offsets[0]);
  constexpr size_t kChunks = 64;  // a word of rows up to 4 KiB: masks and counts on the stack
  if (total <= kChunks * 64) {
    // Each chunk's mask and the lead bytes before it: a row's end is one lookup and one
    // popcount, with no branch on where rows cross chunks (one mispredicted branch every few
    // short rows, bench: `str_char_length/4to30B/jit`).
    uint64_t masks[kChunks + 1];
    int64_t before[kChunks + 1];
    const size_t chunks = (total + 63) / 64;
    int64_t run = 0;
    for (size_t k = 0; k < chunks; ++k) {
      __builtin_prefetch(base + total + k * 64);
      masks[k] = LeadBytes(base + k * 64, total - k * 64);
      before[k] = run;
      run += Popcount(masks[k]);
    }
    masks[chunks] = 0;
    before[chunks] = run;
    int64_t start = 0;
    for (int r = 0; r < rows; ++r) {
      const auto end = static_cast<size_t>(offsets[r + 1] - offsets[0]);
      const int64_t leads = before[end >> 6] + Popcount(masks[end >> 6] & ((uint64_t{1} << (end & 63)) - 1));
      out[r] = leads - start;
      start = leads;
    }
    return;
  }
  // Longer words: the chunks walked forward as the rows' ends pass them.
  size_t chunk = 0;
  int64_t before = 0;
  uint64_t mask = LeadBytes64(base);
  int64_t start = 0;
  for (int r = 0; r < rows; ++r) {
    const auto end = static_cast<size_t>(offsets[r + 1] - offsets[0]);
    while ((end >> 6) > chunk) {
      before += Popcount(mask);
      const size_t at = ++chunk * 64;
      mask = at < total ? LeadBytes(base + at, total - at) : 0;
    }
    const int64_t leads = before + Popcount(mask & ((uint64_t{1} << (end & 63)) - 1));
    out[r] = leads - start;
    start = leads;
  }
}

// kernels::CodePointCountsViews: an inline row (bytes 4..15 of its view) by one mask, a longer
// row by its bytes.
void CodePointCountsViews(const uint8_t* views, const uint8_t* const* buffers, int rows, int64_t* out) {
  for (int r = 0; r < rows; ++r) {
    const uint8_t* view = views + static_cast<ptrdiff_t>(r) * 16;
    uint32_t len;
    __builtin_memcpy(&len, view, 4);
    if (len <= 12) {
      alignas(64) uint8_t row[64];
      __builtin_memset(row, 0x80, sizeof(row));
      __builtin_memcpy(row, view + 4, 12);
      out[r] = Popcount(LeadBytes64(row) & ((uint64_t{1} << len) - 1));
      continue;
    }
    uint32_t buffer, offset;
    __builtin_memcpy(&buffer, view + 8, 4);
    __builtin_memcpy(&offset, view + 12, 4);
    const uint8_t* s = buffers[buffer] + offset;
    int64_t leads = 0;
    size_t i = 0;
    for (; i + 64 <= len; i += 64) leads += Popcount(LeadBytes64(s + i));
    out[r] = leads + Popcount(LeadBytes(s + i, len - i));
  }
}

}  // namespace
}  // namespace rowjit::kernels::ROWJIT_LEVEL_NS
