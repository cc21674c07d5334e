// Checked/wrapping add, sub, mul and comparison bodies compiled once per x86-64 level (kernels
// layer, internal; level_*.cc only). Each arm (flat/flat, flat/constant, constant/flat) is its own
// loop with the constant hoisted; constant/constant computes one row and broadcasts it.
#pragma once

#include "kernels/arith.h"
#include "kernels/bits_body_internal.h"

namespace rowjit::kernels::ROWJIT_LEVEL_NS {
namespace {

// Rows per block: checked kernels test their evidence, and comparisons pack their bytes, once a
// block. A multiple of 64, so every block's bits start on a byte of the output bitmap; small
// enough that a block of compare bytes stays in L1.
constexpr int64_t kArithBlock = 1024;

// The type of a product of two T, twice as wide, same signedness (integers up to 32 bits).
template <typename T>
using WideOf = std::conditional_t<
    sizeof(T) == 1, std::conditional_t<std::is_signed_v<T>, int16_t, uint16_t>,
    std::conditional_t<sizeof(T) == 2, std::conditional_t<std::is_signed_v<T>, int32_t, uint32_t>,
                       std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>>;

// The wrapped (integers) or IEEE (floats) result of one row.
template <ArithOp kOp, typename T>
inline T WrapOp(T x, T y) {
  if constexpr (std::is_floating_point_v<T>) {
    return kOp == ArithOp::kAdd ? x + y : kOp == ArithOp::kSub ? x - y : x * y;
  } else {
    using U = std::make_unsigned_t<T>;
    using P = std::common_type_t<U, unsigned>;  // u16 * u16 must not promote to signed int
    const P ux = static_cast<U>(x), uy = static_cast<U>(y);
    const P r = kOp == ArithOp::kAdd ? ux + uy : kOp == ArithOp::kSub ? ux - uy : ux * uy;
    return static_cast<T>(static_cast<U>(r));
  }
}

// Overflow evidence of one row as a T, OR-reduced over a block; Failed(acc) says whether a row
// of the block may have overflowed. Element-wide, so the reduction stays in vectors as wide as the data:
// signed add/sub keep the sign-bit test of the operands against the result, multiplies narrower
// than 64 bits compare the discarded high half of the widened product with the sign of the low
// half (unsigned: the high half itself). 64-bit multiplies have no vector widening on x86: their
// evidence is conservative (an operand wider than 32 bits), and a block with any is rescanned
// exactly (RowFails), which decides.
template <ArithOp kOp, typename T>
struct Evidence {
  static constexpr bool kSignTest = std::is_signed_v<T> && kOp != ArithOp::kMul;

  // The result of the row (wrapped) and its evidence.
  static T Row(T x, T y, T& ev) {
    if constexpr (kOp == ArithOp::kMul && sizeof(T) == 8) {
      // Operands within 32 bits (signed: biased from [-2^31, 2^31) to [0, 2^32)) cannot overflow;
      // a row with a wider one is only a suspect, and Failed sends its block to the exact rescan.
      const uint64_t bias = std::is_signed_v<T> ? uint64_t{1} << 31 : 0;
      const uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
      ev |= static_cast<T>(((ux + bias) | (uy + bias)) >> 32);
      return static_cast<T>(ux * uy);
    } else if constexpr (kOp == ArithOp::kMul) {
      using W = WideOf<T>;
      constexpr int kBits = 8 * sizeof(T);
      const W p = static_cast<W>(static_cast<W>(x) * static_cast<W>(y));
      const T r = static_cast<T>(p);
      const T high = static_cast<T>(p >> kBits);
      if constexpr (std::is_signed_v<T>) {
        ev |= static_cast<T>(high ^ static_cast<T>(r >> (kBits - 1)));
      } else {
        ev |= high;
      }
      return r;
    } else {
      const T r = WrapOp<kOp, T>(x, y);
      if constexpr (std::is_signed_v<T>) {
        ev |= kOp == ArithOp::kAdd ? static_cast<T>((x ^ r) & (y ^ r))
                                   : static_cast<T>((x ^ y) & (x ^ r));
      } else {
        ev |= static_cast<T>(kOp == ArithOp::kAdd ? r < x : x < y);
      }
      return r;
    }
  }
  static bool Failed(T ev) { return kSignTest ? ev < 0 : ev != 0; }
  // Scalar test of one row, for locating the failing row.
  static bool RowFails(T x, T y) {
    T r;
    return kOp == ArithOp::kAdd   ? __builtin_add_overflow(x, y, &r)
           : kOp == ArithOp::kSub ? __builtin_sub_overflow(x, y, &r)
                                  : __builtin_mul_overflow(x, y, &r);
  }
};

inline bool ValidBit(BitSpan v, int64_t i) {
  const int64_t bit = v.offset + i;
  return v.data == nullptr || ((v.data[bit >> 3] >> (bit & 7)) & 1) != 0;
}

// The first valid row of `length`, or -1.
inline int64_t FirstValid(BitSpan validity, int64_t length) {
  if (validity.data == nullptr) return length > 0 ? 0 : -1;
  const WordReader reader(validity);
  for (int64_t w = 0; w < Words64(length); ++w) {
    const uint64_t word = reader.Word(w);
    if (word != 0) return 64 * w + __builtin_ctzll(word);
  }
  return -1;
}

// Runs the loop of the arm a and b make (not both constant): arm(kAConst, kBConst) with both as
// std::bool_constant, so each arm is its own loop with the constant hoisted.
template <typename T, typename F>
inline auto ForArm(Operand<T> a, Operand<T> b, F arm) {
  if (a.values == nullptr) return arm(std::true_type{}, std::false_type{});
  if (b.values == nullptr) return arm(std::false_type{}, std::true_type{});
  return arm(std::false_type{}, std::false_type{});
}

template <bool kConst, typename T>
inline T Arg(const T* p, T c, int64_t i) {
  if constexpr (kConst) {
    return c;
  } else {
    return p[i];
  }
}

// One arm of a binary arithmetic kernel.
template <ArithOp kOp, bool kChecked, bool kAConst, bool kBConst, typename T>
int64_t ArithArm(Operand<T> a, Operand<T> b, int64_t length, T* out, BitSpan validity) {
  using E = Evidence<kOp, T>;
  constexpr bool kFallible = kChecked && std::is_integral_v<T>;
  const T* pa = a.values;
  const T* pb = b.values;
  const T ca = a.constant, cb = b.constant;
  for (int64_t start = 0; start < length; start += kArithBlock) {
    const int64_t n = MinOf(kArithBlock, length - start);
    const T* xa = kAConst ? pa : pa + start;
    const T* xb = kBConst ? pb : pb + start;
    T* o = out + start;
    if constexpr (kFallible) {
      T ev = 0;
      for (int64_t i = 0; i < n; ++i) o[i] = E::Row(Arg<kAConst>(xa, ca, i), Arg<kBConst>(xb, cb, i), ev);
      if (E::Failed(ev)) [[unlikely]] {
        for (int64_t i = 0; i < n; ++i) {
          if (ValidBit(validity, start + i) &&
              E::RowFails(Arg<kAConst>(xa, ca, i), Arg<kBConst>(xb, cb, i))) {
            return start + i;
          }
        }
      }
    } else {
      for (int64_t i = 0; i < n; ++i) o[i] = WrapOp<kOp, T>(Arg<kAConst>(xa, ca, i), Arg<kBConst>(xb, cb, i));
    }
  }
  return -1;
}

template <ArithOp kOp, bool kChecked, typename T>
int64_t ArithKernel(Operand<T> a, Operand<T> b, int64_t length, T* out, BitSpan validity) {
  if (a.values == nullptr && b.values == nullptr) {
    const T r = WrapOp<kOp, T>(a.constant, b.constant);
    for (int64_t i = 0; i < length; ++i) out[i] = r;
    if constexpr (kChecked && std::is_integral_v<T>) {
      if (Evidence<kOp, T>::RowFails(a.constant, b.constant)) return FirstValid(validity, length);
    }
    return -1;
  }
  return ForArm(a, b, [&](auto a_const, auto b_const) {
    return ArithArm<kOp, kChecked, a_const(), b_const()>(a, b, length, out, validity);
  });
}

template <ArithOp kOp, typename T>
int64_t CheckedKernel(Operand<T> a, Operand<T> b, int64_t length, T* out, BitSpan validity) {
  return ArithKernel<kOp, true, T>(a, b, length, out, validity);
}
template <ArithOp kOp, typename T>
void WrappingKernel(Operand<T> a, Operand<T> b, int64_t length, T* out) {
  ArithKernel<kOp, false, T>(a, b, length, out, BitSpan{});
}

// One comparison row as 0 or 1. Floats: NaN == NaN and NaN > every number, -0.0 == 0.0, written
// with non-short-circuit logic so the loop stays branch-free.
template <CompareOp kOp, typename T>
inline uint8_t CompareRow(T x, T y) {
  if constexpr (std::is_floating_point_v<T>) {
    const bool xn = x != x, yn = y != y;  // NaN
    const bool xo = x == x, yo = y == y;  // ordered (not NaN)
    switch (kOp) {
      case CompareOp::kEq: return (xn & yn) | (x == y);
      case CompareOp::kNe: return ((xo | yo) & (x != y)) | (xn ^ yn);
      case CompareOp::kLt: return xo & (yn | (x < y));
      case CompareOp::kLe: return yn | (xo & (x <= y));
      case CompareOp::kGt: return yo & (xn | (y < x));
      case CompareOp::kGe: return xn | (yo & (y <= x));
    }
  } else {
    switch (kOp) {
      case CompareOp::kEq: return x == y;
      case CompareOp::kNe: return x != y;
      case CompareOp::kLt: return x < y;
      case CompareOp::kLe: return x <= y;
      case CompareOp::kGt: return x > y;
      case CompareOp::kGe: return x >= y;
    }
  }
  return 0;
}

// One arm of a comparison: a block of 0/1 bytes (a vector compare and narrowing), then packed to
// bits with the level's byte-bool pack (a movemask per 32 or 64 rows).
template <CompareOp kOp, bool kAConst, bool kBConst, typename T>
void CompareArm(Operand<T> a, Operand<T> b, int64_t length, uint8_t* out) {
  alignas(64) uint8_t bytes[kArithBlock];
  const T* pa = a.values;
  const T* pb = b.values;
  const T ca = a.constant, cb = b.constant;
  for (int64_t start = 0; start < length; start += kArithBlock) {
    const int64_t n = MinOf(kArithBlock, length - start);
    const T* xa = kAConst ? pa : pa + start;
    const T* xb = kBConst ? pb : pb + start;
    for (int64_t i = 0; i < n; ++i) bytes[i] = CompareRow<kOp, T>(Arg<kAConst>(xa, ca, i), Arg<kBConst>(xb, cb, i));
    PackByteBools(bytes, n, out + start / 8);
  }
}

template <CompareOp kOp, typename T>
void CompareKernel(Operand<T> a, Operand<T> b, int64_t length, uint8_t* out) {
  if (a.values == nullptr && b.values == nullptr) {
    const uint8_t fill = CompareRow<kOp, T>(a.constant, b.constant) ? 0xff : 0;
    const int64_t bytes = Bytes(length);
    for (int64_t i = 0; i < bytes; ++i) out[i] = fill;
    if (length % 8 != 0) out[bytes - 1] &= static_cast<uint8_t>(LowMask(length % 8));
    return;
  }
  ForArm(a, b, [&](auto a_const, auto b_const) {
    CompareArm<kOp, a_const(), b_const()>(a, b, length, out);
  });
}

template <typename T>
constexpr ArithFns<T> MakeArith() {
  using A = ArithOp;
  using C = CompareOp;
  return ArithFns<T>{
      .checked = {&CheckedKernel<A::kAdd, T>, &CheckedKernel<A::kSub, T>, &CheckedKernel<A::kMul, T>},
      .wrapping = {&WrappingKernel<A::kAdd, T>, &WrappingKernel<A::kSub, T>,
                   &WrappingKernel<A::kMul, T>},
      .compare = {&CompareKernel<C::kEq, T>, &CompareKernel<C::kNe, T>, &CompareKernel<C::kLt, T>,
                  &CompareKernel<C::kLe, T>, &CompareKernel<C::kGt, T>, &CompareKernel<C::kGe, T>},
  };
}

}  // namespace
}  // namespace rowjit::kernels::ROWJIT_LEVEL_NS
