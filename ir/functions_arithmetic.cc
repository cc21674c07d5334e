// Arithmetic row functions: checked + - * / %, wrapping variants, neg, abs, sign, min, max (ir
// layer).
// Checked integer arithmetic fails on overflow (as SQL engines do); floats follow IEEE 754.
#include <cmath>

#include "ir/function_internal.h"

namespace rowjit::ir {
namespace {

using internal::kIsNumber;
using internal::Overflow;
using internal::VisitBinary;
using internal::VisitUnary;

template <typename T>
std::string OverflowText(std::string_view op) {
  return fmt::format("{} result does not fit {}", op, TypeIdName(TypeIdOf<T>()));
}

// Checked add/sub/mul: overflow is an error for integers; floats are IEEE.
template <int kOp>
Result<Scalar> Checked(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return VisitBinary(a, []<typename T>(T x, T y) -> Result<Scalar> {
    if constexpr (!kIsNumber<T>) {
      return Error(ErrorCode::kInternal, "arithmetic on bool");
    } else if constexpr (std::is_floating_point_v<T>) {
      return Scalar::Of<T>(kOp == 0 ? x + y : kOp == 1 ? x - y : x * y);
    } else {
      T r;
      const bool o = kOp == 0   ? __builtin_add_overflow(x, y, &r)
                     : kOp == 1 ? __builtin_sub_overflow(x, y, &r)
                                : __builtin_mul_overflow(x, y, &r);
      if (o) return Overflow(OverflowText<T>(kOp == 0 ? "add" : kOp == 1 ? "sub" : "mul"));
      return Scalar::Of<T>(r);
    }
  });
}

// Wrapping add/sub/mul: modulo 2^width, computed in the unsigned type (no UB).
template <int kOp>
Result<Scalar> Wrapping(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return VisitBinary(a, []<typename T>(T x, T y) -> Result<Scalar> {
    if constexpr (!std::is_integral_v<T> || std::is_same_v<T, bool>) {
      return Error(ErrorCode::kInternal, "wrapping arithmetic on a non-integer");
    } else {
      using U = std::make_unsigned_t<T>;
      // Promote to at least unsigned int so u16 * u16 does not overflow a signed int.
      using P = std::common_type_t<U, unsigned>;
      const P ux = static_cast<U>(x), uy = static_cast<U>(y);
      const P r = kOp == 0 ? ux + uy : kOp == 1 ? ux - uy : ux * uy;
      return Scalar::Of<T>(static_cast<T>(static_cast<U>(r)));
    }
  });
}

Result<Scalar> Div(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return VisitBinary(a, []<typename T>(T x, T y) -> Result<Scalar> {
    if constexpr (!kIsNumber<T>) {
      return Error(ErrorCode::kInternal, "div on bool");
    } else if constexpr (std::is_floating_point_v<T>) {
      return Scalar::Of<T>(x / y);
    } else {
      if (y == 0) return Error(ErrorCode::kDivisionByZero, "division by zero");
      if constexpr (std::is_signed_v<T>) {
        if (x == std::numeric_limits<T>::min() && y == -1) return Overflow(OverflowText<T>("div"));
      }
      return Scalar::Of<T>(static_cast<T>(x / y));
    }
  });
}

Result<Scalar> Mod(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return VisitBinary(a, []<typename T>(T x, T y) -> Result<Scalar> {
    if constexpr (!kIsNumber<T>) {
      return Error(ErrorCode::kInternal, "mod on bool");
    } else if constexpr (std::is_floating_point_v<T>) {
      return Scalar::Of<T>(std::fmod(x, y));
    } else {
      if (y == 0) return Error(ErrorCode::kDivisionByZero, "division by zero");
      if constexpr (std::is_signed_v<T>) {
        if (y == -1) return Scalar::Of<T>(0);  // MIN % -1 is 0, not a trap
      }
      return Scalar::Of<T>(static_cast<T>(x % y));
    }
  });
}

// A decimal128's storage: every value but the 16-byte minimum negates (no declared precision
// reaches it; Arrow does not check precisions).
Result<Scalar> Neg128(const Scalar& x, bool abs) {
  const __int128 v = x.int128();
  if (v == static_cast<__int128>(static_cast<unsigned __int128>(1) << 127)) {
    return Overflow(fmt::format("{} overflows i128", abs ? "abs" : "neg"));
  }
  return Scalar::Int128(abs && v >= 0 ? v : -v, x.type());
}

Result<Scalar> Neg(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  if (a[0].type_id() == TypeId::kI128) return Neg128(a[0], false);
  return VisitUnary(a, []<typename T>(T x) -> Result<Scalar> {
    if constexpr (!kIsNumber<T>) {
      return Error(ErrorCode::kInternal, "neg on bool");
    } else if constexpr (std::is_floating_point_v<T>) {
      return Scalar::Of<T>(-x);
    } else if constexpr (std::is_unsigned_v<T>) {
      if (x != 0) return Overflow(OverflowText<T>("neg"));
      return Scalar::Of<T>(0);
    } else {
      if (x == std::numeric_limits<T>::min()) return Overflow(OverflowText<T>("neg"));
      return Scalar::Of<T>(static_cast<T>(-x));
    }
  });
}

Result<Scalar> Abs(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  if (a[0].type_id() == TypeId::kI128) return Neg128(a[0], true);
  return VisitUnary(a, []<typename T>(T x) -> Result<Scalar> {
    if constexpr (!kIsNumber<T>) {
      return Error(ErrorCode::kInternal, "abs on bool");
    } else if constexpr (std::is_floating_point_v<T>) {
      return Scalar::Of<T>(std::fabs(x));
    } else if constexpr (std::is_unsigned_v<T>) {
      return Scalar::Of<T>(x);
    } else {
      if (x == std::numeric_limits<T>::min()) return Overflow(OverflowText<T>("abs"));
      return Scalar::Of<T>(static_cast<T>(x < 0 ? -x : x));
    }
  });
}

// min/max order floats like the comparisons (NaN greatest); on a tie the first argument wins.
template <bool kMax>
Result<Scalar> MinMax(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return VisitBinary(a, []<typename T>(T x, T y) -> Result<Scalar> {
    const int c = CompareTotalSql(y, x);
    return Scalar::Of<T>((kMax ? c > 0 : c < 0) ? y : x);
  });
}
// sign: -1, 0 or 1 in the argument's type (PostgreSQL's rule); unsigned values give 0 or 1;
// floats give -1.0, 0.0 (for -0.0 too) or 1.0, and NaN stays NaN (as numpy's sign).
Result<Scalar> Sign(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return VisitUnary(a, []<typename T>(T x) -> Result<Scalar> {
    if constexpr (!kIsNumber<T>) {
      return Error(ErrorCode::kInternal, "sign of bool");
    } else if constexpr (std::is_unsigned_v<T>) {
      return Scalar::Of<T>(static_cast<T>(x != 0));
    } else {
      if (x != x) return Scalar::Of<T>(x);  // NaN
      return Scalar::Of<T>(static_cast<T>(x > T{0} ? 1 : x < T{0} ? -1 : 0));
    }
  });
}

const Function kFunctions[] = {
    {.name = "add", .arg_names = {"x", "y"}, .family = Family::kArithmetic,
     .can_fail = FailsOnIntegers, .propagates_type = true, .type_rule = internal::NumericRule,
     .eval = Checked<0>, .logical = LogicalArgs::kTemporalArith},
    {.name = "sub", .arg_names = {"x", "y"}, .family = Family::kArithmetic,
     .can_fail = FailsOnIntegers, .propagates_type = true, .type_rule = internal::NumericRule,
     .eval = Checked<1>, .logical = LogicalArgs::kTemporalArith},
    {.name = "mul", .arg_names = {"x", "y"}, .family = Family::kArithmetic,
     .can_fail = FailsOnIntegers, .propagates_type = true, .type_rule = internal::NumericRule,
     .eval = Checked<2>},
    {.name = "wrapping_add", .arg_names = {"x", "y"}, .family = Family::kArithmetic,
     .propagates_type = true, .type_rule = internal::IntegerRule, .eval = Wrapping<0>},
    {.name = "wrapping_sub", .arg_names = {"x", "y"}, .family = Family::kArithmetic,
     .propagates_type = true, .type_rule = internal::IntegerRule, .eval = Wrapping<1>},
    {.name = "wrapping_mul", .arg_names = {"x", "y"}, .family = Family::kArithmetic,
     .propagates_type = true, .type_rule = internal::IntegerRule, .eval = Wrapping<2>},
    {.name = "div", .arg_names = {"x", "y"}, .family = Family::kArithmetic,
     .can_fail = FailsOnIntegers, .propagates_type = true, .type_rule = internal::NumericRule,
     .eval = Div},
    {.name = "mod", .arg_names = {"x", "y"}, .family = Family::kArithmetic,
     .can_fail = FailsOnIntegers, .propagates_type = true, .type_rule = internal::NumericRule,
     .eval = Mod},
    {.name = "neg", .arg_names = {"x"}, .family = Family::kArithmetic, .can_fail = FailsOnIntegers,
     .propagates_type = true, .type_rule = internal::NumericRule, .eval = Neg},
    {.name = "abs", .arg_names = {"x"}, .family = Family::kArithmetic,
     .can_fail = FailsOnSignedIntegers, .propagates_type = true, .type_rule = internal::NumericRule,
     .eval = Abs},
    {.name = "min", .arg_names = {"x", "y"}, .family = Family::kArithmetic, .propagates_type = true,
     .type_rule = internal::NumericRule, .eval = MinMax<false>},
    {.name = "sign", .arg_names = {"x"}, .family = Family::kArithmetic, .propagates_type = true,
     .type_rule = internal::NumericRule, .eval = Sign},
    {.name = "max", .arg_names = {"x", "y"}, .family = Family::kArithmetic, .propagates_type = true,
     .type_rule = internal::NumericRule, .eval = MinMax<true>},
};

}  // namespace

std::span<const Function> ArithmeticFunctions() { return kFunctions; }

}  // namespace rowjit::ir
