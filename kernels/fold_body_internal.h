// Masked fold bodies compiled once per x86-64 level (kernels layer, internal; level_*.cc only).
// Rows go 32 at a time (a half of a validity word): every lane is folded, a null lane reads the
// fold's identity, and a half with no valid row is skipped.
#pragma once

#include <limits>

#include "kernels/level_common_internal.h"

namespace rowjit::kernels::ROWJIT_LEVEL_NS {
namespace {

// Calls st.Rows(p, bits, n) for every 32-row half (n == 32 except in the tail) whose `bits`
// (bit j = row j valid) are not all zero. kMasked == false: no bitmap, every row valid, and
// st.Rows<true, true> says so at compile time.
template <bool kMasked, typename T, typename State>
void ForEachHalf(const T* values, int64_t length, BitSpan validity, State& out) {
  State st = out;  // a local the compiler may keep in registers
  const int64_t full = length / 64;
  auto halves = [&](const T* p, uint64_t word) {
    const auto lo = static_cast<uint32_t>(word);
    const auto hi = static_cast<uint32_t>(word >> 32);
    if (lo != 0) st.template Rows<true, !kMasked>(p, lo, 32);
    if (hi != 0) st.template Rows<true, !kMasked>(p + 32, hi, 32);
  };
  uint64_t tail_word = LowMask(length - 64 * full);
  if constexpr (kMasked) {
    const WordReader reader(validity);
    const int64_t fast = MinOf(reader.fast_words(), full);
    const uint8_t* base = reader.base();
    const int shift = reader.shift();
    for (int64_t w = 0; w < fast; ++w) halves(values + 64 * w, WordReader::Fast(base, shift, w));
    for (int64_t w = fast; w < full; ++w) halves(values + 64 * w, reader.Word(w));
    tail_word = reader.Word(full);
  } else {
    for (int64_t w = 0; w < full; ++w) halves(values + 64 * w, ~uint64_t{0});
  }
  const int64_t rest = length - 64 * full;
  const T* p = values + 64 * full;
  const auto lo = static_cast<uint32_t>(tail_word);
  const auto hi = static_cast<uint32_t>(tail_word >> 32);
  if (lo != 0) st.template Rows<false>(p, lo, static_cast<int>(MinOf<int64_t>(rest, 32)));
  if (hi != 0) st.template Rows<false>(p + 32, hi, static_cast<int>(rest - 32));
  out = st;
}

template <typename State, typename T>
void RunFold(const T* values, int64_t length, BitSpan validity, State& st) {
  if (validity.data == nullptr) {
    ForEachHalf<false>(values, length, validity, st);
  } else {
    ForEachHalf<true>(values, length, validity, st);
  }
}

template <typename T>
inline bool LaneValid(uint32_t bits, int j) {
  return (static_cast<LaneMask<T>>(bits) & kLaneBits<LaneMask<T>>.bit[j]) != 0;
}

// ---- Integer sums: every lane's sum fits 64 bits for a chunk of kSumChunkRows rows, and the
// chunks add up exactly in 128 bits, so overflow is decided once, on the total.
// A chunk of 2^24 rows of |x| < 2^32 sums below 2^56, so no lane can wrap.
constexpr int64_t kSumChunkRows = int64_t{1} << 24;

// Narrower than 64 bits: 32 lanes of SumType.
template <typename T>
struct NarrowSumState {
  using A = SumType<T>;
  A acc[32] = {};
  template <bool kFull, bool kAllValid = false>
  void Rows(const T* p, uint32_t bits, int n) {
    // Load before selecting: a select of a conditional load becomes a slow masked load.
    for (int j = 0; j < (kFull ? 32 : n); ++j) {
      const A x = p[j];
      acc[j] += LaneValid<T>(bits, j) ? x : A{0};
    }
  }
  template <typename Wide>
  Wide Total() const {
    Wide t = 0;
    for (A a : acc) t += a;
    return t;
  }
};

// 64-bit: each value as its low 32 bits (unsigned) and its high 32 bits (signed as the column),
// each summed in 64-bit lanes: plain vector adds, no carry to keep.
template <typename T>
struct WideSumState {
  static constexpr int kLanes = 32;
  using Hi = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
  uint64_t lo[kLanes] = {};
  Hi hi[kLanes] = {};
  template <bool kFull, bool kAllValid = false>
  void Rows(const T* p, uint32_t bits, int n) {
    for (int j = 0; j < (kFull ? 32 : n); ++j) {
      // A null lane as zero by an AND, never a branch (baseline x86-64 has no 64-bit vector compare).
      const T x = static_cast<T>(static_cast<uint64_t>(p[j]) & (uint64_t{0} - LaneValid<T>(bits, j)));
      lo[j] += static_cast<uint64_t>(x) & 0xffffffffu;
      hi[j] += static_cast<Hi>(x) >> 32;
    }
  }
  template <typename Wide>
  Wide Total() const {
    Wide t = 0;
    for (int l = 0; l < kLanes; ++l) t += static_cast<Wide>(lo[l]) + static_cast<Wide>(hi[l]) * (Wide{1} << 32);
    return t;
  }
};

template <typename T>
SumResult<T> SumInt(const T* values, int64_t length, BitSpan validity) {
  using Wide = std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>;
  using State = std::conditional_t<sizeof(T) < 8, NarrowSumState<T>, WideSumState<T>>;
  Wide total = 0;
  for (int64_t start = 0; start < length; start += kSumChunkRows) {
    const int64_t n = MinOf(kSumChunkRows, length - start);
    BitSpan sub = validity;
    sub.offset += start;
    sub.length = n;
    State st;
    RunFold(values + start, n, sub, st);
    total += st.template Total<Wide>();
  }
  SumResult<T> r;
  if (total > static_cast<Wide>(std::numeric_limits<SumType<T>>::max()) ||
      total < static_cast<Wide>(std::numeric_limits<SumType<T>>::min())) {
    r.state = SumResult<T>::State::kOverflow;
    return r;
  }
  r.value = static_cast<SumType<T>>(total);
  r.state = SumResult<T>::State::kValue;
  return r;
}

// ---- Float sums: the order fold.h documents (16 lanes, row i into lane i % 16, tree combine).
template <typename T>
struct FloatSumState {
  double acc[kFloatSumLanes] = {};
  // A null lane adds +0.0, selected on the bits (an AND) so no lane branches.
  static double Lane(T v, bool valid) {
    const double x = static_cast<double>(v);
    return BitCast<double>(BitCast<uint64_t>(x) & (uint64_t{0} - static_cast<uint64_t>(valid)));
  }
  template <bool kFull, bool kAllValid = false>
  void Rows(const T* p, uint32_t bits, int n) {
    if constexpr (kFull) {
      // Rows l and l + 16 into lane l, in that order: the documented order.
      if constexpr (kAllValid) {
        for (int l = 0; l < kFloatSumLanes; ++l) {
          acc[l] = (acc[l] + static_cast<double>(p[l])) + static_cast<double>(p[l + kFloatSumLanes]);
        }
        return;
      }
#if defined(__SSE4_1__)
      // Kept a loop for the loop vectorizer: unrolled, GCC turns each lane test into a scalar bit
      // extraction and the adds stay scalar, slower at every level from v2 up; without SSE4.1's
      // 64-bit compare the loop is the slower form (bench: `fold/sum_f64_scattered_0.5/static`
      // under ROWJIT_KERNEL_LEVEL=baseline, v2, v3 and v4).
#pragma GCC unroll 1
#endif
      for (int l = 0; l < kFloatSumLanes; ++l) {
        acc[l] = (acc[l] + Lane(p[l], LaneValid<T>(bits, l))) +
                 Lane(p[l + kFloatSumLanes], LaneValid<T>(bits, l + kFloatSumLanes));
      }
    } else {
      for (int j = 0; j < n; ++j) acc[j % kFloatSumLanes] += Lane(p[j], LaneValid<T>(bits, j));
    }
  }
};

template <typename T>
SumResult<T> SumFloat(const T* values, int64_t length, BitSpan validity) {
  FloatSumState<T> st;
  RunFold(values, length, validity, st);
  for (int h = kFloatSumLanes / 2; h >= 1; h /= 2) {
    for (int l = 0; l < h; ++l) st.acc[l] = st.acc[l] + st.acc[l + h];
  }
  SumResult<T> r;
  r.state = SumResult<T>::State::kValue;
  // IEEE leaves a NaN sum's payload open and compilers commute the adds, so the payload is
  // canonicalized: the result stays bit-for-bit reproducible by any implementation.
  r.value = st.acc[0] == st.acc[0] ? st.acc[0] : BitCast<double>(uint64_t{0x7ff8000000000000});
  return r;
}

// Valid rows, for deciding which folds are null.
inline int64_t CountValid(int64_t length, BitSpan validity) {
  if (validity.data == nullptr) return length;
  const WordReader reader(validity);
  int64_t count = 0;
  for (int64_t w = 0; w < Words64(length); ++w) count += Popcount(reader.Word(w));
  return count;
}

template <typename T>
SumResult<T> Sum(const T* values, int64_t length, BitSpan validity) {
  if (CountValid(length, validity) == 0) return SumResult<T>{};
  if constexpr (std::is_floating_point_v<T>) {
    return SumFloat(values, length, validity);
  } else {
    return SumInt(values, length, validity);
  }
}

}  // namespace
}  // namespace rowjit::kernels::ROWJIT_LEVEL_NS
