// Float row functions (ir layer): sqrt (of a negative: NaN), floor, ceil, round (half away from
// zero), fma (one rounding), is_nan, and the transcendental functions exp, ln, log2, log10,
// log1p, power, sin, cos, tan, expm1, sinh, cosh, tanh, atan, atan2, asin, acos, asinh, acosh,
// atanh, cbrt, degrees, radians (ir/float_math.h: the same algorithm the JIT emits). IEEE 754 throughout; none
// fails.
#include "ir/float_math.h"
#include "ir/function_internal.h"

namespace rowjit::ir {
namespace {

template <int kOp>
Result<Scalar> Unary(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return internal::VisitUnary(a, []<typename T>(T x) -> Result<Scalar> {
    if constexpr (!std::is_floating_point_v<T>) {
      return Error(ErrorCode::kInternal, "float function on a non-float");
    } else {
      switch (kOp) {
        case 0: return Scalar::Of<T>(std::sqrt(x));
        case 1: return Scalar::Of<T>(std::floor(x));
        case 2: return Scalar::Of<T>(std::ceil(x));
        default: return Scalar::Of<T>(std::round(x));
      }
    }
  });
}

Result<Scalar> Fma(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return VisitType(a[0].type_id(), [&]<typename T>(std::type_identity<T>) -> Result<Scalar> {
    if constexpr (!std::is_floating_point_v<T>) {
      return Error(ErrorCode::kInternal, "fma on a non-float");
    } else {
      return Scalar::Of<T>(std::fma(a[0].value<T>(), a[1].value<T>(), a[2].value<T>()));
    }
  });
}

// f32 arguments are computed in f64 and rounded once.
template <double (*kFn)(math::ScalarMath&, double)>
Result<Scalar> EvalTranscendental(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return internal::VisitUnary(a, []<typename T>(T x) -> Result<Scalar> {
    if constexpr (!std::is_floating_point_v<T>) {
      return Error(ErrorCode::kInternal, "float function on a non-float");
    } else {
      math::ScalarMath m;
      return Scalar::Of<T>(static_cast<T>(kFn(m, static_cast<double>(x))));
    }
  });
}

// The catalog entry of a one-argument function of ir/float_math.h.
template <double (*kFn)(math::ScalarMath&, double)>
Function Transcendental(std::string_view name, std::string_view summary, std::string_view notes,
                        KernelCost cost = KernelCost::kPlain) {
  return {.name = name, .arg_names = {"x"}, .family = Family::kFloat, .propagates_type = true,
          .type_rule = internal::FloatRule, .eval = EvalTranscendental<kFn>, .kernel_cost = cost,
          .summary = summary, .notes = notes, .numbers = NumberDomain::kFloat};
}

template <double (*kFn)(math::ScalarMath&, double, double)>
Result<Scalar> EvalBinary(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return VisitType(a[0].type_id(), [&]<typename T>(std::type_identity<T>) -> Result<Scalar> {
    if constexpr (!std::is_floating_point_v<T>) {
      return Error(ErrorCode::kInternal, "float function on a non-float");
    } else {
      math::ScalarMath m;
      const double r = kFn(m, static_cast<double>(a[0].value<T>()), static_cast<double>(a[1].value<T>()));
      return Scalar::Of<T>(static_cast<T>(r));
    }
  });
}

Result<Scalar> IsNan(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return internal::VisitUnary(a, []<typename T>(T x) -> Result<Scalar> {
    return Scalar::Of<bool>(x != x);
  });
}
Result<DataType> IsNanRule(std::string_view n, std::span<const DataType> a,
                           std::optional<TypeId> t) {
  ROWJIT_ASSIGN_OR_RETURN(DataType r, internal::FloatRule(n, a, t));
  return DataType(TypeId::kBool, r.nullable);
}

const Function kFunctions[] = {
    {.name = "sqrt", .arg_names = {"x"}, .family = Family::kFloat, .propagates_type = true,
     .type_rule = internal::FloatRule, .eval = Unary<0>,
     .summary = "The square root of x, correctly rounded.",
     .notes = "Never fails: `sqrt(-1)` and `sqrt(-inf)` are NaN, `sqrt(-0.0)` is -0.0, `sqrt(inf)` is inf. "
              "An integer or a decimal is cast to f64 first.", .numbers = NumberDomain::kFloat},
    {.name = "floor", .arg_names = {"x"}, .family = Family::kFloat, .propagates_type = true,
     .type_rule = internal::FloatRule, .eval = Unary<1>,
     .summary = "The largest integral value not greater than x.",
     .notes = "Keeps ±0.0, ±inf and NaN. Never fails.", .numbers = NumberDomain::kFloat},
    {.name = "ceil", .arg_names = {"x"}, .family = Family::kFloat, .propagates_type = true,
     .type_rule = internal::FloatRule, .eval = Unary<2>,
     .summary = "The smallest integral value not less than x.",
     .notes = "Keeps ±0.0, ±inf and NaN; `ceil(-0.5)` is -0.0. Never fails.", .numbers = NumberDomain::kFloat},
    {.name = "round", .arg_names = {"x"}, .family = Family::kFloat, .propagates_type = true,
     .type_rule = internal::FloatRule, .eval = Unary<3>,
     .summary = "x rounded to an integral value, halves away from zero.",
     .notes = "`round(2.5)` is 3, `round(-2.5)` is -3, `round(-0.4)` is -0.0. Never fails. `round(x, n)` of a "
              "decimal binds to `decimal_cast`.", .numbers = NumberDomain::kFloat},
    {.name = "fma", .arg_names = {"x", "y", "z"}, .family = Family::kFloat, .propagates_type = true,
     .type_rule = internal::FloatRule, .eval = Fma,
     .summary = "x * y + z with a single rounding.",
     .notes = "`fma(0.1, 10, -1)` is 5.551115123125783e-17 where `0.1 * 10 - 1` is 0; `fma(inf, 0, z)` is NaN. "
              "Never fails.", .numbers = NumberDomain::kFloat},
    Transcendental<math::Exp<math::ScalarMath>>("exp",
        "e raised to the power x.",
        "`exp(-inf)` is 0; inf above 709.78, 0 below -745.13. Never fails. f32 arguments are computed in f64 "
        "and rounded once; the kernels give the same bits."),
    Transcendental<math::Ln<math::ScalarMath>>("ln",
        "The natural logarithm of x.",
        "`ln(0)` is -inf, `ln(-1)` is NaN, `ln(1)` is +0: never an error. `log` alone is refused: write `ln` "
        "or `log10`. f32 arguments are computed in f64 and rounded once; the kernels give the same bits."),
    Transcendental<math::Log2<math::ScalarMath>>("log2",
        "The base-2 logarithm of x.",
        "`log2(2^k)` is exactly k; 0 gives -inf and a negative x NaN. Never fails. f32 arguments are computed "
        "in f64 and rounded once; the kernels give the same bits."),
    Transcendental<math::Log10<math::ScalarMath>>("log10",
        "The base-10 logarithm of x.",
        "0 gives -inf and a negative x NaN. Never fails. f32 arguments are computed in f64 and rounded once; "
        "the kernels give the same bits."),
    Transcendental<math::Log1p<math::ScalarMath>>("log1p",
        "ln(1 + x), accurate near x = 0.",
        "`log1p(-1)` is -inf, below -1 NaN, `log1p(-0.0)` is -0.0. Never fails. f32 arguments are computed in "
        "f64 and rounded once; the kernels give the same bits."),
    Transcendental<math::Sin<math::ScalarMath>>("sin",
        "The sine of x radians.",
        "The reduction by π/2 is exact at every magnitude (`sin(1e22)` is -0.8522008497671888); ±inf and NaN "
        "give NaN; `sin(-0.0)` is -0.0. Never fails. f32 arguments are computed in f64 and rounded once; the "
        "kernels give the same bits.",
        KernelCost::kTrig),
    Transcendental<math::Cos<math::ScalarMath>>("cos",
        "The cosine of x radians.",
        "The reduction by π/2 is exact at every magnitude; ±inf and NaN give NaN. Never fails. f32 arguments "
        "are computed in f64 and rounded once; the kernels give the same bits.",
        KernelCost::kTrig),
    Transcendental<math::Tan<math::ScalarMath>>("tan",
        "The tangent of x radians.",
        "The reduction by π/2 is exact at every magnitude; ±inf and NaN give NaN; `tan(-0.0)` is -0.0. Never "
        "fails. f32 arguments are computed in f64 and rounded once; the kernels give the same bits.",
        KernelCost::kTrig),
    Transcendental<math::Expm1<math::ScalarMath>>("expm1",
        "e^x - 1, accurate near x = 0.",
        "`expm1(-inf)` is -1, `expm1(-0.0)` is -0.0. Never fails. f32 arguments are computed in f64 and "
        "rounded once; the kernels give the same bits."),
    Transcendental<math::Sinh<math::ScalarMath>>("sinh",
        "The hyperbolic sine of x.",
        "±inf beyond ±710.4758600739439 (e^x / 2 without overflowing first); keeps -0.0. Never fails. f32 "
        "arguments are computed in f64 and rounded once; the kernels give the same bits."),
    Transcendental<math::Cosh<math::ScalarMath>>("cosh",
        "The hyperbolic cosine of x.",
        "`cosh(±inf)` is inf. Never fails. f32 arguments are computed in f64 and rounded once; the kernels "
        "give the same bits."),
    Transcendental<math::Tanh<math::ScalarMath>>("tanh",
        "The hyperbolic tangent of x.",
        "`tanh(±inf)` is ±1; keeps -0.0. Never fails. f32 arguments are computed in f64 and rounded once; the "
        "kernels give the same bits."),
    Transcendental<math::Atan<math::ScalarMath>>("atan",
        "The arctangent of x, in radians.",
        "`atan(±inf)` is ±π/2; keeps -0.0. Never fails. f32 arguments are computed in f64 and rounded once; "
        "the kernels give the same bits."),
    Transcendental<math::Asin<math::ScalarMath>>("asin",
        "The arcsine of x, in radians.",
        "|x| > 1 gives NaN, not an error. Never fails. f32 arguments are computed in f64 and rounded once; the "
        "kernels give the same bits."),
    Transcendental<math::Acos<math::ScalarMath>>("acos",
        "The arccosine of x, in radians.",
        "|x| > 1 gives NaN, not an error. Never fails. f32 arguments are computed in f64 and rounded once; the "
        "kernels give the same bits."),
    Transcendental<math::Asinh<math::ScalarMath>>("asinh",
        "The inverse hyperbolic sine of x.",
        "Within 2 ulp (fdlibm's composition over `ln` and `log1p`). Never fails. f32 arguments are computed in "
        "f64 and rounded once; the kernels give the same bits."),
    Transcendental<math::Acosh<math::ScalarMath>>("acosh",
        "The inverse hyperbolic cosine of x.",
        "x below 1 gives NaN. Within 2.5 ulp just above 1. Never fails. f32 arguments are computed in f64 and "
        "rounded once; the kernels give the same bits."),
    Transcendental<math::Atanh<math::ScalarMath>>("atanh",
        "The inverse hyperbolic tangent of x.",
        "`atanh(±1)` is ±inf and beyond ±1 NaN. Within 2 ulp. Never fails. f32 arguments are computed in f64 "
        "and rounded once; the kernels give the same bits."),
    Transcendental<math::Cbrt<math::ScalarMath>>("cbrt",
        "The cube root of x.",
        "Negative for a negative x; exact cubes give exact roots (`cbrt(-27)` is -3). Never fails. f32 "
        "arguments are computed in f64 and rounded once; the kernels give the same bits."),
    Transcendental<math::Degrees<math::ScalarMath>>("degrees",
        "x radians in degrees (x · 180/π).",
        "A double-double product: `degrees(pi())` is 180. Never fails. f32 arguments are computed in f64 and "
        "rounded once; the kernels give the same bits."),
    Transcendental<math::Radians<math::ScalarMath>>("radians",
        "x degrees in radians (x · π/180).",
        "A double-double product: `radians(180)` is π. Never fails. f32 arguments are computed in f64 and "
        "rounded once; the kernels give the same bits."),
    {.name = "power", .arg_names = {"x", "y"}, .family = Family::kFloat, .propagates_type = true,
     .type_rule = internal::FloatRule, .eval = EvalBinary<math::Pow<math::ScalarMath>>,
     .summary = "x raised to the power y (C99's `pow`).",
     .notes = "Written `x ** y` too. `power(x, 0)` and `power(1, y)` are 1 even for NaN; a negative finite x "
              "to a non-integer y is NaN; `power(0, -2)` is inf, `power(-0.0, -3)` -inf. Never fails. f32 "
              "arguments are computed in f64 and rounded once; the kernels give the same bits.", .numbers = NumberDomain::kFloat},
    {.name = "atan2", .arg_names = {"y", "x"}, .family = Family::kFloat, .propagates_type = true,
     .type_rule = internal::FloatRule, .eval = EvalBinary<math::Atan2<math::ScalarMath>>,
     .summary = "The angle of the point (x, y) from the positive x axis, in radians (C99's `atan2(y, x)`).",
     .notes = "`atan2(±0, -0.0)` is ±π, `atan2(±0, +0.0)` is ±0, `atan2(±inf, -inf)` is ±3π/4, `atan2(y, ±0)` "
              "is ±π/2 for y ≠ 0. Never fails. f32 arguments are computed in f64 and rounded once; the kernels "
              "give the same bits.", .numbers = NumberDomain::kFloat},
    {.name = "is_nan", .arg_names = {"x"}, .family = Family::kFloat, .type_rule = IsNanRule,
     .eval = IsNan,
     .summary = "Whether x is NaN.",
     .notes = "True for a NaN of either sign, false for ±inf. Never fails.", .numbers = NumberDomain::kFloat},
};

}  // namespace

std::span<const Function> FloatFunctions() { return kFunctions; }

}  // namespace rowjit::ir
