// Bitwise row functions on integers (ir layer). Shifts by an amount outside [0, width) are
// defined, not UB: shl and unsigned shr give 0, signed shr gives the sign fill (0 or -1).
#include "ir/function_internal.h"

namespace rowjit::ir {
namespace {

template <int kOp>
Result<Scalar> Bitwise(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return internal::VisitBinary(a, []<typename T>(T x, T y) -> Result<Scalar> {
    if constexpr (!std::is_integral_v<T> || std::is_same_v<T, bool>) {
      return Error(ErrorCode::kInternal, "bitwise op on a non-integer");
    } else {
      return Scalar::Of<T>(static_cast<T>(kOp == 0 ? (x & y) : kOp == 1 ? (x | y) : (x ^ y)));
    }
  });
}

Result<Scalar> BitNot(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return internal::VisitUnary(a, []<typename T>(T x) -> Result<Scalar> {
    if constexpr (!std::is_integral_v<T> || std::is_same_v<T, bool>) {
      return Error(ErrorCode::kInternal, "bit_not on a non-integer");
    } else {
      return Scalar::Of<T>(static_cast<T>(~x));
    }
  });
}

template <bool kLeft>
Result<Scalar> Shift(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return internal::VisitBinary(a, []<typename T>(T x, T n) -> Result<Scalar> {
    if constexpr (!std::is_integral_v<T> || std::is_same_v<T, bool>) {
      return Error(ErrorCode::kInternal, "shift of a non-integer");
    } else {
      using U = std::make_unsigned_t<T>;
      constexpr int kWidth = sizeof(T) * 8;
      const bool in_range = n >= 0 && static_cast<U>(n) < static_cast<U>(kWidth);
      if (!in_range) {
        if constexpr (std::is_signed_v<T>) {
          if (!kLeft) return Scalar::Of<T>(x < 0 ? T(-1) : T(0));
        }
        return Scalar::Of<T>(0);
      }
      const int s = static_cast<int>(n);
      if (kLeft) return Scalar::Of<T>(static_cast<T>(static_cast<U>(static_cast<U>(x) << s)));
      return Scalar::Of<T>(static_cast<T>(x >> s));  // arithmetic for signed, logical for unsigned
    }
  });
}

const Function kFunctions[] = {
    {.name = "bit_and", .arg_names = {"x", "y"}, .family = Family::kBitwise,
     .propagates_type = true, .type_rule = internal::IntegerRule, .eval = Bitwise<0>,
     .summary = "The bitwise AND of x and y (two's complement).",
     .notes = "Integers only; never fails."},
    {.name = "bit_or", .arg_names = {"x", "y"}, .family = Family::kBitwise, .propagates_type = true,
     .type_rule = internal::IntegerRule, .eval = Bitwise<1>,
     .summary = "The bitwise OR of x and y (two's complement).",
     .notes = "Integers only; never fails."},
    {.name = "bit_xor", .arg_names = {"x", "y"}, .family = Family::kBitwise,
     .propagates_type = true, .type_rule = internal::IntegerRule, .eval = Bitwise<2>,
     .summary = "The bitwise exclusive OR of x and y (two's complement).",
     .notes = "Integers only; never fails."},
    {.name = "bit_not", .arg_names = {"x"}, .family = Family::kBitwise, .propagates_type = true,
     .type_rule = internal::IntegerRule, .eval = BitNot,
     .summary = "The bitwise complement of x (two's complement: `bit_not(0:i8)` is -1).",
     .notes = "Integers only; never fails."},
    {.name = "shl", .arg_names = {"x", "amount"}, .family = Family::kBitwise,
     .propagates_type = true, .type_rule = internal::IntegerRule, .eval = Shift<true>,
     .summary = "x shifted left by `amount` bits, the bits shifted out dropped.",
     .notes = "`amount` has x's type. An amount in [0, width) shifts (`shl(1:i32, 31)` is MIN); a negative "
              "amount or one of at least the width gives 0. Never fails."},
    {.name = "shr", .arg_names = {"x", "amount"}, .family = Family::kBitwise,
     .propagates_type = true, .type_rule = internal::IntegerRule, .eval = Shift<false>,
     .summary = "x shifted right by `amount` bits: arithmetic for signed x, logical for unsigned x.",
     .notes = "`amount` has x's type. A negative amount or one of at least the width gives 0, or for signed x "
              "the sign fill (-1 for a negative x). Never fails."},
};

}  // namespace

std::span<const Function> BitwiseFunctions() { return kFunctions; }

}  // namespace rowjit::ir
