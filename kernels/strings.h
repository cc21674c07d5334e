// Static string kernels over raw bytes (kernels layer): SQL LIKE matching, ASCII case folding,
// code-point counting. The reference evaluator's semantics and the JIT's general matcher.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace rowjit::kernels {

// The escape character of LIKE patterns (PostgreSQL's default).
inline constexpr uint8_t kLikeEscape = '\\';

// SQL LIKE: `%` matches any run of characters, `_` exactly one, the escape character makes the
// next pattern byte literal (a trailing escape matches itself). With `utf8` a character is a
// code point (a byte plus the continuation bytes 10xxxxxx that follow it; total on any bytes,
// valid UTF-8 or not); otherwise a byte. `fold_case`: ASCII letters compare case-insensitively
// (ILIKE). Linear in practice: backtracking returns only to the last `%`.
bool LikeMatch(const uint8_t* s, size_t n, const uint8_t* p, size_t pn, bool utf8, bool fold_case);

// Code points of `s`: the bytes that are not UTF-8 continuation bytes (10xxxxxx).
int64_t CountCodePoints(const uint8_t* s, size_t n);

// The code points of each of `rows` (at most 64) rows of an offsets-layout string column into
// `out[0..rows)`. `offsets`: rows + 1 offsets into `data`, ascending. The rows' bytes are
// contiguous, so their lead bytes (every byte but 10xxxxxx) are found 64 at a time over the
// whole range (the static kernel of the CPU's level: kernels/strings_body_internal.h) and counted
// up to each row's end by a popcount: no row is walked on its own, so short rows cost what long
// ones do per byte.
void CodePointCounts(const int32_t* offsets, int rows, const uint8_t* data, int64_t* out);
void CodePointCounts(const int64_t* offsets, int rows, const uint8_t* data, int64_t* out);
// The same over the view layout (RowsContainingViews): an inline row counted in its view by one
// compare, a longer row's bytes 64 at a time.
void CodePointCountsViews(const uint8_t* views, const uint8_t* const* buffers, int rows, int64_t* out);

// Bytewise order of two strings as unsigned bytes, a prefix first: -1, 0 or 1.
int CompareBytes(const uint8_t* a, size_t an, const uint8_t* b, size_t bn);

// Whether `needle` occurs in `s`. Candidates are found 16 positions at a time by testing the
// needle's first and last bytes together (SSE2), then compared in full.
bool ContainsBytes(const uint8_t* s, size_t n, const uint8_t* needle, size_t m);

// The rows among `rows` (at most 64) of an offsets-layout string column that contain `needle`
// (`m` > 0 bytes), as bits (row i: bit i). `offsets`: the rows' rows + 1 offsets into `data`,
// ascending. The rows' bytes are contiguous, so they are searched as one range, 16 candidate
// starts at a time by the needle's first and last bytes (SSE2), and each candidate is given to
// the row it starts in: it counts only if the needle ends in that row too. No row is searched on
// its own, so short rows cost what long ones do per byte. `fold_case`: ASCII letters compare
// case-insensitively (ILIKE); `needle` is then lower case.
uint64_t RowsContaining(const int32_t* offsets, int rows, const uint8_t* data, const uint8_t* needle, size_t m,
                        bool fold_case);
uint64_t RowsContaining(const int64_t* offsets, int rows, const uint8_t* data, const uint8_t* needle, size_t m,
                        bool fold_case);
// The same over the view layout (16-byte views: a u32 length, then up to 12 bytes inline, or a
// 4-byte prefix, a u32 buffer index into `buffers` and a u32 offset): an inline row is searched in
// the view itself, one SSE2 compare for each of the needle's first and last bytes; longer rows
// whose bytes follow each other in one buffer as one range, as over offsets.
uint64_t RowsContainingViews(const uint8_t* views, const uint8_t* const* buffers, int rows, const uint8_t* needle,
                             size_t m, bool fold_case);

// The 64-bit hash of `s`: XXH3-64 with seed 0 (xxHash 0.8; the algorithm is frozen since 0.8.0,
// so stored hashes stay valid across versions).
uint64_t HashBytes(const uint8_t* s, size_t n);

// What parsing a number's text gives.
enum class ParseStatus { kOk, kInvalid, kOutOfRange };

// The kinds of values text parses to (casts from utf8).
enum class NumberKind : int32_t { kBool, kSigned, kUnsigned, kFloat32, kFloat64 };

// Parses `s` as a value of `kind` (`bits`: the width of an integer, 8 to 64). Leading and
// trailing ASCII white space is ignored (PostgreSQL). Integers: an optional sign and decimal
// digits; outside the width's range is kOutOfRange. Floats: an optional sign, then decimal
// digits with an optional point and exponent, or `inf`, `infinity`, `nan` (any case); a finite
// text whose value rounds to infinity or underflows to zero is kOutOfRange. Bools: `true`, `t`,
// `yes`, `y`, `on`, `1` and `false`, `f`, `no`, `n`, `off`, `0` (any case). `*out` gets the
// value's bits: integers sign- or zero-extended to 64 bits, an f32's bits in the low 32, an
// f64's bits, a bool as 0 or 1; 0 when the parse fails.
ParseStatus ParseNumber(const uint8_t* s, size_t n, NumberKind kind, int bits, uint64_t* out);

// Parses `s` as a decimal of at most `precision` digits (1..38) with `scale` digits after the
// point (0..precision), as its unscaled value. Leading and trailing ASCII white space is ignored;
// then an optional sign, digits with an optional point (at least one digit: '1.', '.5'), and an
// optional exponent ('e' or 'E', an optional sign, digits: '1.5e3'). Digits past `scale` round
// half away from zero (PostgreSQL's numeric input). kOutOfRange when the rounded value needs more
// than `precision` digits; `*out` is 0 when the parse fails.
ParseStatus ParseDecimal(const uint8_t* s, size_t n, int precision, int scale, __int128* out);

// The offset of the first byte of `s` that is not part of a valid UTF-8 sequence (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF), or `n` when all of `s` is valid.
size_t FirstInvalidUtf8(const uint8_t* s, size_t n);

inline uint8_t AsciiLower(uint8_t c) { return c >= 'A' && c <= 'Z' ? static_cast<uint8_t>(c + 32) : c; }
// `s` with its ASCII letters lower case (other bytes as they are): a needle ILIKE searches for.
inline std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(AsciiLower(static_cast<uint8_t>(c)));
  return out;
}

}  // namespace rowjit::kernels
