// Grouped folds (kernels layer): up to the active level's max_slots slots go to its vectorized
// pass (grouped_fold_body_internal.h); the rest scatter into the caller's tables row by row
// here, validity walked a word at a time.
#include "kernels/grouped_fold.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstring>

#include "kernels/kernel_table_internal.h"
#include "kernels/total_order.h"

namespace rowjit::kernels {
namespace {

void CheckArgs(int64_t length, BitSpan validity, int64_t slots) {
  (void)length;
  (void)validity;
  (void)slots;
  assert(length >= 0 && "negative length");
  assert((validity.data == nullptr || validity.length == length) && "validity length");
  assert(slots >= 1 && slots <= (int64_t{1} << 32) && "slots out of range");
}

// Calls dense(begin, n) for rows [begin, begin + n) all valid (the whole call at once when there
// is no bitmap, else one word), masked(begin, n, word) for a word of mixed validity (bit j: row
// begin + j); words with no valid row are skipped.
template <typename Dense, typename Masked>
void ForEachWord(int64_t length, BitSpan validity, Dense&& dense, Masked&& masked) {
  if (validity.data == nullptr) {
    if (length > 0) dense(int64_t{0}, length);
    return;
  }
  const int64_t words = NumWords(length);
  for (int64_t w = 0; w < words; ++w) {
    const int64_t begin = 64 * w;
    const int64_t n = std::min<int64_t>(64, length - begin);
    const uint64_t word = ReadWord(validity, w);
    if (word == 0) continue;
    if (word == LowBits(n)) {
      dense(begin, n);
    } else {
      masked(begin, n, word);
    }
  }
}

// Calls row(i) for every valid row i, in increasing i.
template <typename Row>
void ForEachValidRow(int64_t length, BitSpan validity, Row&& row) {
  ForEachWord(
      length, validity,
      [&](int64_t begin, int64_t n) {
        for (int64_t i = begin; i < begin + n; ++i) row(i);
      },
      [&](int64_t begin, int64_t, uint64_t word) {
        for (; word != 0; word &= word - 1) row(begin + std::countr_zero(word));
      });
}

// Calls row(i, valid) for the rows of the call: in a word with many valid rows every row, a
// null one adding the fold's identity (no branch to mispredict); in a word with few only the
// valid rows (valid == true). Groups of null rows are below `slots` too. Counts only: sums
// scatter faster over the valid rows alone (bench: `grouped/sum_{i64,f64}_slots256_0.9`).
constexpr int kManyValidRows = 16;

template <typename Row>
void ForEachRowOrIdentity(int64_t length, BitSpan validity, Row&& row) {
  ForEachWord(
      length, validity,
      [&](int64_t begin, int64_t n) {
        for (int64_t i = begin; i < begin + n; ++i) row(i, true);
      },
      [&](int64_t begin, int64_t n, uint64_t word) {
        if (std::popcount(word) >= kManyValidRows) {
          for (int64_t j = 0; j < n; ++j) row(begin + j, ((word >> j) & 1) != 0);
          return;
        }
        for (; word != 0; word &= word - 1) row(begin + std::countr_zero(word), true);
      });
}

// ---- Scatter loops for many slots.

template <typename T, bool kCount>
void SumScatter(const T* values, const uint32_t* groups, int64_t length, BitSpan validity,
                GroupedSumType<T>* sums, int64_t* counts) {
  using A = GroupedSumType<T>;
  using U = std::conditional_t<sizeof(A) == 16, unsigned __int128, uint64_t>;
  ForEachValidRow(length, validity, [&](int64_t i) {
    const uint32_t g = groups[i];
    // Unsigned: a 128-bit total the caller let overflow wraps instead of being undefined.
    sums[g] = static_cast<A>(static_cast<U>(sums[g]) + static_cast<U>(static_cast<A>(values[i])));
    if constexpr (kCount) ++counts[g];
  });
}

template <bool kCount>
void BoundedScatter(const int64_t* values, const uint32_t* groups, int64_t length,
                    BitSpan validity, int64_t* sums, int64_t* counts) {
  ForEachValidRow(length, validity, [&](int64_t i) {
    const uint32_t g = groups[i];
    sums[g] += values[i];
    if constexpr (kCount) ++counts[g];
  });
}

constexpr int64_t kPrefetchRows = 64;
constexpr int64_t kPrefetchTableBytes = int64_t{1} << 20;

template <typename T, bool kCount, bool kPrefetch>
void FloatSumScatter(const T* values, const uint32_t* groups, int64_t length, BitSpan validity,
                     int64_t first_position, double* lanes, int64_t* counts) {
  static_assert((kFloatSumLanes & (kFloatSumLanes - 1)) == 0, "lane by a mask");
  const uint64_t phase = static_cast<uint64_t>(first_position);
  ForEachValidRow(length, validity, [&](int64_t i) {
    const uint64_t g = groups[i];
    // A row's lanes are a cache line apart from the last row's: fetch a few rows ahead.
    if constexpr (kPrefetch) {
      const uint64_t ahead = static_cast<uint64_t>(std::min(i + kPrefetchRows, length - 1));
      __builtin_prefetch(&lanes[groups[ahead] * kFloatSumLanes + ((phase + ahead) & (kFloatSumLanes - 1))], 1);
    }
    lanes[g * kFloatSumLanes + ((phase + i) & (kFloatSumLanes - 1))] += static_cast<double>(values[i]);
    if constexpr (kCount) ++counts[g];
  });
}

// The integer min/max compare on: the value, or a float's totalOrder key.
template <typename T>
inline auto OrderKey(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    return TotalOrderKey(x);
  } else {
    return x;
  }
}

template <typename T, bool kMax>
void ExtremeScatter(const T* values, const uint32_t* groups, int64_t length, BitSpan validity,
                    NanMode nan, T* out, uint8_t* seen) {
  const bool skip_nan = std::is_floating_point_v<T> && nan == NanMode::kSkip;
  ForEachValidRow(length, validity, [&](int64_t i) {
    const T x = values[i];
    if constexpr (std::is_floating_point_v<T>) {
      if (skip_nan && std::isnan(x)) return;
    }
    const uint32_t g = groups[i];
    const auto key = OrderKey(x);
    const bool better = kMax ? key > OrderKey(out[g]) : key < OrderKey(out[g]);
    if (!seen[g] || better) out[g] = x;
    seen[g] = 1;
  });
}

}  // namespace

template <typename T>
void GroupedSum(const T* values, const uint32_t* groups, int64_t length, BitSpan validity,
                int64_t slots, GroupedSumType<T>* sums, int64_t* counts) {
  CheckArgs(length, validity, slots);
  // 16-byte values scatter: split into vector lanes they were no faster at 6 slots.
  if constexpr (sizeof(T) <= 8) {
    const GroupedFns& few = ActiveKernelTable().grouped;
    if (slots <= few.max_slots) {
      GroupedSumOf<T>(few)(values, groups, length, validity, slots, sums, counts);
      return;
    }
  }
  const bool count = counts != nullptr;
  if (count) {
    SumScatter<T, true>(values, groups, length, validity, sums, counts);
  } else {
    SumScatter<T, false>(values, groups, length, validity, sums, counts);
  }
}

void GroupedSumBounded(const int64_t* values, const uint32_t* groups, int64_t length,
                       BitSpan validity, int64_t slots, int64_t* sums, int64_t* counts) {
  CheckArgs(length, validity, slots);
  const GroupedFns& few = ActiveKernelTable().grouped;
  if (slots <= few.max_slots) {
    few.sum_bounded(values, groups, length, validity, slots, sums, counts);
    return;
  }
  if (counts != nullptr) {
    BoundedScatter<true>(values, groups, length, validity, sums, counts);
  } else {
    BoundedScatter<false>(values, groups, length, validity, sums, counts);
  }
}

void GroupedSumBoundedMany(const int64_t* const* values, int columns, const uint32_t* groups,
                           int64_t length, BitSpan validity, int64_t slots, int64_t* sums,
                           int64_t* counts) {
  CheckArgs(length, validity, slots);
  assert(columns >= 0 && columns <= kMaxBoundedSumColumns && "columns out of range");
  if (columns == 0) {
    if (counts != nullptr) GroupedCount(groups, length, validity, slots, counts);
    return;
  }
  const GroupedFns& few = ActiveKernelTable().grouped;
  if (slots <= few.max_slots) {
    few.sum_bounded_many(values, columns, groups, length, validity, slots, sums, counts);
    return;
  }
  ForEachValidRow(length, validity, [&](int64_t i) {
    const uint32_t g = groups[i];
    for (int c = 0; c < columns; ++c) sums[c * slots + g] += values[c][i];
    if (counts != nullptr) ++counts[g];
  });
}

bool GroupedSumI128Checked(const __int128* values, const uint32_t* groups, int64_t length,
                           BitSpan validity, int64_t slots, __int128* sums, int64_t* counts) {
  CheckArgs(length, validity, slots);
  bool overflow = false;
  ForEachValidRow(length, validity, [&](int64_t i) {
    const uint32_t g = groups[i];
    overflow |= __builtin_add_overflow(sums[g], values[i], &sums[g]);
    if (counts != nullptr) ++counts[g];
  });
  return !overflow;
}

template <typename T>
void GroupedFloatSum(const T* values, const uint32_t* groups, int64_t length, BitSpan validity,
                     int64_t first_position, int64_t slots, double* lanes, int64_t* counts) {
  static_assert(std::is_floating_point_v<T>, "GroupedFloatSum is for floats");
  CheckArgs(length, validity, slots);
  assert(first_position >= 0 && "negative first_position");
  const GroupedFns& few = ActiveKernelTable().grouped;
  if (slots <= few.max_slots) {
    GroupedFloatSumOf<T>(few)(values, groups, length, validity, first_position, slots, lanes, counts);
    return;
  }
  const bool count = counts != nullptr;
  const bool prefetch = slots * kFloatSumLanes * int64_t{sizeof(double)} > kPrefetchTableBytes;
  if (count) {
    if (prefetch) FloatSumScatter<T, true, true>(values, groups, length, validity, first_position, lanes, counts);
    else FloatSumScatter<T, true, false>(values, groups, length, validity, first_position, lanes, counts);
  } else {
    if (prefetch) FloatSumScatter<T, false, true>(values, groups, length, validity, first_position, lanes, counts);
    else FloatSumScatter<T, false, false>(values, groups, length, validity, first_position, lanes, counts);
  }
}

double FinishFloatSum(const double* group_lanes) {
  double s[kFloatSumLanes];
  std::memcpy(s, group_lanes, sizeof s);
  for (int h = kFloatSumLanes / 2; h >= 1; h /= 2) {
    for (int l = 0; l < h; ++l) s[l] = s[l] + s[l + h];
  }
  // fold.h's canonical NaN: an addition's NaN payload is open, so it is not kept.
  return std::isnan(s[0]) ? std::bit_cast<double>(uint64_t{0x7ff8000000000000}) : s[0];
}

template <typename T>
void GroupedMin(const T* values, const uint32_t* groups, int64_t length, BitSpan validity,
                NanMode nan, int64_t slots, T* mins, uint8_t* seen) {
  CheckArgs(length, validity, slots);
  ExtremeScatter<T, false>(values, groups, length, validity, nan, mins, seen);
}

template <typename T>
void GroupedMax(const T* values, const uint32_t* groups, int64_t length, BitSpan validity,
                NanMode nan, int64_t slots, T* maxs, uint8_t* seen) {
  CheckArgs(length, validity, slots);
  ExtremeScatter<T, true>(values, groups, length, validity, nan, maxs, seen);
}

void GroupedCount(const uint32_t* groups, int64_t length, BitSpan validity, int64_t slots,
                  int64_t* counts) {
  CheckArgs(length, validity, slots);
  const GroupedFns& few = ActiveKernelTable().grouped;
  if (slots <= few.max_slots) {
    few.count(groups, length, validity, slots, counts);
    return;
  }
  ForEachRowOrIdentity(length, validity, [&](int64_t i, bool valid) { counts[groups[i]] += valid; });
}

template <typename T>
void GroupedNanCount(const T* values, const uint32_t* groups, int64_t length, BitSpan validity,
                     int64_t slots, int64_t* counts) {
  static_assert(std::is_floating_point_v<T>, "GroupedNanCount is for floats");
  CheckArgs(length, validity, slots);
  ForEachValidRow(length, validity, [&](int64_t i) { counts[groups[i]] += std::isnan(values[i]); });
}

void GroupedAnyAll(BitSpan values, const uint32_t* groups, int64_t length, BitSpan validity,
                   int64_t slots, uint8_t* any, uint8_t* all, uint8_t* seen) {
  CheckArgs(length, validity, slots);
  assert(values.length == length && "values length");
  ForEachValidRow(length, validity, [&](int64_t i) {
    const uint32_t g = groups[i];
    const uint8_t bit = GetBit(values.data, values.offset + i);
    any[g] |= bit;
    all[g] &= bit;
    seen[g] = 1;
  });
}

#define ROWJIT_GROUPED_SUM_INSTANTIATE(T)                                                        \
  template void GroupedSum<T>(const T*, const uint32_t*, int64_t, BitSpan, int64_t,              \
                              GroupedSumType<T>*, int64_t*);                                     \
  template void GroupedMin<T>(const T*, const uint32_t*, int64_t, BitSpan, NanMode, int64_t, T*, \
                              uint8_t*);                                                         \
  template void GroupedMax<T>(const T*, const uint32_t*, int64_t, BitSpan, NanMode, int64_t, T*, \
                              uint8_t*);
ROWJIT_GROUPED_SUM_INSTANTIATE(int8_t)
ROWJIT_GROUPED_SUM_INSTANTIATE(int16_t)
ROWJIT_GROUPED_SUM_INSTANTIATE(int32_t)
ROWJIT_GROUPED_SUM_INSTANTIATE(int64_t)
ROWJIT_GROUPED_SUM_INSTANTIATE(uint8_t)
ROWJIT_GROUPED_SUM_INSTANTIATE(uint16_t)
ROWJIT_GROUPED_SUM_INSTANTIATE(uint32_t)
ROWJIT_GROUPED_SUM_INSTANTIATE(uint64_t)
ROWJIT_GROUPED_SUM_INSTANTIATE(__int128)
#undef ROWJIT_GROUPED_SUM_INSTANTIATE

#define ROWJIT_GROUPED_FLOAT_INSTANTIATE(T)                                                       \
  template void GroupedFloatSum<T>(const T*, const uint32_t*, int64_t, BitSpan, int64_t, int64_t, \
                                   double*, int64_t*);                                            \
  template void GroupedMin<T>(const T*, const uint32_t*, int64_t, BitSpan, NanMode, int64_t, T*,  \
                              uint8_t*);                                                          \
  template void GroupedMax<T>(const T*, const uint32_t*, int64_t, BitSpan, NanMode, int64_t, T*,  \
                              uint8_t*);                                                          \
  template void GroupedNanCount<T>(const T*, const uint32_t*, int64_t, BitSpan, int64_t, int64_t*);
ROWJIT_GROUPED_FLOAT_INSTANTIATE(float)
ROWJIT_GROUPED_FLOAT_INSTANTIATE(double)
#undef ROWJIT_GROUPED_FLOAT_INSTANTIATE

}  // namespace rowjit::kernels
