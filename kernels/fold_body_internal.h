// Masked fold bodies compiled once per x86-64 level (kernels layer, internal; level_*.cc only).
// Rows go 32 at a time (a half of a validity word): every lane is folded, a null lane reads the
// fold's identity, and a half with no valid row is skipped.
#pragma once

#include "kernels/level_common_internal.h"

namespace rowjit::kernels::ROWJIT_LEVEL_NS {
namespace {

// Calls st.Rows(p, bits, n) for every 32-row half (n == 32 except in the tail) whose `bits`
// (bit j = row j valid) are not all zero. kMasked == false: no bitmap, every row valid.
template <bool kMasked, typename T, typename State>
void ForEachHalf(const T* values, int64_t length, BitSpan validity, State& out) {
  State st = out;  // a local the compiler may keep in registers
  const int64_t full = length / 64;
  auto halves = [&](const T* p, uint64_t word) {
    const auto lo = static_cast<uint32_t>(word);
    const auto hi = static_cast<uint32_t>(word >> 32);
    if (lo != 0) st.template Rows<true>(p, lo, 32);
    if (hi != 0) st.template Rows<true>(p + 32, hi, 32);
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

// ---- Integer sums narrower than 64 bits: 32 lanes of SumType, one overflow check per chunk.
// A chunk of 2^24 rows of |x| < 2^32 sums below 2^56, so no lane or chunk total can wrap.
constexpr int64_t kSumChunkRows = int64_t{1} << 24;

template <typename T>
struct NarrowSumState {
  using A = SumType<T>;
  A acc[32] = {};
  template <bool kFull>
  void Rows(const T* p, uint32_t bits, int n) {
    // Load before selecting: a select of a conditional load becomes a slow masked load.
    for (int j = 0; j < (kFull ? 32 : n); ++j) {
      const A x = p[j];
      acc[j] += LaneValid<T>(bits, j) ? x : A{0};
    }
  }
};

// ---- 64-bit integer sums: every add's carry is kept in a high lane, so the sum is exact
// (128-bit) and overflow is decided once, on the total.
template <typename T>
struct WideSumState {
  static constexpr int kLanes = 8;
  uint64_t lo[kLanes] = {};
  int64_t hi[kLanes] = {};
  template <bool kFull>
  void Rows(const T* p, uint32_t bits, int n) {
    for (int j = 0; j < (kFull ? 32 : n); ++j) {
      const int l = j % kLanes;
      const auto v = static_cast<uint64_t>(p[j]);
      const uint64_t x = LaneValid<T>(bits, j) ? v : 0;
      const uint64_t s = lo[l] + x;
      if constexpr (std::is_signed_v<T>) {
        // Signed overflow iff x and lo share a sign s lacks; it went the way x points.
        const int64_t wrapped = static_cast<int64_t>((lo[l] ^ s) & (x ^ s)) >> 63;
        hi[l] += wrapped & ((static_cast<int64_t>(x) >> 63) | 1);
      } else {
        hi[l] += s < x;
      }
      lo[l] = s;
    }
  }
};

template <typename T>
SumResult<T> SumInt(const T* values, int64_t length, BitSpan validity) {
  SumResult<T> r;
  if constexpr (sizeof(T) < 8) {
    SumType<T> total = 0;
    for (int64_t start = 0; start < length; start += kSumChunkRows) {
      const int64_t n = MinOf(kSumChunkRows, length - start);
      BitSpan sub = validity;
      sub.offset += start;
      sub.length = n;
      NarrowSumState<T> st;
      RunFold(values + start, n, sub, st);
      SumType<T> chunk = 0;
      for (SumType<T> a : st.acc) chunk += a;
      if (__builtin_add_overflow(total, chunk, &total)) {
        r.state = SumResult<T>::State::kOverflow;
        return r;
      }
    }
    r.value = total;
  } else {
    WideSumState<T> st;
    RunFold(values, length, validity, st);
    if constexpr (std::is_signed_v<T>) {
      __int128 total = 0;
      for (int l = 0; l < WideSumState<T>::kLanes; ++l) {
        total += static_cast<__int128>(static_cast<int64_t>(st.lo[l]));
        total += static_cast<__int128>(st.hi[l]) * (static_cast<__int128>(1) << 64);
      }
      if (total > INT64_MAX || total < INT64_MIN) {
        r.state = SumResult<T>::State::kOverflow;
        return r;
      }
      r.value = static_cast<int64_t>(total);
    } else {
      unsigned __int128 total = 0;
      for (int l = 0; l < WideSumState<T>::kLanes; ++l) {
        total += st.lo[l];
        total += static_cast<unsigned __int128>(static_cast<uint64_t>(st.hi[l])) << 64;
      }
      if (total > UINT64_MAX) {
        r.state = SumResult<T>::State::kOverflow;
        return r;
      }
      r.value = static_cast<uint64_t>(total);
    }
  }
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
  template <bool kFull>
  void Rows(const T* p, uint32_t bits, int n) {
    if constexpr (kFull) {
      // Rows 0-15 then 16-31, each into lanes 0-15: the documented order, as two vector passes.
      for (int l = 0; l < kFloatSumLanes; ++l) acc[l] += Lane(p[l], LaneValid<T>(bits, l));
      for (int l = 0; l < kFloatSumLanes; ++l) {
        acc[l] += Lane(p[l + kFloatSumLanes], LaneValid<T>(bits, l + kFloatSumLanes));
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
