// SQL LIKE over raw bytes, and code-point counting (kernels layer).
#include "kernels/strings.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <optional>
#include <string_view>

#include "kernels/kernel_table_internal.h"

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
  const size_t starts = n - m + 1;  // the start positions
  size_t i = 0;
#if defined(__SSE2__)
  if (starts >= 16) {
    const __m128i first = _mm_set1_epi8(static_cast<char>(needle[0]));
    const __m128i tail = _mm_set1_epi8(static_cast<char>(needle[m - 1]));
    // The starts [at, at + 16) whose first and last bytes match, less those below `from`.
    auto block = [&](size_t at, size_t from) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + at));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + at + m - 1));
      unsigned hits = static_cast<unsigned>(
          _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(b, tail))));
      hits &= ~0u << (from - at);
      while (hits != 0) {
        const size_t k = at + static_cast<size_t>(__builtin_ctz(hits));
        if (std::memcmp(s + k + 1, needle + 1, m - 2) == 0) return true;
        hits &= hits - 1;
      }
      return false;
    };
    for (; i + 16 <= starts; i += 16) {
      if (block(i, i)) return true;
    }
    // The last starts in one block that overlaps the previous one (no byte-at-a-time tail).
    return i < starts && block(starts - 16, i);
  }
#endif
  for (; i < starts; ++i) {
    if (s[i] == needle[0] && s[i + m - 1] == needle[m - 1] && std::memcmp(s + i + 1, needle + 1, m - 2) == 0) {
      return true;
    }
  }
  return false;
}

namespace {

// Whether the m bytes at `s` equal `needle` (lower case when folding).
bool SameBytes(const uint8_t* s, const uint8_t* needle, size_t m, bool fold_case) {
  if (!fold_case) return std::memcmp(s, needle, m) == 0;
  for (size_t i = 0; i < m; ++i) {
    if (AsciiLower(s[i]) != needle[i]) return false;
  }
  return true;
}

template <typename Offset>
uint64_t RowsContainingImpl(const Offset* offsets, int rows, const uint8_t* data, const uint8_t* needle, size_t m,
                            bool fold_case) {
  if (rows <= 0) return 0;
  const auto lo = static_cast<int64_t>(offsets[0]), hi = static_cast<int64_t>(offsets[rows]);
  const auto len = static_cast<int64_t>(m);
  if (hi - lo < len) return 0;
  uint64_t found = 0;
  int row = 0;
  // The candidate start p (ascending): the row it starts in, and whether the needle fits there.
  auto take = [&](int64_t p) {
    while (static_cast<int64_t>(offsets[row + 1]) <= p) ++row;
    const uint64_t bit = uint64_t{1} << row;
    if ((found & bit) != 0 || p + len > static_cast<int64_t>(offsets[row + 1])) return;
    if (SameBytes(data + p, needle, m, fold_case)) found |= bit;
  };
  const int64_t starts = hi - lo - len + 1;
  int64_t p = lo;
#if defined(__SSE2__)
  if (starts >= 16) {
    // A folded letter is compared with its case bit set: only its two cases then match.
    auto letter = [&](uint8_t c) { return fold_case && c >= 'a' && c <= 'z'; };
    const __m128i first = _mm_set1_epi8(static_cast<char>(needle[0]));
    const __m128i last = _mm_set1_epi8(static_cast<char>(needle[m - 1]));
    const __m128i first_case = _mm_set1_epi8(letter(needle[0]) ? 0x20 : 0);
    const __m128i last_case = _mm_set1_epi8(letter(needle[m - 1]) ? 0x20 : 0);
    // The candidates among starts [at, at + 16), less those below `from`.
    auto block = [&](int64_t at, int64_t from) {
      const __m128i a = _mm_or_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(data + at)), first_case);
      const __m128i z =
          _mm_or_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(data + at + len - 1)), last_case);
      auto hits = static_cast<unsigned>(
          _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(z, last))));
      hits &= ~0u << (from - at);
      for (; hits != 0; hits &= hits - 1) take(at + __builtin_ctz(hits));
    };
    const int64_t end = lo + starts;
    for (; p + 16 <= end; p += 16) block(p, p);
    // The last starts in one block that overlaps the previous one (no byte-at-a-time tail).
    if (p < end) block(end - 16, p);
    return found;
  }
#endif
  for (; p < lo + starts; ++p) {
    if (SameByte(data[p], needle[0], fold_case) && SameByte(data[p + len - 1], needle[m - 1], fold_case)) take(p);
  }
  return found;
}

}  // namespace

uint64_t RowsContaining(const int32_t* offsets, int rows, const uint8_t* data, const uint8_t* needle, size_t m,
                        bool fold_case) {
  return RowsContainingImpl(offsets, rows, data, needle, m, fold_case);
}

uint64_t RowsContainingViews(const uint8_t* views, const uint8_t* const* buffers, int rows, const uint8_t* needle,
                             size_t m, bool fold_case) {
  uint64_t found = 0;
  // Out-of-line rows whose bytes follow each other in one buffer (as writers lay a column's
  // strings out, inline rows taking no buffer bytes) are searched as one range, as the offsets
  // layout's rows are: a search a row cost its call and setup (bench:
  // `str_search/4to64B_like/jit_view`).
  int64_t run_offsets[65];
  int run_rows[64];
  int run = 0;
  const uint8_t* run_base = nullptr;
  uint32_t run_buffer = 0;
  uint64_t run_end = 0;
  auto flush = [&] {
    for (uint64_t hits = run > 0 ? RowsContainingImpl(run_offsets, run, run_base, needle, m, fold_case) : 0; hits != 0;
         hits &= hits - 1) {
      found |= uint64_t{1} << run_rows[std::countr_zero(hits)];
    }
    run = 0;
  };
  for (int r = 0; r < rows; ++r) {
    const uint8_t* view = views + static_cast<ptrdiff_t>(r) * 16;
    uint32_t len;
    std::memcpy(&len, view, 4);
    if (len > 12) {  // out of line: its bytes join the run they follow, or start one
      uint32_t buffer, offset;
      std::memcpy(&buffer, view + 8, 4);
      std::memcpy(&offset, view + 12, 4);
      if (run == 0 || buffer != run_buffer || offset != run_end) {
        flush();
        run_base = buffers[buffer] + offset;
        run_buffer = buffer;
        run_offsets[0] = 0;
      }
      run_offsets[run + 1] = run_offsets[run] + len;
      run_rows[run++] = r;
      run_end = static_cast<uint64_t>(offset) + len;
      continue;
    }
    if (len < m) continue;
#if defined(__SSE2__)
    // Inline bytes are bytes 4..15 of the view itself: one compare each for the needle's first and
    // last bytes (m <= len <= 12 keeps the shifts below 16).
    auto letter = [&](uint8_t c) { return fold_case && c >= 'a' && c <= 'z'; };
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(view));
    const auto first = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(
        _mm_or_si128(v, _mm_set1_epi8(letter(needle[0]) ? 0x20 : 0)), _mm_set1_epi8(static_cast<char>(needle[0])))));
    const auto last = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(
        _mm_or_si128(v, _mm_set1_epi8(letter(needle[m - 1]) ? 0x20 : 0)), _mm_set1_epi8(static_cast<char>(needle[m - 1])))));
    unsigned hits = (first >> 4) & (last >> (4 + m - 1)) & ((1u << (len - m + 1)) - 1);
    for (; hits != 0; hits &= hits - 1) {
      if (SameBytes(view + 4 + __builtin_ctz(hits), needle, m, fold_case)) {
        found |= uint64_t{1} << r;
        break;
      }
    }
#else
    const int64_t row[2] = {0, len};
    found |= (RowsContainingImpl(row, 1, view + 4, needle, m, fold_case) != 0 ? uint64_t{1} : 0) << r;
#endif
  }
  flush();
  return found;
}

uint64_t RowsContaining(const int64_t* offsets, int rows, const uint8_t* data, const uint8_t* needle, size_t m,
                        bool fold_case) {
  return RowsContainingImpl(offsets, rows, data, needle, m, fold_case);
}

uint64_t HashBytes(const uint8_t* s, size_t n) { return XXH3_64bits(s, n); }

int64_t CountCodePoints(const uint8_t* s, size_t n) {
  int64_t count = 0;
  for (size_t i = 0; i < n; ++i) count += !IsContinuation(s[i]);
  return count;
}

namespace {

bool IsSpace(uint8_t c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

bool EqualsFolded(std::string_view text, std::string_view lower) {
  if (text.size() != lower.size()) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (AsciiLower(static_cast<uint8_t>(text[i])) != static_cast<uint8_t>(lower[i])) return false;
  }
  return true;
}

ParseStatus ParseBool(std::string_view t, uint64_t* out) {
  for (const char* yes : {"true", "t", "yes", "y", "on", "1"}) {
    if (EqualsFolded(t, yes)) return *out = 1, ParseStatus::kOk;
  }
  for (const char* no : {"false", "f", "no", "n", "off", "0"}) {
    if (EqualsFolded(t, no)) return ParseStatus::kOk;
  }
  return ParseStatus::kInvalid;
}

// The integer of sign `negative` and `magnitude` in a target of `bits` (signed or not).
ParseStatus IntegerInRange(bool negative, uint64_t magnitude, bool is_signed, int bits, uint64_t* out) {
  // The range of the target: [-2^(bits-1), 2^(bits-1) - 1] or [0, 2^bits - 1].
  const uint64_t top = is_signed ? (uint64_t{1} << (bits - 1)) - 1 : (bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1);
  if (negative) {
    if (magnitude == 0) return ParseStatus::kOk;  // -0
    if (!is_signed || magnitude > top + 1) return ParseStatus::kOutOfRange;
    *out = uint64_t{0} - magnitude;  // two's complement, sign-extended to 64 bits
    return ParseStatus::kOk;
  }
  if (magnitude > top) return ParseStatus::kOutOfRange;
  *out = magnitude;
  return ParseStatus::kOk;
}

ParseStatus ParseInteger(std::string_view t, bool is_signed, int bits, uint64_t* out) {
  const bool negative = !t.empty() && t[0] == '-';
  if (!t.empty() && (t[0] == '-' || t[0] == '+')) t.remove_prefix(1);
  if (t.empty() || t[0] < '0' || t[0] > '9') return ParseStatus::kInvalid;  // from_chars takes no sign here
  uint64_t magnitude = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), magnitude);
  if (end != t.data() + t.size()) return ParseStatus::kInvalid;
  if (ec == std::errc::result_out_of_range) return ParseStatus::kOutOfRange;
  return IntegerInRange(negative, magnitude, is_signed, bits, out);
}

static_assert(std::endian::native == std::endian::little, "a chunk's first byte is its low byte");

// Whether the 8 bytes of `chunk` are all ASCII digits.
bool EightDigits(uint64_t chunk) {
  return ((chunk & 0xf0f0f0f0f0f0f0f0) | (((chunk + 0x0606060606060606) & 0xf0f0f0f0f0f0f0f0) >> 4)) ==
         0x3333333333333333;
}

// The value of 8 ASCII digits, the first in the low byte: pairs, then quads, then the whole, each
// step one multiply (the SWAR parse of simdjson and fast_float).
uint64_t EightDigitsValue(uint64_t chunk) {
  chunk -= 0x3030303030303030;
  chunk = (chunk * 10) + (chunk >> 8);
  return (((chunk & 0x000000ff000000ff) * (100 + (uint64_t{1000000} << 32))) +
          (((chunk >> 16) & 0x000000ff000000ff) * (1 + (uint64_t{10000} << 32)))) >>
         32;
}

uint64_t Load8(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

uint64_t Load4(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// The `rest` (1..7) bytes at `p` as the high bytes of a chunk whose low bytes are '0', from loads
// of whole words only (a byte copy through memory would stall the load that reads it back):
// where `before` readable bytes precede `p`, the 8 bytes ending at p + rest; else two overlapping
// 4-byte loads, or the bytes one by one.
uint64_t TailChunk(const uint8_t* p, size_t rest, size_t before) {
  const unsigned zeros = 8 * static_cast<unsigned>(8 - rest);  // bits of '0' bytes at the bottom
  const uint64_t low = (uint64_t{1} << zeros) - 1;
  if (before + rest >= 8) return (Load8(p + rest - 8) & ~low) | (0x3030303030303030 & low);
  if (rest >= 4) return (Load4(p) << zeros) | (Load4(p + rest - 4) << 32) | (0x3030303030303030 & low);
  uint64_t chunk = 0x3030303030303030;
  for (size_t j = 0; j < rest; ++j) chunk = (chunk >> 8) | (uint64_t{p[j]} << 56);
  return chunk;
}

// The value of `n` (1..19) ASCII digits at `p` into `*out`, `before` readable bytes preceding
// them; false where a byte is not a digit. Eight at a time, the last up to seven behind '0' bytes
// in one chunk: no loop a digit, no branch on each digit's value.
bool ParseDigits(const uint8_t* p, size_t n, size_t before, uint64_t* out) {
  uint64_t value = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const uint64_t chunk = Load8(p + i);
    if (!EightDigits(chunk)) return false;
    value = value * 100'000'000 + EightDigitsValue(chunk);
  }
  if (const size_t rest = n - i; rest > 0) {
    const uint64_t chunk = TailChunk(p + i, rest, before + i);
    if (!EightDigits(chunk)) return false;
    static constexpr uint64_t kScale[] = {1, 10, 100, 1'000, 10'000, 100'000, 1'000'000, 10'000'000};
    value = value * kScale[rest] + EightDigitsValue(chunk);
  }
  *out = value;
  return true;
}

// An integer's common form, a sign and at most 19 digits with no white space around them, parsed
// without trimming or from_chars (bench: `str_parse/i64/jit`); nullopt for every other text.
std::optional<ParseStatus> ParsePlainInteger(const uint8_t* s, size_t n, bool is_signed, int bits, uint64_t* out) {
  const bool sign = n > 1 && (s[0] == '-' || s[0] == '+');
  const size_t digits = n - sign;
  uint64_t magnitude = 0;
  if (digits == 0 || digits > 19 || !ParseDigits(s + sign, digits, sign, &magnitude)) return std::nullopt;
  return IntegerInRange(sign && s[0] == '-', magnitude, is_signed, bits, out);
}

template <typename F>
ParseStatus ParseFloat(std::string_view t, uint64_t* out) {
  const bool plus = !t.empty() && t[0] == '+';
  if (plus) t.remove_prefix(1);
  if (t.empty() || (plus && t[0] == '-')) return ParseStatus::kInvalid;
  F value = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value, std::chars_format::general);
  if (end != t.data() + t.size() || ec == std::errc::invalid_argument) return ParseStatus::kInvalid;
  if (ec == std::errc::result_out_of_range) return ParseStatus::kOutOfRange;
  if constexpr (sizeof(F) == 4) {
    uint32_t b;
    std::memcpy(&b, &value, 4);
    *out = b;
  } else {
    std::memcpy(out, &value, 8);
  }
  return ParseStatus::kOk;
}

}  // namespace

ParseStatus ParseNumber(const uint8_t* s, size_t n, NumberKind kind, int bits, uint64_t* out) {
  *out = 0;
  if (kind == NumberKind::kSigned || kind == NumberKind::kUnsigned) {
    if (auto plain = ParsePlainInteger(s, n, kind == NumberKind::kSigned, bits, out)) return *plain;
  }
  size_t begin = 0, end = n;
  while (begin < end && IsSpace(s[begin])) ++begin;
  while (end > begin && IsSpace(s[end - 1])) --end;
  const std::string_view t(reinterpret_cast<const char*>(s) + begin, end - begin);
  switch (kind) {
    case NumberKind::kBool: return ParseBool(t, out);
    case NumberKind::kSigned: return ParseInteger(t, true, bits, out);
    case NumberKind::kUnsigned: return ParseInteger(t, false, bits, out);
    case NumberKind::kFloat32: return ParseFloat<float>(t, out);
    case NumberKind::kFloat64: return ParseFloat<double>(t, out);
  }
  return ParseStatus::kInvalid;
}

ParseStatus ParseDecimal(const uint8_t* s, size_t n, int precision, int scale, __int128* out) {
  *out = 0;
  size_t at = 0, end = n;
  while (at < end && IsSpace(s[at])) ++at;
  while (end > at && IsSpace(s[end - 1])) --end;
  const bool negative = at < end && s[at] == '-';
  if (at < end && (s[at] == '-' || s[at] == '+')) ++at;
  // The mantissa's digits, without the point: [first, last) less the point's byte.
  const size_t first = at;
  size_t point = SIZE_MAX, digits = 0;
  for (; at < end; ++at) {
    if (s[at] >= '0' && s[at] <= '9') {
      ++digits;
    } else if (s[at] == '.' && point == SIZE_MAX) {
      point = at;
    } else {
      break;
    }
  }
  const size_t last = at;
  if (digits == 0) return ParseStatus::kInvalid;
  // The exponent, saturated far beyond any digit count a value can use.
  int64_t exponent = 0;
  if (at < end && (s[at] == 'e' || s[at] == 'E')) {
    ++at;
    const bool minus = at < end && s[at] == '-';
    if (at < end && (s[at] == '-' || s[at] == '+')) ++at;
    const size_t from = at;
    for (; at < end && s[at] >= '0' && s[at] <= '9'; ++at) {
      exponent = std::min<int64_t>(exponent * 10 + (s[at] - '0'), int64_t{1} << 40);
    }
    if (at == from) return ParseStatus::kInvalid;
    if (minus) exponent = -exponent;
  }
  if (at != end) return ParseStatus::kInvalid;
  // The value is 0.d1 d2 ... dk times 10^(whole digits + exponent), d1 the first nonzero digit:
  // the result keeps the first `keep` of those digits (zeros past dk) and rounds on the next.
  auto digit_at = [&](size_t i) { return s[i] - '0'; };
  int64_t whole = static_cast<int64_t>(point == SIZE_MAX ? last - first : point - first);  // digits before the point
  size_t lead = first;
  for (; lead < last && (lead == point || s[lead] == '0'); ++lead) {
    if (lead != point) --whole;  // 0.0x * 10^w is 0.x * 10^(w - 1)
  }
  if (lead == last) return ParseStatus::kOk;  // zero
  const int64_t keep = whole + exponent + scale;
  if (keep > precision) return ParseStatus::kOutOfRange;
  if (keep < 0) return ParseStatus::kOk;  // below half a unit of the last place
  __int128 v = 0;
  int64_t kept = 0;
  size_t i = lead;
  for (; i < last && kept < keep; ++i) {
    if (i == point) continue;
    v = v * 10 + digit_at(i);
    ++kept;
  }
  for (; kept < keep; ++kept) v *= 10;
  if (i < last && i == point) ++i;
  if (i < last && digit_at(i) >= 5) ++v;
  __int128 limit = 1;
  for (int d = 0; d < precision; ++d) limit *= 10;
  if (v >= limit) return ParseStatus::kOutOfRange;
  *out = negative ? -v : v;
  return ParseStatus::kOk;
}

size_t FirstInvalidUtf8(const uint8_t* s, size_t n) {
  size_t i = 0;
  while (i < n) {
    const uint8_t c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    // The sequence's length and the range of its second byte (RFC 3629, table 3-7 of Unicode).
    size_t len = 0;
    uint8_t lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) len = 2;
    else if (c == 0xe0) len = 3, lo = 0xa0;
    else if (c >= 0xe1 && c <= 0xec) len = 3;
    else if (c == 0xed) len = 3, hi = 0x9f;  // no surrogates
    else if (c >= 0xee && c <= 0xef) len = 3;
    else if (c == 0xf0) len = 4, lo = 0x90;
    else if (c >= 0xf1 && c <= 0xf3) len = 4;
    else if (c == 0xf4) len = 4, hi = 0x8f;  // up to U+10FFFF
    else return i;
    if (n - i < len || s[i + 1] < lo || s[i + 1] > hi) return i;
    for (size_t k = 2; k < len; ++k) {
      if (!IsContinuation(s[i + k])) return i;
    }
    i += len;
  }
  return n;
}

void CodePointCounts(const int32_t* offsets, int rows, const uint8_t* data, int64_t* out) {
  ActiveKernelTable().code_point_counts32(offsets, rows, data, out);
}

void CodePointCounts(const int64_t* offsets, int rows, const uint8_t* data, int64_t* out) {
  ActiveKernelTable().code_point_counts64(offsets, rows, data, out);
}

void CodePointCountsViews(const uint8_t* views, const uint8_t* const* buffers, int rows, int64_t* out) {
  ActiveKernelTable().code_point_counts_views(views, buffers, rows, out);
}

}  // namespace rowjit::kernels
