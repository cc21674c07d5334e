// The functions string kernels call (jit layer, codegen room, internal): static C entry points over
// (pointer, length) pairs, linked into every kernel by name, so that objects from the disk
// cache link in any process.
#pragma once

#include <span>
#include <string_view>

namespace rowjit::jit::internal {

struct HelperSymbol {
  std::string_view name;
  void* address;
};

// Every helper a kernel may call, by the name its IR declares.
std::span<const HelperSymbol> StringHelperSymbols();

inline constexpr std::string_view kHelperCompare = "rowjit_str_compare";          // i32 (p, n, p, n)
inline constexpr std::string_view kHelperStartsWith = "rowjit_str_starts_with";   // i1 (p, n, p, n)
inline constexpr std::string_view kHelperEndsWith = "rowjit_str_ends_with";       // i1 (p, n, p, n)
inline constexpr std::string_view kHelperContains = "rowjit_str_contains";        // i1 (p, n, p, n)
// i1 (p, n, needle p, m): ASCII letters in either case (ILIKE '%n%'; the needle lower case)
inline constexpr std::string_view kHelperContainsFolded = "rowjit_str_contains_folded";
inline constexpr std::string_view kHelperLike = "rowjit_str_like";                // i1 (p, n, p, n, flags)
// i64 row bits (ptr offsets of a word's 64 rows, ptr data, ptr needle, i64 m, i32 fold_case):
// kernels::RowsContaining over 32- and 64-bit offsets
inline constexpr std::string_view kHelperRowsContaining32 = "rowjit_str_rows_containing32";
inline constexpr std::string_view kHelperRowsContaining64 = "rowjit_str_rows_containing64";
// i64 row bits (ptr views of a word's 64 rows, ptr buffer table, ptr needle, i64 m, i32 fold_case):
// kernels::RowsContainingViews (it reads through the table: read-only, not argument memory only)
inline constexpr std::string_view kHelperRowsContainingViews = "rowjit_str_rows_containing_views";
inline constexpr std::string_view kHelperCodePoints = "rowjit_str_code_points";   // i64 (p, n)
// void (ptr offsets of a word's 64 rows, ptr data, ptr out [64 x i64]): kernels::CodePointCounts
inline constexpr std::string_view kHelperCodePoints32 = "rowjit_str_code_points32";
inline constexpr std::string_view kHelperCodePoints64 = "rowjit_str_code_points64";
// void (ptr views of a word's 64 rows, ptr buffer table, ptr out [64 x i64]):
// kernels::CodePointCountsViews
inline constexpr std::string_view kHelperCodePointsViews = "rowjit_str_code_points_views";
inline constexpr std::string_view kHelperHash = "rowjit_str_hash";                // i64 (p, n): XXH3-64
// i1 fails (p, n, i32 kind << 8 | bits, ptr out i64): kernels::ParseNumber
inline constexpr std::string_view kHelperParse = "rowjit_str_parse";
inline constexpr std::string_view kHelperInvalidUtf8 = "rowjit_str_invalid_utf8";  // i1 (p, n)
// i32 status (p, n, ir::TemporalSyntax code, ptr out i64): ir::ParseTemporalText, its status
// (kLocal 0, kInstant 1, kInvalid 2, kOutOfRange 3)
inline constexpr std::string_view kHelperParseTemporal = "rowjit_str_parse_temporal";
// i1 fails (p, n, precision << 8 | scale, ptr out [2 x i64]: low, high): kernels::ParseDecimal
inline constexpr std::string_view kHelperParseDecimal = "rowjit_str_parse_decimal";
// i1 fails (p, n, code, ptr out [2 x i64]: low, high): ir::ParseIntervalLiteral for code an
// IntervalUnit, ir::ParseDurationLiteral for kParseDuration + a TimeUnit
inline constexpr std::string_view kHelperParseInterval = "rowjit_str_parse_interval";
inline constexpr int kParseDuration = 16;
// i1 (table of {ptr, i64} sorted bytewise, count, p, n): whether (p, n) is in the table
inline constexpr std::string_view kHelperInSorted = "rowjit_str_in_sorted";

// Flags of kHelperLike.
inline constexpr int kLikeUtf8 = 1, kLikeFoldCase = 2;

}  // namespace rowjit::jit::internal
