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
Function Transcendental(std::string_view name) {
  return {.name = name, .arg_names = {"x"}, .family = Family::kFloat, .propagates_type = true,
          .type_rule = internal::FloatRule, .eval = EvalTranscendental<kFn>};
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
     .type_rule = internal::FloatRule, .eval = Unary<0>},
    {.name = "floor", .arg_names = {"x"}, .family = Family::kFloat, .propagates_type = true,
     .type_rule = internal::FloatRule, .eval = Unary<1>},
    {.name = "ceil", .arg_names = {"x"}, .family = Family::kFloat, .propagates_type = true,
     .type_rule = internal::FloatRule, .eval = Unary<2>},
    {.name = "round", .arg_names = {"x"}, .family = Family::kFloat, .propagates_type = true,
     .type_rule = internal::FloatRule, .eval = Unary<3>},
    {.name = "fma", .arg_names = {"x", "y", "z"}, .family = Family::kFloat, .propagates_type = true,
     .type_rule = internal::FloatRule, .eval = Fma},
    Transcendental<math::Exp<math::ScalarMath>>("exp"),
    Transcendental<math::Ln<math::ScalarMath>>("ln"),
    Transcendental<math::Log2<math::ScalarMath>>("log2"),
    Transcendental<math::Log10<math::ScalarMath>>("log10"),
    Transcendental<math::Log1p<math::ScalarMath>>("log1p"),
    Transcendental<math::Sin<math::ScalarMath>>("sin"),
    Transcendental<math::Cos<math::ScalarMath>>("cos"),
    Transcendental<math::Tan<math::ScalarMath>>("tan"),
    Transcendental<math::Expm1<math::ScalarMath>>("expm1"),
    Transcendental<math::Sinh<math::ScalarMath>>("sinh"),
    Transcendental<math::Cosh<math::ScalarMath>>("cosh"),
    Transcendental<math::Tanh<math::ScalarMath>>("tanh"),
    Transcendental<math::Atan<math::ScalarMath>>("atan"),
    Transcendental<math::Asin<math::ScalarMath>>("asin"),
    Transcendental<math::Acos<math::ScalarMath>>("acos"),
    Transcendental<math::Asinh<math::ScalarMath>>("asinh"),
    Transcendental<math::Acosh<math::ScalarMath>>("acosh"),
    Transcendental<math::Atanh<math::ScalarMath>>("atanh"),
    Transcendental<math::Cbrt<math::ScalarMath>>("cbrt"),
    Transcendental<math::Degrees<math::ScalarMath>>("degrees"),
    Transcendental<math::Radians<math::ScalarMath>>("radians"),
    {.name = "power", .arg_names = {"x", "y"}, .family = Family::kFloat, .propagates_type = true,
     .type_rule = internal::FloatRule, .eval = EvalBinary<math::Pow<math::ScalarMath>>},
    {.name = "atan2", .arg_names = {"y", "x"}, .family = Family::kFloat, .propagates_type = true,
     .type_rule = internal::FloatRule, .eval = EvalBinary<math::Atan2<math::ScalarMath>>},
    {.name = "is_nan", .arg_names = {"x"}, .family = Family::kFloat, .type_rule = IsNanRule,
     .eval = IsNan},
};

}  // namespace

std::span<const Function> FloatFunctions() { return kFunctions; }

}  // namespace rowjit::ir
