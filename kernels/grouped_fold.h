// Grouped folds over primitive spans: row i folds into slot groups[i] of the caller's
// accumulator tables (kernels layer). The engine's grouped aggregates compose a dense slot per
// row from the group keys, then fold each aggregate's argument column with one of these.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/bitmap.h"
#include "kernels/fold.h"

namespace rowjit::kernels {

// Common arguments:
//   slots: the number of entries of each table, 1 to 2^32; groups[i] < slots for every row i in
//     [0, length) (the caller guarantees it). The kernel picks its strategy from it: a few
//     slots (up to kFewGroupedSlots with AVX-512, 4 with AVX2, none before) keep every slot's
//     accumulators in vector registers through one pass over the rows; more scatter into the
//     tables row by row. Sums, bounded sums, float sums and counts; 16-byte sums, min/max and the rest
//     always scatter.
//   validity: as kernels/fold.h (data == nullptr: every row valid; otherwise validity.length ==
//     length); only valid rows fold.
//   tables are the caller's, initialized by the caller (sums 0, counts 0, lanes +0.0, seen 0),
//     and folded into: a call adds to what the tables hold, so a batch can be folded block by
//     block. A `counts` table may be nullptr where the caller needs no count.
inline constexpr int64_t kFewGroupedSlots = 8;

// The accumulator of an integer sum: exact for any 2^32 rows of any integer type.
template <typename T>
using GroupedSumType = std::conditional_t<(sizeof(T) <= 4), int64_t, __int128>;

// Integer sums: sums[g] += values[i], counts[g] += 1 for each valid row i of group g.
// T: int8..int64, uint8..uint64, __int128 (16-byte decimals; the caller bounds the rows so that
// the 128-bit total cannot overflow, or checks with GroupedSumI128Checked).
template <typename T>
void GroupedSum(const T* values, const uint32_t* groups, int64_t length, BitSpan validity,
                int64_t slots, GroupedSumType<T>* sums, int64_t* counts);

// Bounded 64-bit sums: sums[g] += values[i], counts[g] += 1 for each valid row i of group g,
// accumulated in int64. The caller guarantees that the absolute values of the call's valid rows
// add up to less than 2^63 (so no partial sum, in any order, leaves int64), e.g. |x| < 10^p for
// a decimal of precision p over at most 2^63 / 10^p rows, and keeps each table entry plus the
// call's total within int64 (a block folded into zeroed tables always is).
void GroupedSumBounded(const int64_t* values, const uint32_t* groups, int64_t length,
                       BitSpan validity, int64_t slots, int64_t* sums, int64_t* counts);

// Bounded 64-bit sums of up to kMaxBoundedSumColumns columns under one pass over the groups and
// the validity: sums[c * slots + g] += values[c][i] and counts[g] += 1 (once per row, not per
// column) for each valid row i of group g. The bound of GroupedSumBounded holds for each column.
inline constexpr int kMaxBoundedSumColumns = 8;
void GroupedSumBoundedMany(const int64_t* const* values, int columns, const uint32_t* groups,
                           int64_t length, BitSpan validity, int64_t slots, int64_t* sums,
                           int64_t* counts);

// 16-byte sums with overflow detection: returns false (tables left in an unspecified state)
// when some slot's running total leaves the signed 128-bit range.
bool GroupedSumI128Checked(const __int128* values, const uint32_t* groups, int64_t length,
                           BitSpan validity, int64_t slots, __int128* sums, int64_t* counts);

// Float sums in the order of kernels/fold.h, per group: row i (of the call) adds (as f64) to
// lanes[g * kFloatSumLanes + (first_position + i) % kFloatSumLanes], rows in increasing i,
// where first_position is the row's position in the whole fold (a multiple of kFloatSumLanes
// keeps the lanes of a block the ones the whole batch gives). `lanes` holds slots *
// kFloatSumLanes doubles. FinishFloatSum reduces one group's lanes as fold.h does (pairwise
// h = 8, 4, 2, 1; a NaN result is the canonical quiet NaN).
template <typename T>  // float, double
void GroupedFloatSum(const T* values, const uint32_t* groups, int64_t length, BitSpan validity,
                     int64_t first_position, int64_t slots, double* lanes, int64_t* counts);
double FinishFloatSum(const double* group_lanes);

// Min and max: mins[g] / maxs[g] over the valid rows of group g, seen[g] set to 1 when one
// folded (a slot whose seen is 0 holds no value). Floats compare as kernels/fold.h Min/Max do:
// by IEEE totalOrder (-0.0 < +0.0), NaN rows ignored under kSkip (they do not set seen) and
// ordered by sign and payload under kTotalOrder. No two different bit patterns compare equal,
// so the result does not depend on the order of the rows. `nan` is ignored for integers.
template <typename T>  // int8..int64, uint8..uint64, __int128, float, double
void GroupedMin(const T* values, const uint32_t* groups, int64_t length, BitSpan validity,
                NanMode nan, int64_t slots, T* mins, uint8_t* seen);
template <typename T>
void GroupedMax(const T* values, const uint32_t* groups, int64_t length, BitSpan validity,
                NanMode nan, int64_t slots, T* maxs, uint8_t* seen);

// counts[g] += the valid rows of group g (validity.data == nullptr: every row).
void GroupedCount(const uint32_t* groups, int64_t length, BitSpan validity, int64_t slots,
                  int64_t* counts);

// counts[g] += the NaN rows among the valid rows of group g.
template <typename T>  // float, double
void GroupedNanCount(const T* values, const uint32_t* groups, int64_t length, BitSpan validity,
                     int64_t slots, int64_t* counts);

// Bool folds over bit-packed values (values.length == length): any[g] |= value,
// all[g] &= value over the valid rows (any starts 0 and all starts 1 in the caller's tables),
// seen[g] = 1 when a row folded.
void GroupedAnyAll(BitSpan values, const uint32_t* groups, int64_t length, BitSpan validity,
                   int64_t slots, uint8_t* any, uint8_t* all, uint8_t* seen);

}  // namespace rowjit::kernels
