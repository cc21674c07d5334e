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
     .eval = Checked<0>, .logical = LogicalArgs::kTemporalArith, .syntax = Syntax::kInfix, .symbol = "+",
     .summary = "The sum x + y in the arguments' type.",
     .notes = "Integers: a sum outside the type (`127:i8 + 1`) is an `overflow` error. Floats: IEEE 754 (`inf "
              "+ -inf` is NaN), never an error. Also timestamp + duration, duration + duration in one unit and "
              "date32 + i32 days; decimals bind to `decimal_add`, intervals add part by part.", .operation = Operation::kAdd},
    {.name = "sub", .arg_names = {"x", "y"}, .family = Family::kArithmetic,
     .can_fail = FailsOnIntegers, .propagates_type = true, .type_rule = internal::NumericRule,
     .eval = Checked<1>, .logical = LogicalArgs::kTemporalArith, .syntax = Syntax::kInfix, .symbol = "-",
     .summary = "The difference x - y in the arguments' type.",
     .notes = "Integers: a difference outside the type (`0:u8 - 1`) is an `overflow` error. Floats: IEEE 754, "
              "never an error. Also timestamp - timestamp (a duration), timestamp - duration, date32 - i32 "
              "days and date32 - date32 (i32 days); decimals bind to `decimal_sub`.", .operation = Operation::kSub},
    {.name = "mul", .arg_names = {"x", "y"}, .family = Family::kArithmetic,
     .can_fail = FailsOnIntegers, .propagates_type = true, .type_rule = internal::NumericRule,
     .eval = Checked<2>, .syntax = Syntax::kInfix, .symbol = "*", .kernel_cost = KernelCost::kCheckedMultiply,
     .summary = "The product x * y in the arguments' type.",
     .notes = "Integers: a product outside the type (`MIN * -1`) is an `overflow` error. Floats: IEEE 754 "
              "(`1e308 * 10` is inf), never an error. Decimals bind to `decimal_mul`; a duration or an "
              "interval times an integer scales it (checked).", .operation = Operation::kMul},
    {.name = "wrapping_add", .arg_names = {"x", "y"}, .family = Family::kArithmetic,
     .propagates_type = true, .type_rule = internal::IntegerRule, .eval = Wrapping<0>,
     .summary = "The sum x + y modulo 2^width, for integers.",
     .notes = "Never fails: the result wraps around (`wrapping_add(127:i8, 1)` is -128). Integers only."},
    {.name = "wrapping_sub", .arg_names = {"x", "y"}, .family = Family::kArithmetic,
     .propagates_type = true, .type_rule = internal::IntegerRule, .eval = Wrapping<1>,
     .summary = "The difference x - y modulo 2^width, for integers.",
     .notes = "Never fails: the result wraps around (`wrapping_sub(0:u8, 1)` is 255). Integers only."},
    {.name = "wrapping_mul", .arg_names = {"x", "y"}, .family = Family::kArithmetic,
     .propagates_type = true, .type_rule = internal::IntegerRule, .eval = Wrapping<2>,
     .summary = "The product x * y modulo 2^width, for integers.",
     .notes = "Never fails: the result wraps around (`wrapping_mul(MIN, -1)` is MIN). Integers only."},
    {.name = "div", .arg_names = {"x", "y"}, .family = Family::kArithmetic,
     .can_fail = FailsOnIntegers, .propagates_type = true, .type_rule = internal::NumericRule,
     .eval = Div, .syntax = Syntax::kInfix, .symbol = "/",
     .summary = "The quotient x / y: integers truncated toward zero, floats by IEEE 754 division.",
     .notes = "Integers: a divisor of 0 is a `division by zero` error and `MIN / -1` an `overflow` error; `-7 "
              "/ 2` is -3. Floats: `1 / 0` is inf, `0 / 0` NaN, never an error. Decimals divide as f64; a "
              "duration divided by a duration of its unit is their f64 ratio.", .operation = Operation::kDiv},
    {.name = "mod", .arg_names = {"x", "y"}, .family = Family::kArithmetic,
     .can_fail = FailsOnIntegers, .propagates_type = true, .type_rule = internal::NumericRule,
     .eval = Mod, .syntax = Syntax::kInfix, .symbol = "%",
     .summary = "The remainder of x / y, with the sign of x (C's `%` for integers, `fmod` for floats).",
     .notes = "Integers: a divisor of 0 is a `division by zero` error; `x % -1` is 0, also for MIN; `-7 % 2` "
              "is -1. Floats: `fmod`, never an error (`-7.5 % 2` is -1.5; `x % 0` and `inf % y` are NaN; `x % "
              "inf` is x)."},
    {.name = "neg", .arg_names = {"x"}, .family = Family::kArithmetic, .can_fail = FailsOnIntegers,
     .propagates_type = true, .type_rule = internal::NumericRule, .eval = Neg,
     .summary = "The negation -x in the argument's type.",
     .notes = "Written `-x`. Signed MIN is an `overflow` error; unsigned: 0 gives 0 and every other value is "
              "an `overflow` error. Floats flip the sign (`neg(0.0)` is -0.0). Durations and decimals negate "
              "in their type, intervals part by part (checked).", .operation = Operation::kNeg},
    {.name = "abs", .arg_names = {"x"}, .family = Family::kArithmetic,
     .can_fail = FailsOnSignedIntegers, .propagates_type = true, .type_rule = internal::NumericRule,
     .eval = Abs,
     .summary = "The absolute value of x in the argument's type.",
     .notes = "Signed MIN is an `overflow` error; unsigned values are returned unchanged. Floats clear the "
              "sign (`abs(-0.0)` is 0.0; NaN stays NaN). Durations and decimals keep their type.", .operation = Operation::kAbs},
    {.name = "min", .arg_names = {"x", "y"}, .family = Family::kArithmetic, .propagates_type = true,
     .type_rule = internal::NumericRule, .eval = MinMax<false>,
     .summary = "The lesser of x and y in SQL's order (floats: NaN greatest); on a tie, x.",
     .notes = "Never fails. Floats: `min(nan, 1)` is 1; -0.0 equals 0.0, so `min(-0.0, 0.0)` is -0.0 and "
              "`min(0.0, -0.0)` is 0.0 (the first argument wins a tie)."},
    {.name = "sign", .arg_names = {"x"}, .family = Family::kArithmetic, .propagates_type = true,
     .type_rule = internal::NumericRule, .eval = Sign,
     .summary = "-1, 0 or 1 in the argument's type, as x is negative, zero or positive.",
     .notes = "Never fails. Unsigned: 0 or 1. Floats: -1.0, 0.0 (for -0.0 too) or 1.0; ±inf give ±1.0 and NaN "
              "stays NaN (numpy's `sign`)."},
    {.name = "max", .arg_names = {"x", "y"}, .family = Family::kArithmetic, .propagates_type = true,
     .type_rule = internal::NumericRule, .eval = MinMax<true>,
     .summary = "The greater of x and y in SQL's order (floats: NaN greatest); on a tie, x.",
     .notes = "Never fails. Floats: `max(nan, 1)` is NaN; -0.0 equals 0.0, so the first argument wins between "
              "them."},
};

}  // namespace

std::span<const Function> ArithmeticFunctions() { return kFunctions; }

}  // namespace rowjit::ir
