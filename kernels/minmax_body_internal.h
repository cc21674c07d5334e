// Masked min/max and NaN-count bodies compiled once per x86-64 level (kernels layer, internal).
// Integers fold as themselves, floats as total-order keys; either way a null lane (or a NaN lane
// when NaN is skipped) reads the first qualifying value, which leaves both extrema unchanged.
#pragma once

#include "kernels/fold_body_internal.h"

namespace rowjit::kernels::ROWJIT_LEVEL_NS {
namespace {

// The integer a value folds as: itself, or for floats its total-order key (see total_order.h;
// repeated here so no AVX-compiled copy of a shared inline function can leak to other levels).
template <typename T>
using KeyType = std::conditional_t<std::is_same_v<T, double>, int64_t,
                                   std::conditional_t<std::is_same_v<T, float>, int32_t, T>>;

template <typename T>
inline KeyType<T> ToKey(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    using K = KeyType<T>;
    using U = std::make_unsigned_t<K>;
    const K bits = BitCast<K>(x);
    return bits ^ static_cast<K>(static_cast<U>(bits >> (8 * sizeof(K) - 1)) >> 1);
  } else {
    return x;
  }
}
template <typename T>
inline T FromKey(KeyType<T> k) {
  if constexpr (std::is_floating_point_v<T>) {
    using K = KeyType<T>;
    using U = std::make_unsigned_t<K>;
    return BitCast<T>(static_cast<K>(k ^ static_cast<K>(static_cast<U>(k >> (8 * sizeof(K) - 1)) >> 1)));
  } else {
    return k;
  }
}
// Keys of -inf and +inf: every NaN key lies outside [kNegInf, kPosInf].
template <typename T>
constexpr KeyType<T> kPosInfKey = sizeof(T) == 8 ? KeyType<T>(0x7ff0000000000000LL) : KeyType<T>(0x7f800000);
template <typename T>
constexpr KeyType<T> kNegInfKey = static_cast<KeyType<T>>(~kPosInfKey<T>);

template <typename T, bool kSkipNan>
inline bool Qualifies(KeyType<T> k) {
  if constexpr (kSkipNan && std::is_floating_point_v<T>) {
    return k >= kNegInfKey<T> && k <= kPosInfKey<T>;
  } else {
    return true;
  }
}

// Without SSE4.2 (baseline x86-64) there is no 64-bit vector compare, and GCC compiles the
// select of a 64-bit key into a branch, which scattered nulls mispredict: at half valid the fold
// runs several times slower than all valid. There the key is chosen by a mask, at the same cost
// at every density. With SSE4.2 the select vectorizes and the mask form is the slower one. Bench:
// `fold_1m/min_max_{i64,f64}_scattered_{0.5,1}/static` under ROWJIT_KERNEL_LEVEL=baseline and v2.
#if defined(__SSE4_2__)
constexpr bool kMaskSelect = false;
#else
constexpr bool kMaskSelect = true;
#endif

template <typename T, bool kMin, bool kMax, bool kSkipNan>
struct MinMaxState {
  using K = KeyType<T>;
  K mn[32];
  K mx[32];
  K fill;
  explicit MinMaxState(K f) : fill(f) {
    for (int j = 0; j < 32; ++j) mn[j] = mx[j] = f;
  }
  template <bool kFull, bool kAllValid = false>
  void Rows(const T* p, uint32_t bits, int n) {
    for (int j = 0; j < (kFull ? 32 : n); ++j) {
      const K k = ToKey(p[j]);
      K x;
      if constexpr (kMaskSelect && sizeof(K) == 8) {
        const K valid = static_cast<K>(LaneValid<T>(bits, j));
        const K take = static_cast<K>(K{0} - (valid & static_cast<K>(Qualifies<T, kSkipNan>(k))));
        x = static_cast<K>((k & take) | (fill & ~take));
      } else {
        x = LaneValid<T>(bits, j) && Qualifies<T, kSkipNan>(k) ? k : fill;
      }
      if constexpr (kMin) mn[j] = MinOf(mn[j], x);
      if constexpr (kMax) mx[j] = MaxOf(mx[j], x);
    }
  }
};

// The key of the first valid row that qualifies, if any. Usually the first word has one.
template <typename T, bool kSkipNan>
bool FirstQualifying(const T* values, int64_t length, BitSpan validity, KeyType<T>* key) {
  const WordReader reader(validity);
  for (int64_t w = 0; w < Words64(length); ++w) {
    uint64_t word = validity.data == nullptr ? LowMask(length - 64 * w) : reader.Word(w);
    for (; word != 0; word &= word - 1) {
      const KeyType<T> k = ToKey(values[64 * w + __builtin_ctzll(word)]);
      if (Qualifies<T, kSkipNan>(k)) {
        *key = k;
        return true;
      }
    }
  }
  return false;
}

template <typename T, bool kMin, bool kMax, bool kSkipNan>
RawMinMax<T> MinMaxWith(const T* values, int64_t length, BitSpan validity) {
  RawMinMax<T> r{T{}, T{}, false};
  KeyType<T> fill;
  if (!FirstQualifying<T, kSkipNan>(values, length, validity, &fill)) return r;
  MinMaxState<T, kMin, kMax, kSkipNan> st(fill);
  RunFold(values, length, validity, st);
  KeyType<T> mn = fill, mx = fill;
  for (int j = 0; j < 32; ++j) {
    mn = MinOf(mn, st.mn[j]);
    mx = MaxOf(mx, st.mx[j]);
  }
  r.min = FromKey<T>(mn);
  r.max = FromKey<T>(mx);
  r.valid = true;
  return r;
}

template <typename T, int kWhich>
RawMinMax<T> MinMaxFold(const T* values, int64_t length, BitSpan validity, NanMode nan) {
  constexpr bool kMin = kWhich != kFoldMax;
  constexpr bool kMax = kWhich != kFoldMin;
  if (std::is_floating_point_v<T> && nan == NanMode::kSkip) {
    return MinMaxWith<T, kMin, kMax, true>(values, length, validity);
  }
  return MinMaxWith<T, kMin, kMax, false>(values, length, validity);
}

template <typename T>
struct NanCountState {
  int64_t count[32] = {};
  template <bool kFull, bool kAllValid = false>
  void Rows(const T* p, uint32_t bits, int n) {
    for (int j = 0; j < (kFull ? 32 : n); ++j) {
      const KeyType<T> k = ToKey(p[j]);
      count[j] += LaneValid<T>(bits, j) && !Qualifies<T, true>(k);
    }
  }
};

template <typename T>
int64_t NanCount(const T* values, int64_t length, BitSpan validity) {
  if constexpr (!std::is_floating_point_v<T>) {
    return 0;
  } else {
    NanCountState<T> st;
    RunFold(values, length, validity, st);
    int64_t total = 0;
    for (int64_t c : st.count) total += c;
    return total;
  }
}

template <typename T>
constexpr FoldFns<T> MakeFolds() {
  return FoldFns<T>{&Sum<T>,
                    {&MinMaxFold<T, kFoldMin>, &MinMaxFold<T, kFoldMax>, &MinMaxFold<T, kFoldMinMax>},
                    &NanCount<T>};
}

}  // namespace
}  // namespace rowjit::kernels::ROWJIT_LEVEL_NS
