// Grouped folds (kernels layer): a few slots fold in one vectorized pass with every slot's
// accumulators in registers (a row adds to slot s's lanes under the mask groups == s); more
// slots scatter into the caller's tables row by row. Validity is walked a word at a time.
#include "kernels/grouped_fold.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstring>

#include "kernels/total_order.h"

namespace rowjit::kernels {
namespace {

// A group no slot matches: null rows read it in the vectorized pass.
constexpr uint32_t kNoSlot = ~uint32_t{0};

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

// ---- The vectorized pass over a few slots.

#if defined(__AVX512F__)
constexpr int kVecBytes = 64;
#elif defined(__AVX2__)
constexpr int kVecBytes = 32;
#else
constexpr int kVecBytes = 16;
#endif
// 64-bit lanes per vector; a block of kLanes rows is one vector step.
constexpr int kLanes = kVecBytes / 8;
using VI = int64_t __attribute__((vector_size(kVecBytes)));
using VU = uint64_t __attribute__((vector_size(kVecBytes)));
using VF = double __attribute__((vector_size(kVecBytes)));
using VG = uint32_t __attribute__((vector_size(kVecBytes / 2)));
template <typename T>
using VT [[gnu::vector_size(kLanes * sizeof(T))]] = T;

// Rows are folded in chunks whose per-lane sums cannot wrap 64 bits (2^16 rows of |x| < 2^32
// sum below 2^48 in any lane); a chunk's flush costs a few dozen adds, nothing beside its rows.
constexpr int64_t kChunkRows = int64_t{1} << 16;

template <typename V, typename T>
inline V LoadAs(const T* p) {
  VT<T> x;
  std::memcpy(&x, p, sizeof x);
  return __builtin_convertvector(x, V);
}
inline VI LoadGroups(const uint32_t* g) { return LoadAs<VI>(g); }

// Runs st.Rows64(values, groups) over every word of the call with a valid row; groups there
// hold kNoSlot for null rows, and a short last word is padded with kNoSlot rows.
template <typename T, typename State>
void RunFew(const T* values, const uint32_t* groups, int64_t length, BitSpan validity,
            State& st) {
  alignas(64) uint32_t masked_groups[64];
  alignas(64) T pad_values[64];
  auto rows = [&](int64_t begin, int64_t n, const uint32_t* g) {
    // Counting reads no values (values == nullptr).
    if (n == 64) {
      st.Rows64(values == nullptr ? nullptr : values + begin, g);
      return;
    }
    if (g != masked_groups) std::memcpy(masked_groups, g, n * sizeof(uint32_t));
    std::fill(masked_groups + n, masked_groups + 64, kNoSlot);
    std::memset(pad_values, 0, sizeof pad_values);
    if (values != nullptr) std::memcpy(pad_values, values + begin, n * sizeof(T));
    st.Rows64(pad_values, masked_groups);
  };
  ForEachWord(
      length, validity,
      [&](int64_t begin, int64_t n) {
        for (int64_t b = begin; b < begin + n; b += 64) {
          rows(b, std::min<int64_t>(64, begin + n - b), groups + b);
        }
      },
      [&](int64_t begin, int64_t n, uint64_t word) {
        const uint32_t* g = groups + begin;
        if (n == 64) {
          for (int j = 0; j < 64; ++j) masked_groups[j] = (word >> j) & 1 ? g[j] : kNoSlot;
        } else {
          for (int j = 0; j < n; ++j) masked_groups[j] = (word >> j) & 1 ? g[j] : kNoSlot;
        }
        rows(begin, n, masked_groups);
      });
}

// Integer sums of up to 32-bit values: one i64 lane sum per slot. 64-bit values: each as its low
// 32 bits (unsigned) and high 32 bits (signed as the column), summed apart and joined in 128 bits.
template <typename T, int kSlots, bool kCount>
struct FewIntSum {
  static constexpr bool kWide = sizeof(T) == 8;
  VI lo[kSlots] = {};
  VI hi[kSlots] = {};
  VI cnt[kSlots] = {};
  void Rows64(const T* p, const uint32_t* g) {
    for (int b = 0; b < 64; b += kLanes) {
      const VI gw = LoadGroups(g + b);
      VI xlo, xhi;
      if constexpr (kWide) {
        VU x;
        std::memcpy(&x, p + b, sizeof x);
        xlo = (VI)(x & 0xffffffffu);
        xhi = std::is_signed_v<T> ? ((VI)x >> 32) : (VI)(x >> 32);
      } else {
        xlo = LoadAs<VI>(p + b);
      }
#pragma GCC unroll 16
      for (int s = 0; s < kSlots; ++s) {
        const VI m = gw == s;
        lo[s] += xlo & m;
        if constexpr (kWide) hi[s] += xhi & m;
        if constexpr (kCount) cnt[s] -= m;
      }
    }
  }
  void Flush(int64_t slots, GroupedSumType<T>* sums, int64_t* counts) const {
    for (int s = 0; s < slots; ++s) {
      GroupedSumType<T> total = 0;
      for (int l = 0; l < kLanes; ++l) {
        total += lo[s][l];
        if constexpr (kWide) total += static_cast<__int128>(hi[s][l]) * (int64_t{1} << 32);
        if constexpr (kCount) counts[s] += cnt[s][l];
      }
      sums[s] += total;
    }
  }
};

template <typename T, int kSlots, bool kCount>
void SumFew(const T* values, const uint32_t* groups, int64_t length, BitSpan validity,
            int64_t slots, GroupedSumType<T>* sums, int64_t* counts) {
  for (int64_t start = 0; start < length; start += kChunkRows) {
    BitSpan sub = validity;
    sub.offset += start;
    sub.length = std::min(kChunkRows, length - start);
    FewIntSum<T, kSlots, kCount> st;
    RunFew(values + start, groups + start, sub.length, sub, st);
    st.Flush(slots, sums, counts);
  }
}

// Float sums: slot s's 16 lanes as 16 / kLanes vectors, held rotated so that vector lane r
// takes the rows i with i % 16 == r (words start at multiples of 16 rows): lane
// (first_position + r) % 16 of the table. Rows add in increasing i within each lane.
template <typename T, int kSlots, bool kCount>
struct FewFloatSum {
  static constexpr int kVecs = kFloatSumLanes / kLanes;
  VF acc[kSlots][kVecs];
  VI cnt[kSlots] = {};
  void Rows64(const T* p, const uint32_t* g) {
    for (int b = 0; b < 64; b += kLanes) {
      const int v = (b / kLanes) % kVecs;
      const VI gw = LoadGroups(g + b);
      const VF x = LoadAs<VF>(p + b);
#pragma GCC unroll 16
      for (int s = 0; s < kSlots; ++s) {
        const VI m = gw == s;
        acc[s][v] = m ? acc[s][v] + x : acc[s][v];
        if constexpr (kCount) cnt[s] -= m;
      }
    }
  }
  void Load(int64_t slots, int phase, const double* lanes) {
    for (int s = 0; s < kSlots; ++s) {
      for (int r = 0; r < kFloatSumLanes; ++r) {
        acc[s][r / kLanes][r % kLanes] = s < slots ? lanes[s * kFloatSumLanes + (phase + r) % kFloatSumLanes] : 0.0;
      }
    }
  }
  void Flush(int64_t slots, int phase, double* lanes, int64_t* counts) const {
    for (int s = 0; s < slots; ++s) {
      for (int r = 0; r < kFloatSumLanes; ++r) {
        lanes[s * kFloatSumLanes + (phase + r) % kFloatSumLanes] = acc[s][r / kLanes][r % kLanes];
      }
      if constexpr (kCount) {
        for (int l = 0; l < kLanes; ++l) counts[s] += cnt[s][l];
      }
    }
  }
};

template <typename T, int kSlots, bool kCount>
void FloatSumFew(const T* values, const uint32_t* groups, int64_t length, BitSpan validity,
                 int64_t first_position, int64_t slots, double* lanes, int64_t* counts) {
  const int phase = static_cast<int>(first_position % kFloatSumLanes);
  for (int64_t start = 0; start < length; start += kChunkRows) {
    BitSpan sub = validity;
    sub.offset += start;
    sub.length = std::min(kChunkRows, length - start);
    FewFloatSum<T, kSlots, kCount> st;
    st.Load(slots, phase, lanes);
    RunFew(values + start, groups + start, sub.length, sub, st);
    st.Flush(slots, phase, lanes, counts);
  }
}

template <int kSlots>
struct FewCount {
  VI cnt[kSlots] = {};
  void Rows64(const uint8_t*, const uint32_t* g) {
    for (int b = 0; b < 64; b += kLanes) {
      const VI gw = LoadGroups(g + b);
#pragma GCC unroll 16
      for (int s = 0; s < kSlots; ++s) cnt[s] -= gw == s;
    }
  }
};

template <int kSlots>
void CountFew(const uint32_t* groups, int64_t length, BitSpan validity, int64_t slots,
              int64_t* counts) {
  FewCount<kSlots> st;
  RunFew<uint8_t>(nullptr, groups, length, validity, st);
  for (int s = 0; s < slots; ++s) {
    for (int l = 0; l < kLanes; ++l) counts[s] += st.cnt[s][l];
  }
}

// Calls f.template operator()<kSlots>() with kSlots the power of two >= slots (<= 8): padding
// slots match no row, since every group is below `slots`.
template <typename F>
void WithFewSlots(int64_t slots, F&& f) {
  static_assert(kFewGroupedSlots == 8, "WithFewSlots instantiates 1, 2, 4, 8");
  if (slots <= 1) {
    f.template operator()<1>();
  } else if (slots <= 2) {
    f.template operator()<2>();
  } else if (slots <= 4) {
    f.template operator()<4>();
  } else {
    f.template operator()<8>();
  }
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

template <typename T, bool kCount>
void FloatSumScatter(const T* values, const uint32_t* groups, int64_t length, BitSpan validity,
                     int64_t first_position, double* lanes, int64_t* counts) {
  const int64_t phase = first_position % kFloatSumLanes;
  ForEachValidRow(length, validity, [&](int64_t i) {
    const uint32_t g = groups[i];
    lanes[g * int64_t{kFloatSumLanes} + (phase + i) % kFloatSumLanes] += static_cast<double>(values[i]);
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
  const bool count = counts != nullptr;
  // 16-byte values have no vector lanes to add in: they always scatter.
  if constexpr (sizeof(T) <= 8) {
    if (slots <= kFewGroupedSlots) {
      WithFewSlots(slots, [&]<int kSlots>() {
        if (count) {
          SumFew<T, kSlots, true>(values, groups, length, validity, slots, sums, counts);
        } else {
          SumFew<T, kSlots, false>(values, groups, length, validity, slots, sums, counts);
        }
      });
      return;
    }
  }
  if (count) {
    SumScatter<T, true>(values, groups, length, validity, sums, counts);
  } else {
    SumScatter<T, false>(values, groups, length, validity, sums, counts);
  }
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
  const bool count = counts != nullptr;
  if (slots <= kFewGroupedSlots) {
    WithFewSlots(slots, [&]<int kSlots>() {
      if (count) {
        FloatSumFew<T, kSlots, true>(values, groups, length, validity, first_position, slots, lanes, counts);
      } else {
        FloatSumFew<T, kSlots, false>(values, groups, length, validity, first_position, slots, lanes, counts);
      }
    });
    return;
  }
  if (count) {
    FloatSumScatter<T, true>(values, groups, length, validity, first_position, lanes, counts);
  } else {
    FloatSumScatter<T, false>(values, groups, length, validity, first_position, lanes, counts);
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
  if (slots <= kFewGroupedSlots) {
    WithFewSlots(slots, [&]<int kSlots>() { CountFew<kSlots>(groups, length, validity, slots, counts); });
    return;
  }
  ForEachValidRow(length, validity, [&](int64_t i) { ++counts[groups[i]]; });
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
