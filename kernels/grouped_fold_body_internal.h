// Grouped folds over a few slots, compiled once per x86-64 level (kernels layer, internal;
// level_*.cc only): one pass over the rows with every slot's accumulators in vector registers,
// a row adding to slot s's lanes under the mask (groups == s and valid).
#pragma once

#include <immintrin.h>

#include <bit>

#include "kernels/grouped_fold.h"
#include "kernels/level_common_internal.h"

namespace rowjit::kernels::ROWJIT_LEVEL_NS {
namespace {

// Without AVX2 the vectorized pass (16-byte vectors, SSE4.1's blends at best) runs slower than
// the scatter, so those levels compile none of it and their table leaves it out (max_slots 0):
// the scatter folds every slot count there (bench: `grouped/*_slots4_*` under
// ROWJIT_KERNEL_LEVEL=baseline, v2, v3).
#if defined(__AVX2__)

// The pass compares every row with every slot, so its cost grows with the slots while the
// scatter's does not: with AVX-512 it is the faster form up to 8 slots, with AVX2 up to 4
// (bench: `grouped/*_slots4_*`; 6 and 8 slots against the scatter at v3 and v4).
#if defined(__AVX512F__)
constexpr int kGroupVecBytes = 64;
constexpr int64_t kMaxFewSlots = 8;
#else
constexpr int kGroupVecBytes = 32;
constexpr int64_t kMaxFewSlots = 4;
#endif
static_assert(kMaxFewSlots <= kFewGroupedSlots, "more slots than the header promises");
// 64-bit lanes per vector: a block of kGroupLanes rows is one vector step.
constexpr int kGroupLanes = kGroupVecBytes / 8;
using GI = int64_t __attribute__((vector_size(kGroupVecBytes)));
using GU = uint64_t __attribute__((vector_size(kGroupVecBytes)));
using GF = double __attribute__((vector_size(kGroupVecBytes)));
template <typename T>
using GT [[gnu::vector_size(kGroupLanes * sizeof(T))]] = T;

// A group no slot matches: null rows take it.
constexpr int64_t kNoGroup = -1;

// Rows fold in chunks whose per-lane sums cannot wrap 64 bits (2^16 rows of |x| < 2^32 sum
// below 2^48 in any lane); a chunk's flush costs a few dozen adds, nothing beside its rows.
constexpr int64_t kGroupChunkRows = int64_t{1} << 16;

template <typename V, typename T>
inline V LoadLanes(const T* p) {
  GT<T> x;
  __builtin_memcpy(&x, p, sizeof x);
  return __builtin_convertvector(x, V);
}

// Bit l of lane l: a word's bits for a block become a lane mask by one AND and compare.
inline GI LaneBitVector() {
  GI v;
  for (int l = 0; l < kGroupLanes; ++l) v[l] = int64_t{1} << l;
  return v;
}

// The groups of rows [b, b + kGroupLanes) of a 64-row word, kNoGroup where `bits` says null.
template <bool kAllValid>
inline GI BlockGroups(const uint32_t* g, uint64_t bits, int b) {
  const GI groups = LoadLanes<GI>(g + b);
  if constexpr (kAllValid) return groups;
  const GI valid = ((GI{} + static_cast<int64_t>(bits >> b)) & LaneBitVector()) != 0;
  return valid ? groups : GI{} + kNoGroup;
}

// Calls visit.template Word<kAllValid>(row, bits) for every 64-row word of the call with a
// valid row (row: its first row; kAllValid: every bit set), then visit.Tail(row, rest, bits) for
// a short last word with a valid row (bits beyond `rest` are 0).
template <typename Visit>
void WalkWords(int64_t length, BitSpan validity, Visit& visit) {
  const int64_t full = length / 64;
  uint64_t tail = LowMask(length - 64 * full);
  if (validity.data == nullptr) {
    for (int64_t w = 0; w < full; ++w) visit.template Word<true>(64 * w, ~uint64_t{0});
  } else {
    const WordReader reader(validity);
    for (int64_t w = 0; w < full; ++w) {
      const uint64_t word = reader.Word(w);
      if (word == ~uint64_t{0}) {
        visit.template Word<true>(64 * w, word);
      } else if (word != 0) {
        visit.template Word<false>(64 * w, word);
      }
    }
    tail = reader.Word(full);
  }
  if (tail != 0) visit.Tail(64 * full, length - 64 * full, tail);
}

// Calls st.Rows64<kAllValid>(values, groups, bits) for every 64-row word of the call with a
// valid row; the short last word is copied to padded buffers first (bits beyond it are 0).
// values == nullptr: a count, which reads none.
template <typename T, typename State>
struct PaddedRows {
  const T* values;
  const uint32_t* groups;
  State& st;
  template <bool kAllValid>
  void Word(int64_t row, uint64_t bits) {
    // A count has no values: no offset from a null pointer (undefined, even unread).
    st.template Rows64<kAllValid>(values == nullptr ? nullptr : values + row, groups + row, bits);
  }
  void Tail(int64_t row, int64_t rest, uint64_t bits) {
    alignas(64) uint32_t pad_groups[64] = {};
    alignas(64) T pad_values[64] = {};
    __builtin_memcpy(pad_groups, groups + row, rest * sizeof(uint32_t));
    if (values != nullptr) __builtin_memcpy(pad_values, values + row, rest * sizeof(T));
    st.template Rows64<false>(pad_values, pad_groups, bits);
  }
};

template <typename T, typename State>
void RunFewSlots(const T* values, const uint32_t* groups, int64_t length, BitSpan validity,
                 State& st) {
  PaddedRows<T, State> visit{values, groups, st};
  WalkWords(length, validity, visit);
}

// Integer sums of up to 32-bit values: one i64 lane sum per slot. 64-bit values: each as its
// low 32 bits (unsigned) and high 32 bits (signed as the column), summed apart (plain vector
// adds, no carry) and joined in 128 bits.
template <typename T, int kSlots, bool kCount>
struct FewSlotSum {
  static constexpr bool kWide = sizeof(T) == 8;
  GI lo[kSlots] = {};
  GI hi[kSlots] = {};
  GI cnt[kSlots] = {};
  template <bool kAllValid>
  void Rows64(const T* p, const uint32_t* g, uint64_t bits) {
    for (int b = 0; b < 64; b += kGroupLanes) {
      const GI gw = BlockGroups<kAllValid>(g, bits, b);
      GI xlo, xhi;
      if constexpr (kWide) {
        GU x;
        __builtin_memcpy(&x, p + b, sizeof x);
        xlo = (GI)(x & 0xffffffffu);
        xhi = std::is_signed_v<T> ? ((GI)x >> 32) : (GI)(x >> 32);
      } else {
        xlo = LoadLanes<GI>(p + b);
      }
#pragma GCC unroll 16
      for (int s = 0; s < kSlots; ++s) {
        const GI m = gw == s;
        lo[s] += xlo & m;
        if constexpr (kWide) hi[s] += xhi & m;
        if constexpr (kCount) cnt[s] -= m;
      }
    }
  }
  void Flush(int64_t slots, GroupedSumType<T>* sums, int64_t* counts) const {
    for (int s = 0; s < slots; ++s) {
      GroupedSumType<T> total = 0;
      for (int l = 0; l < kGroupLanes; ++l) {
        total += lo[s][l];
        if constexpr (kWide) total += static_cast<__int128>(hi[s][l]) * (int64_t{1} << 32);
        if constexpr (kCount) counts[s] += cnt[s][l];
      }
      sums[s] += total;
    }
  }
};

template <typename T, int kSlots, bool kCount>
void SumFewSlots(const T* values, const uint32_t* groups, int64_t length, BitSpan validity,
                 int64_t slots, GroupedSumType<T>* sums, int64_t* counts) {
  for (int64_t start = 0; start < length; start += kGroupChunkRows) {
    BitSpan sub = validity;
    sub.offset += start;
    sub.length = MinOf(kGroupChunkRows, length - start);
    FewSlotSum<T, kSlots, kCount> st;
    RunFewSlots(values + start, groups + start, sub.length, sub, st);
    st.Flush(slots, sums, counts);
  }
}

// Bounded 64-bit sums: the caller keeps every partial sum within int64, so each slot's sum is
// one i64 lane sum of the values as they are, over the whole call (no halves, no chunks).
#if defined(__AVX512F__)
// AVX-512: sixteen rows' groups compare as 32-bit lanes in one instruction under the validity
// bits, and the 16-bit mask drives masked adds of the two value vectors; counts take the mask's
// popcount. No group is widened and no null blended away (the vector-extension form spends
// more on those than on the adds).
template <int kSlots, bool kCount>
struct FewSlotBoundedSum {
  __m512i acc[kSlots] = {};
  int64_t cnt[kSlots] = {};
  template <bool kAllValid>
  void Rows64(const int64_t* p, const uint32_t* g, uint64_t bits) {
    for (int b = 0; b < 64; b += 16) {
      const __m512i gw = _mm512_loadu_si512(g + b);
      const __m512i x0 = _mm512_loadu_si512(p + b);
      const __m512i x1 = _mm512_loadu_si512(p + b + 8);
      const __mmask16 valid = kAllValid ? __mmask16{0xffff} : static_cast<__mmask16>(bits >> b);
#pragma GCC unroll 16
      for (int s = 0; s < kSlots; ++s) {
        const __mmask16 m = _mm512_mask_cmpeq_epi32_mask(valid, gw, _mm512_set1_epi32(s));
        acc[s] = _mm512_mask_add_epi64(acc[s], static_cast<__mmask8>(m), acc[s], x0);
        acc[s] = _mm512_mask_add_epi64(acc[s], static_cast<__mmask8>(m >> 8), acc[s], x1);
        if constexpr (kCount) cnt[s] += std::popcount(static_cast<unsigned>(m));
      }
    }
  }
  void Flush(int64_t slots, int64_t* sums, int64_t* counts) const {
    for (int s = 0; s < slots; ++s) {
      // Stored and added by hand: GCC 12's _mm512_reduce_add_epi64 trips -Wmaybe-uninitialized.
      alignas(64) int64_t lanes[8];
      _mm512_store_si512(lanes, acc[s]);
      for (int64_t x : lanes) sums[s] += x;
      if constexpr (kCount) counts[s] += cnt[s];
    }
  }
};
#else
template <int kSlots, bool kCount>
struct FewSlotBoundedSum {
  GI acc[kSlots] = {};
  GI cnt[kSlots] = {};
  template <bool kAllValid>
  void Rows64(const int64_t* p, const uint32_t* g, uint64_t bits) {
    for (int b = 0; b < 64; b += kGroupLanes) {
      const GI gw = BlockGroups<kAllValid>(g, bits, b);
      GI x;
      __builtin_memcpy(&x, p + b, sizeof x);
#pragma GCC unroll 16
      for (int s = 0; s < kSlots; ++s) {
        const GI m = gw == s;
        acc[s] += x & m;
        if constexpr (kCount) cnt[s] -= m;
      }
    }
  }
  void Flush(int64_t slots, int64_t* sums, int64_t* counts) const {
    for (int s = 0; s < slots; ++s) {
      for (int l = 0; l < kGroupLanes; ++l) {
        sums[s] += acc[s][l];
        if constexpr (kCount) counts[s] += cnt[s][l];
      }
    }
  }
};

#endif

#if defined(__AVX512F__)
// Several columns: a word's slot masks are found once (kSlots compares per sixteen rows) and
// drive every column's masked adds; a column's accumulators stay in registers through the word.
template <int kSlots, bool kCount>
struct FewSlotBoundedSumMany {
  const int64_t* const* cols;
  int columns;
  __m512i acc[kMaxBoundedSumColumns][kSlots] = {};
  int64_t cnt[kSlots] = {};
  template <bool kAllValid>
  void Word(int64_t row, uint64_t bits) {
    Rows64<kAllValid>(cols, row, groups + row, bits);
  }
  void Tail(int64_t row, int64_t rest, uint64_t bits) {
    alignas(64) uint32_t pad_groups[64] = {};
    alignas(64) int64_t pad[kMaxBoundedSumColumns][64] = {};
    const int64_t* ptrs[kMaxBoundedSumColumns];
    __builtin_memcpy(pad_groups, groups + row, rest * sizeof(uint32_t));
    for (int c = 0; c < columns; ++c) {
      __builtin_memcpy(pad[c], cols[c] + row, rest * sizeof(int64_t));
      ptrs[c] = pad[c];
    }
    Rows64<false>(ptrs, 0, pad_groups, bits);
  }
  template <bool kAllValid>
  void Rows64(const int64_t* const* p, int64_t row, const uint32_t* g, uint64_t bits) {
    // Counted after the compares, two masks to a popcount: with a popcount of each mask beside
    // its compare, GCC 12 (-O3, x86-64-v4) built code that miscounted at four slots (test:
    // GroupedSumBoundedMany.MatchesReference); the cause is not pinned down.
    uint32_t m[4][kSlots];
    for (int q = 0; q < 4; ++q) {
      const __m512i gw = _mm512_loadu_si512(g + 16 * q);
      const __mmask16 valid = kAllValid ? __mmask16{0xffff} : static_cast<__mmask16>(bits >> (16 * q));
#pragma GCC unroll 16
      for (int s = 0; s < kSlots; ++s) {
        m[q][s] = _cvtmask16_u32(_mm512_mask_cmpeq_epi32_mask(valid, gw, _mm512_set1_epi32(s)));
      }
    }
    if constexpr (kCount) {
      for (int s = 0; s < kSlots; ++s) {
        cnt[s] += std::popcount(m[0][s] | m[1][s] << 16) + std::popcount(m[2][s] | m[3][s] << 16);
      }
    }
    for (int c = 0; c < columns; ++c) {
      const int64_t* x = p[c] + row;
      __m512i a[kSlots];
      for (int s = 0; s < kSlots; ++s) a[s] = acc[c][s];
#pragma GCC unroll 4
      for (int q = 0; q < 4; ++q) {
        const __m512i x0 = _mm512_loadu_si512(x + 16 * q);
        const __m512i x1 = _mm512_loadu_si512(x + 16 * q + 8);
#pragma GCC unroll 16
        for (int s = 0; s < kSlots; ++s) {
          a[s] = _mm512_mask_add_epi64(a[s], static_cast<__mmask8>(m[q][s]), a[s], x0);
          a[s] = _mm512_mask_add_epi64(a[s], static_cast<__mmask8>(m[q][s] >> 8), a[s], x1);
        }
      }
      for (int s = 0; s < kSlots; ++s) acc[c][s] = a[s];
    }
  }
  void Flush(int64_t slots, int64_t* sums, int64_t* counts) const {
    for (int c = 0; c < columns; ++c) {
      for (int s = 0; s < slots; ++s) {
        alignas(64) int64_t lanes[8];
        _mm512_store_si512(lanes, acc[c][s]);
        for (int64_t x : lanes) sums[c * slots + s] += x;
      }
    }
    if constexpr (kCount) {
      for (int s = 0; s < slots; ++s) counts[s] += cnt[s];
    }
  }
  const uint32_t* groups;
};

template <int kSlots, bool kCount>
void SumBoundedManyFewSlots(const int64_t* const* values, int columns, const uint32_t* groups,
                            int64_t length, BitSpan validity, int64_t slots, int64_t* sums,
                            int64_t* counts) {
  FewSlotBoundedSumMany<kSlots, kCount> st{.cols = values, .columns = columns, .groups = groups};
  WalkWords(length, validity, st);
  st.Flush(slots, sums, counts);
}
#endif

template <int kSlots, bool kCount>
void SumBoundedFewSlots(const int64_t* values, const uint32_t* groups, int64_t length,
                        BitSpan validity, int64_t slots, int64_t* sums, int64_t* counts) {
  FewSlotBoundedSum<kSlots, kCount> st;
  RunFewSlots(values, groups, length, validity, st);
  st.Flush(slots, sums, counts);
}

// Float sums: slot s's 16 lanes as 16 / kGroupLanes vectors, held rotated so that vector lane r
// takes the rows i with i % 16 == r (words start at multiples of 16 rows), which is lane
// (first_position + r) % 16 of the table. Within a lane, rows add in increasing i.
template <typename T, int kSlots, bool kCount>
struct FewSlotFloatSum {
  static constexpr int kVecs = kFloatSumLanes / kGroupLanes;
  GF acc[kSlots][kVecs] = {};
  GI cnt[kSlots] = {};
  template <bool kAllValid>
  void Rows64(const T* p, const uint32_t* g, uint64_t bits) {
    for (int b = 0; b < 64; b += kGroupLanes) {
      const int v = (b / kGroupLanes) % kVecs;
      const GI gw = BlockGroups<kAllValid>(g, bits, b);
      const GF x = LoadLanes<GF>(p + b);
#pragma GCC unroll 16
      for (int s = 0; s < kSlots; ++s) {
        const GI m = gw == s;
        acc[s][v] = m ? acc[s][v] + x : acc[s][v];
        if constexpr (kCount) cnt[s] -= m;
      }
    }
  }
  void Load(int64_t slots, int phase, const double* lanes) {
    for (int s = 0; s < kSlots; ++s) {
      for (int r = 0; r < kFloatSumLanes; ++r) {
        acc[s][r / kGroupLanes][r % kGroupLanes] =
            s < slots ? lanes[s * kFloatSumLanes + (phase + r) % kFloatSumLanes] : 0.0;
      }
    }
  }
  void Flush(int64_t slots, int phase, double* lanes, int64_t* counts) const {
    for (int s = 0; s < slots; ++s) {
      for (int r = 0; r < kFloatSumLanes; ++r) {
        lanes[s * kFloatSumLanes + (phase + r) % kFloatSumLanes] = acc[s][r / kGroupLanes][r % kGroupLanes];
      }
      if constexpr (kCount) {
        for (int l = 0; l < kGroupLanes; ++l) counts[s] += cnt[s][l];
      }
    }
  }
};

template <typename T, int kSlots, bool kCount>
void FloatSumFewSlots(const T* values, const uint32_t* groups, int64_t length, BitSpan validity,
                      int64_t first_position, int64_t slots, double* lanes, int64_t* counts) {
  const int phase = static_cast<int>(first_position % kFloatSumLanes);
  for (int64_t start = 0; start < length; start += kGroupChunkRows) {
    BitSpan sub = validity;
    sub.offset += start;
    sub.length = MinOf(kGroupChunkRows, length - start);
    FewSlotFloatSum<T, kSlots, kCount> st;
    st.Load(slots, phase, lanes);
    RunFewSlots(values + start, groups + start, sub.length, sub, st);
    st.Flush(slots, phase, lanes, counts);
  }
}

template <int kSlots>
struct FewSlotCount {
  GI cnt[kSlots] = {};
  template <bool kAllValid>
  void Rows64(const uint8_t*, const uint32_t* g, uint64_t bits) {
    for (int b = 0; b < 64; b += kGroupLanes) {
      const GI gw = BlockGroups<kAllValid>(g, bits, b);
#pragma GCC unroll 16
      for (int s = 0; s < kSlots; ++s) cnt[s] -= gw == s;
    }
  }
};

template <int kSlots>
void CountFewSlots(const uint32_t* groups, int64_t length, BitSpan validity, int64_t slots,
                   int64_t* counts) {
  for (int64_t start = 0; start < length; start += kGroupChunkRows) {
    BitSpan sub = validity;
    sub.offset += start;
    sub.length = MinOf(kGroupChunkRows, length - start);
    FewSlotCount<kSlots> st;
    RunFewSlots<uint8_t>(nullptr, groups + start, sub.length, sub, st);
    for (int s = 0; s < slots; ++s) {
      for (int l = 0; l < kGroupLanes; ++l) counts[s] += st.cnt[s][l];
    }
  }
}

// Calls f.template operator()<kSlots>() with kSlots the least of 1, 2, 4, 6, 8 that is >= slots
// (slots <= kMaxFewSlots): padding slots match no row, since every group is below `slots`. Six
// has its own pass because each padding slot costs as much as a real one (bench:
// `grouped/sum_*_slots6_*`).
template <typename F>
void WithFewSlots(int64_t slots, F&& f) {
  static_assert(kMaxFewSlots == 4 || kMaxFewSlots == 8, "WithFewSlots instantiates 1, 2, 4, 6, 8");
  if (slots <= 1) {
    f.template operator()<1>();
  } else if (slots <= 2) {
    f.template operator()<2>();
  } else if (kMaxFewSlots == 4 || slots <= 4) {
    f.template operator()<4>();
  } else if (slots <= 6) {
    f.template operator()<6>();
  } else {
    f.template operator()<kMaxFewSlots>();
  }
}

template <typename T>
void GroupedSumFew(const T* values, const uint32_t* groups, int64_t length, BitSpan validity,
                   int64_t slots, GroupedSumType<T>* sums, int64_t* counts) {
  WithFewSlots(slots, [&]<int kSlots>() {
    if (counts != nullptr) {
      SumFewSlots<T, kSlots, true>(values, groups, length, validity, slots, sums, counts);
    } else {
      SumFewSlots<T, kSlots, false>(values, groups, length, validity, slots, sums, counts);
    }
  });
}

void GroupedSumBoundedFew(const int64_t* values, const uint32_t* groups, int64_t length,
                          BitSpan validity, int64_t slots, int64_t* sums, int64_t* counts) {
  WithFewSlots(slots, [&]<int kSlots>() {
    if (counts != nullptr) {
      SumBoundedFewSlots<kSlots, true>(values, groups, length, validity, slots, sums, counts);
    } else {
      SumBoundedFewSlots<kSlots, false>(values, groups, length, validity, slots, sums, counts);
    }
  });
}

// AVX2 folds the columns one after another (its group compares are not worth sharing through
// memory); AVX-512 in one pass.
void GroupedSumBoundedManyFew(const int64_t* const* values, int columns, const uint32_t* groups,
                              int64_t length, BitSpan validity, int64_t slots, int64_t* sums,
                              int64_t* counts) {
#if defined(__AVX512F__)
  WithFewSlots(slots, [&]<int kSlots>() {
    if (counts != nullptr) {
      SumBoundedManyFewSlots<kSlots, true>(values, columns, groups, length, validity, slots, sums, counts);
    } else {
      SumBoundedManyFewSlots<kSlots, false>(values, columns, groups, length, validity, slots, sums, counts);
    }
  });
#else
  for (int c = 0; c < columns; ++c) {
    GroupedSumBoundedFew(values[c], groups, length, validity, slots, sums + c * slots,
                         c == 0 ? counts : nullptr);
  }
#endif
}

template <typename T>
void GroupedFloatSumFew(const T* values, const uint32_t* groups, int64_t length,
                        BitSpan validity, int64_t first_position, int64_t slots, double* lanes,
                        int64_t* counts) {
  WithFewSlots(slots, [&]<int kSlots>() {
    if (counts != nullptr) {
      FloatSumFewSlots<T, kSlots, true>(values, groups, length, validity, first_position, slots, lanes, counts);
    } else {
      FloatSumFewSlots<T, kSlots, false>(values, groups, length, validity, first_position, slots, lanes, counts);
    }
  });
}

void GroupedCountFew(const uint32_t* groups, int64_t length, BitSpan validity, int64_t slots,
                     int64_t* counts) {
  // One slot (an ungrouped query): every row is in group 0, so its count is the valid rows', a
  // popcount where the pass over group codes would read four bytes a row (bench:
  // `duckdb/avg_f64/jit`).
  if (slots == 1) {
    counts[0] += validity.data == nullptr ? length : CountSetBits(BitSpan{validity.data, validity.offset, length});
    return;
  }
  WithFewSlots(slots, [&]<int kSlots>() { CountFewSlots<kSlots>(groups, length, validity, slots, counts); });
}

constexpr GroupedFns MakeGrouped() {
  return GroupedFns{
      .max_slots = kMaxFewSlots,
      .sum_i8 = &GroupedSumFew<int8_t>,
      .sum_i16 = &GroupedSumFew<int16_t>,
      .sum_i32 = &GroupedSumFew<int32_t>,
      .sum_i64 = &GroupedSumFew<int64_t>,
      .sum_u8 = &GroupedSumFew<uint8_t>,
      .sum_u16 = &GroupedSumFew<uint16_t>,
      .sum_u32 = &GroupedSumFew<uint32_t>,
      .sum_u64 = &GroupedSumFew<uint64_t>,
      .sum_bounded = &GroupedSumBoundedFew,
      .sum_bounded_many = &GroupedSumBoundedManyFew,
      .float_sum_f32 = &GroupedFloatSumFew<float>,
      .float_sum_f64 = &GroupedFloatSumFew<double>,
      .count = &GroupedCountFew,
  };
}

#else  // !defined(__AVX2__)

constexpr GroupedFns MakeGrouped() { return GroupedFns{}; }

#endif

}  // namespace
}  // namespace rowjit::kernels::ROWJIT_LEVEL_NS
