// Float row functions (ir layer): sqrt (of a negative: NaN), floor, ceil, round (half away from
// zero), fma (one rounding), is_nan. IEEE 754 throughout; none fails.
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
    {.name = "is_nan", .arg_names = {"x"}, .family = Family::kFloat, .type_rule = IsNanRule,
     .eval = IsNan},
};

}  // namespace

std::span<const Function> FloatFunctions() { return kFunctions; }

}  // namespace rowjit::ir
