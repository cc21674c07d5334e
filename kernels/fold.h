// Masked folds over primitive spans: sum, min, max, min_max, count, nan_count (kernels layer).
// Every lane is folded and null lanes read as the fold's identity, so the cost is the same at
// every null density and wherever the nulls fall.
#pragma once

#include <cstdint>
#include <optional>
#include <type_traits>

#include "kernels/bitmap.h"

namespace rowjit::kernels {

// Validity arguments: `validity.data == nullptr` means every row is valid; otherwise
// validity.length must equal the number of values.

// How float min/max treat NaN. kSkip ignores NaN rows (all-NaN gives null); kTotalOrder keeps
// them in the IEEE totalOrder reduction: a positive NaN is the greatest value, a negative NaN the
// least, payloads ordered too. Results are bit-for-bit what a scalar totalOrder reduction gives.
enum class NanMode : uint8_t { kSkip, kTotalOrder };

// i64 for signed integers, u64 for unsigned, f64 for floats.
template <typename T>
using SumType = std::conditional_t<std::is_floating_point_v<T>, double,
                                   std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;

// Integer sums are exact: overflow means the exact sum of the valid rows does not fit SumType,
// whatever the order of the rows (so every implementation agrees); it is never wrapped.
//
// Float sums run in f64 in this fixed order, so a JIT fold can reproduce them bit for bit:
// 16 accumulators s[0..15] start at +0.0; row i (after f32 -> f64) is added to s[i % 16] in
// increasing i, null rows adding +0.0 (the accumulators start at +0.0 and so are never -0.0,
// the one value adding +0.0 changes, which is why null rows may be skipped). Then for
// h = 8, 4, 2, 1: s[l] = s[l] + s[l + h] for l < h. The result is s[0], except that a NaN
// result is the canonical quiet NaN 0x7ff8000000000000 (IEEE leaves an addition's NaN payload
// open, and compilers commute the operands).
inline constexpr int kFloatSumLanes = 16;

template <typename T>
struct SumResult {
  enum class State : uint8_t { kValue, kNull, kOverflow };
  State state = State::kNull;
  SumType<T> value{};
  bool ok() const { return state == State::kValue; }
};

template <typename T>
struct MinMaxValue {
  T min;
  T max;
};

template <typename T>
SumResult<T> Sum(const T* values, int64_t length, BitSpan validity = {});
template <typename T>
std::optional<T> Min(const T* values, int64_t length, BitSpan validity = {},
                     NanMode nan = NanMode::kSkip);
template <typename T>
std::optional<T> Max(const T* values, int64_t length, BitSpan validity = {},
                     NanMode nan = NanMode::kSkip);
// Both extrema in one pass.
template <typename T>
std::optional<MinMaxValue<T>> MinMax(const T* values, int64_t length, BitSpan validity = {},
                                     NanMode nan = NanMode::kSkip);
// Valid rows.
int64_t Count(int64_t length, BitSpan validity = {});
// Valid rows holding NaN (floats only).
template <typename T>
int64_t NanCount(const T* values, int64_t length, BitSpan validity = {});

}  // namespace rowjit::kernels
