// The static entry points string kernels call (jit layer, codegen room).
#include "jit/codegen/string_helpers.h"

#include <cstdint>

#include "ir/temporal.h"
#include "kernels/strings.h"

namespace {

using rowjit::jit::internal::kLikeFoldCase;
using rowjit::jit::internal::kLikeUtf8;

extern "C" {

int32_t rowjit_str_compare(const uint8_t* a, int64_t an, const uint8_t* b, int64_t bn) {
  return rowjit::kernels::CompareBytes(a, static_cast<size_t>(an), b, static_cast<size_t>(bn));
}

bool rowjit_str_starts_with(const uint8_t* s, int64_t n, const uint8_t* p, int64_t pn) {
  return pn <= n && rowjit::kernels::CompareBytes(s, static_cast<size_t>(pn), p, static_cast<size_t>(pn)) == 0;
}

bool rowjit_str_ends_with(const uint8_t* s, int64_t n, const uint8_t* p, int64_t pn) {
  return pn <= n &&
         rowjit::kernels::CompareBytes(s + (n - pn), static_cast<size_t>(pn), p, static_cast<size_t>(pn)) == 0;
}

bool rowjit_str_contains(const uint8_t* s, int64_t n, const uint8_t* p, int64_t pn) {
  return rowjit::kernels::ContainsBytes(s, static_cast<size_t>(n), p, static_cast<size_t>(pn));
}

bool rowjit_str_contains_folded(const uint8_t* s, int64_t n, const uint8_t* p, int64_t pn) {
  const int64_t row[2] = {0, n};  // one row of its own
  return rowjit::kernels::RowsContaining(row, 1, s, p, static_cast<size_t>(pn), true) != 0;
}

bool rowjit_str_like(const uint8_t* s, int64_t n, const uint8_t* p, int64_t pn, int32_t flags) {
  return rowjit::kernels::LikeMatch(s, static_cast<size_t>(n), p, static_cast<size_t>(pn),
                                    (flags & kLikeUtf8) != 0, (flags & kLikeFoldCase) != 0);
}

// A word's 64 rows (kernels::RowsContaining): `fold_case` nonzero for ILIKE, the needle lower case.
uint64_t rowjit_str_rows_containing32(const int32_t* offsets, const uint8_t* data, const uint8_t* needle, int64_t m,
                                      int32_t fold_case) {
  return rowjit::kernels::RowsContaining(offsets, 64, data, needle, static_cast<size_t>(m), fold_case != 0);
}

uint64_t rowjit_str_rows_containing_views(const uint8_t* views, const uint8_t* const* buffers, const uint8_t* needle,
                                          int64_t m, int32_t fold_case) {
  return rowjit::kernels::RowsContainingViews(views, buffers, 64, needle, static_cast<size_t>(m), fold_case != 0);
}

uint64_t rowjit_str_rows_containing64(const int64_t* offsets, const uint8_t* data, const uint8_t* needle, int64_t m,
                                      int32_t fold_case) {
  return rowjit::kernels::RowsContaining(offsets, 64, data, needle, static_cast<size_t>(m), fold_case != 0);
}

// A word's 64 rows (kernels::CodePointCounts), one count a row into `out`.
void rowjit_str_code_points32(const int32_t* offsets, const uint8_t* data, int64_t* out) {
  rowjit::kernels::CodePointCounts(offsets, 64, data, out);
}

void rowjit_str_code_points64(const int64_t* offsets, const uint8_t* data, int64_t* out) {
  rowjit::kernels::CodePointCounts(offsets, 64, data, out);
}

void rowjit_str_code_points_views(const uint8_t* views, const uint8_t* const* buffers, int64_t* out) {
  rowjit::kernels::CodePointCountsViews(views, buffers, 64, out);
}

int64_t rowjit_str_code_points(const uint8_t* s, int64_t n) {
  return rowjit::kernels::CountCodePoints(s, static_cast<size_t>(n));
}

uint64_t rowjit_str_hash(const uint8_t* s, int64_t n) {
  return rowjit::kernels::HashBytes(s, static_cast<size_t>(n));
}

bool rowjit_str_parse(const uint8_t* s, int64_t n, int32_t code, uint64_t* out) {
  const auto kind = static_cast<rowjit::kernels::NumberKind>(code >> 8);
  return rowjit::kernels::ParseNumber(s, static_cast<size_t>(n), kind, code & 0xff, out) !=
         rowjit::kernels::ParseStatus::kOk;
}

bool rowjit_str_invalid_utf8(const uint8_t* s, int64_t n) {
  return rowjit::kernels::FirstInvalidUtf8(s, static_cast<size_t>(n)) != static_cast<size_t>(n);
}

int32_t rowjit_str_parse_temporal(const uint8_t* s, int64_t n, int32_t code, int64_t* out) {
  const rowjit::ir::TemporalText t = rowjit::ir::ParseTemporalText(
      std::string_view(reinterpret_cast<const char*>(s), static_cast<size_t>(n)), rowjit::ir::TemporalSyntax::FromCode(code));
  *out = t.value;
  return static_cast<int32_t>(t.status);
}

bool rowjit_str_parse_decimal(const uint8_t* s, int64_t n, int32_t code, uint64_t* out) {
  __int128 v = 0;
  const bool fails = rowjit::kernels::ParseDecimal(s, static_cast<size_t>(n), code >> 8, code & 0xff, &v) !=
                     rowjit::kernels::ParseStatus::kOk;
  out[0] = static_cast<uint64_t>(v);
  out[1] = static_cast<uint64_t>(static_cast<unsigned __int128>(v) >> 64);
  return fails;
}

// No allocation (the IR declares it argument-memory-only and nounwind): the parts through
// ir::ParseIntervalText, then the storage of the interval type or duration unit `code` names.
bool rowjit_str_parse_interval(const uint8_t* s, int64_t n, int32_t code, uint64_t* out) {
  using rowjit::jit::internal::kParseDuration;
  const rowjit::ir::IntervalTextParse parsed =
      rowjit::ir::ParseIntervalText(std::string_view(reinterpret_cast<const char*>(s), static_cast<size_t>(n)));
  __int128 storage = 0;
  bool fails = !parsed.why.empty();
  if (!fails && code >= kParseDuration) {
    int64_t units = 0;
    fails = !rowjit::ir::DurationStorageOf(parsed.parts, static_cast<rowjit::TimeUnit>(code - kParseDuration), &units).empty();
    storage = units;
  } else if (!fails) {
    fails = !rowjit::ir::IntervalStorageOf(parsed.parts, static_cast<rowjit::IntervalUnit>(code), &storage).empty();
  }
  const auto bits = fails ? 0 : static_cast<unsigned __int128>(storage);
  out[0] = static_cast<uint64_t>(bits);
  out[1] = static_cast<uint64_t>(bits >> 64);
  return fails;
}

// A string constant of a kernel: its bytes and length, as StringConstant lays them out.
struct StringEntry {
  const uint8_t* bytes;
  int64_t length;
};

bool rowjit_str_in_sorted(const StringEntry* table, int64_t count, const uint8_t* s, int64_t n) {
  const StringEntry* lo = table;  // the first entry not less than (s, n)
  for (int64_t len = count; len > 0;) {
    const int64_t half = len / 2;
    const StringEntry& e = lo[half];
    if (rowjit::kernels::CompareBytes(e.bytes, static_cast<size_t>(e.length), s, static_cast<size_t>(n)) < 0) {
      lo += half + 1;
      len -= half + 1;
    } else {
      len = half;
    }
  }
  return lo != table + count &&
         rowjit::kernels::CompareBytes(lo->bytes, static_cast<size_t>(lo->length), s, static_cast<size_t>(n)) == 0;
}

}  // extern "C"

}  // namespace

namespace rowjit::jit::internal {

std::span<const HelperSymbol> StringHelperSymbols() {
  static const HelperSymbol kSymbols[] = {
      {kHelperCompare, reinterpret_cast<void*>(&rowjit_str_compare)},
      {kHelperStartsWith, reinterpret_cast<void*>(&rowjit_str_starts_with)},
      {kHelperEndsWith, reinterpret_cast<void*>(&rowjit_str_ends_with)},
      {kHelperContains, reinterpret_cast<void*>(&rowjit_str_contains)},
      {kHelperContainsFolded, reinterpret_cast<void*>(&rowjit_str_contains_folded)},
      {kHelperLike, reinterpret_cast<void*>(&rowjit_str_like)},
      {kHelperRowsContaining32, reinterpret_cast<void*>(&rowjit_str_rows_containing32)},
      {kHelperRowsContaining64, reinterpret_cast<void*>(&rowjit_str_rows_containing64)},
      {kHelperRowsContainingViews, reinterpret_cast<void*>(&rowjit_str_rows_containing_views)},
      {kHelperCodePoints32, reinterpret_cast<void*>(&rowjit_str_code_points32)},
      {kHelperCodePoints64, reinterpret_cast<void*>(&rowjit_str_code_points64)},
      {kHelperCodePointsViews, reinterpret_cast<void*>(&rowjit_str_code_points_views)},
      {kHelperCodePoints, reinterpret_cast<void*>(&rowjit_str_code_points)},
      {kHelperHash, reinterpret_cast<void*>(&rowjit_str_hash)},
      {kHelperParse, reinterpret_cast<void*>(&rowjit_str_parse)},
      {kHelperInvalidUtf8, reinterpret_cast<void*>(&rowjit_str_invalid_utf8)},
      {kHelperParseTemporal, reinterpret_cast<void*>(&rowjit_str_parse_temporal)},
      {kHelperParseDecimal, reinterpret_cast<void*>(&rowjit_str_parse_decimal)},
      {kHelperParseInterval, reinterpret_cast<void*>(&rowjit_str_parse_interval)},
      {kHelperInSorted, reinterpret_cast<void*>(&rowjit_str_in_sorted)},
  };
  return kSymbols;
}

}  // namespace rowjit::jit::internal
