// SQL LIKE over raw bytes, and code-point counting (kernels layer).
#include "kernels/strings.h"

#include <cstring>

#define XXH_INLINE_ALL  // header-only: no library to link, and the hash inlines here
#include <xxhash.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace rowjit::kernels {

namespace {

bool IsContinuation(uint8_t c) { return (c & 0xc0) == 0x80; }

// The length of the character at s[i] (1 for bytes; a code point for utf8).
size_t CharLength(const uint8_t* s, size_t n, size_t i, bool utf8) {
  size_t j = i + 1;
  if (utf8) {
    while (j < n && IsContinuation(s[j])) ++j;
  }
  return j - i;
}

bool SameByte(uint8_t a, uint8_t b, bool fold_case) {
  return fold_case ? AsciiLower(a) == AsciiLower(b) : a == b;
}

}  // namespace

bool LikeMatch(const uint8_t* s, size_t n, const uint8_t* p, size_t pn, bool utf8, bool fold_case) {
  size_t si = 0, pi = 0;
  // The position after the last `%` seen, and the string position it is retried from.
  size_t star_p = pn + 1, star_s = 0;
  while (si < n) {
    if (pi < pn && p[pi] == '%') {
      star_p = ++pi;
      star_s = si;
      continue;
    }
    if (pi < pn && p[pi] == '_') {
      si += CharLength(s, n, si, utf8);
      ++pi;
      continue;
    }
    if (pi < pn) {
      size_t lit = pi;
      if (p[pi] == kLikeEscape && pi + 1 < pn) lit = pi + 1;
      if (SameByte(p[lit], s[si], fold_case)) {
        pi = lit + 1;
        ++si;
        continue;
      }
    }
    if (star_p > pn) return false;  // no `%` to widen
    // Let the last `%` swallow one more character and retry from there.
    star_s += CharLength(s, n, star_s, utf8);
    si = star_s;
    pi = star_p;
  }
  while (pi < pn && p[pi] == '%') ++pi;
  return pi == pn;
}

int CompareBytes(const uint8_t* a, size_t an, const uint8_t* b, size_t bn) {
  const size_t common = an < bn ? an : bn;
  const int c = common == 0 ? 0 : std::memcmp(a, b, common);
  if (c != 0) return c < 0 ? -1 : 1;
  return an == bn ? 0 : (an < bn ? -1 : 1);
}

bool ContainsBytes(const uint8_t* s, size_t n, const uint8_t* needle, size_t m) {
  if (m == 0) return true;
  if (m > n) return false;
  if (m == 1) return std::memchr(s, needle[0], n) != nullptr;
  const size_t last = n - m;  // the last start position
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i first = _mm_set1_epi8(static_cast<char>(needle[0]));
  const __m128i tail = _mm_set1_epi8(static_cast<char>(needle[m - 1]));
  for (; i + 16 <= last + 1; i += 16) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + m - 1));
    unsigned hits = static_cast<unsigned>(
        _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(b, tail))));
    while (hits != 0) {
      const size_t at = i + static_cast<size_t>(__builtin_ctz(hits));
      if (std::memcmp(s + at + 1, needle + 1, m - 2) == 0) return true;
      hits &= hits - 1;
    }
  }
#endif
  for (; i <= last; ++i) {
    if (s[i] == needle[0] && s[i + m - 1] == needle[m - 1] && std::memcmp(s + i + 1, needle + 1, m - 2) == 0) {
      return true;
    }
  }
  return false;
}

uint64_t HashBytes(const uint8_t* s, size_t n) { return XXH3_64bits(s, n); }

int64_t CountCodePoints(const uint8_t* s, size_t n) {
  int64_t count = 0;
  for (size_t i = 0; i < n; ++i) count += !IsContinuation(s[i]);
  return count;
}

}  // namespace rowjit::kernels
