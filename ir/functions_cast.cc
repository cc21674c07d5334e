// Casts between bool and every numeric type (ir layer). cast: widening is exact, narrowing and
// float→int are checked (out of range or ±inf → overflow, NaN → invalid input); saturating_cast
// clamps (NaN → 0, as LLVM's fptosi.sat); wrapping_cast reduces integers modulo 2^width.
// int→float rounds to nearest-even; f64→f32 is checked only for finite values that overflow.
#include <utility>

#include "ir/function_internal.h"

namespace rowjit::ir {
namespace {

enum Mode { kChecked, kSaturating, kWrapping };

template <Mode kMode, typename S, typename T>
Result<Scalar> CastValue(S x) {
  if constexpr (std::is_same_v<S, T>) {
    return Scalar::Of<T>(x);
  } else if constexpr (std::is_same_v<T, bool>) {
    return Scalar::Of<bool>(x != 0);  // NaN is nonzero: true
  } else if constexpr (std::is_same_v<S, bool>) {
    return Scalar::Of<T>(static_cast<T>(x ? 1 : 0));
  } else if constexpr (std::is_integral_v<S> && std::is_integral_v<T>) {
    if (std::in_range<T>(x)) return Scalar::Of<T>(static_cast<T>(x));
    if constexpr (kMode == kWrapping) {
      return Scalar::Of<T>(static_cast<T>(x));  // modular since C++20
    } else if constexpr (kMode == kSaturating) {
      return Scalar::Of<T>(x < 0 ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max());
    } else {
      return internal::Overflow(
          fmt::format("{} does not fit {}", x, TypeIdName(TypeIdOf<T>())));
    }
  } else if constexpr (std::is_integral_v<S>) {  // int → float: nearest
    return Scalar::Of<T>(static_cast<T>(x));
  } else if constexpr (std::is_integral_v<T>) {  // float → int: truncate toward zero
    const double d = static_cast<double>(x);
    constexpr int kWidth = sizeof(T) * 8;
    // [lo, hi) are powers of two, exact in double.
    const double lo = std::is_signed_v<T> ? -std::ldexp(1.0, kWidth - 1) : 0.0;
    const double hi = std::ldexp(1.0, std::is_signed_v<T> ? kWidth - 1 : kWidth);
    if (std::isnan(d)) {
      if constexpr (kMode == kSaturating) return Scalar::Of<T>(0);
      return Error(ErrorCode::kInvalidInput,
                   fmt::format("NaN cannot be cast to {}", TypeIdName(TypeIdOf<T>())));
    }
    const double t = std::trunc(d);
    if (t >= lo && t < hi) return Scalar::Of<T>(static_cast<T>(t));
    if constexpr (kMode == kSaturating) {
      return Scalar::Of<T>(t < lo ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max());
    }
    return internal::Overflow(fmt::format("{} does not fit {}", d, TypeIdName(TypeIdOf<T>())));
  } else {  // float → float
    const T r = static_cast<T>(x);
    if (std::isinf(r) && !std::isinf(x)) {
      if constexpr (kMode == kSaturating) {
        return Scalar::Of<T>(x < 0 ? -std::numeric_limits<T>::max()
                                   : std::numeric_limits<T>::max());
      }
      return internal::Overflow(fmt::format("{} does not fit {}", x, TypeIdName(TypeIdOf<T>())));
    }
    return Scalar::Of<T>(r);
  }
}

template <Mode kMode>
Result<Scalar> Cast(std::span<const Scalar> a, DataType, std::optional<TypeId> target) {
  return VisitType(a[0].type_id(), [&]<typename S>(std::type_identity<S>) -> Result<Scalar> {
    const S x = a[0].value<S>();
    return VisitType(*target, [&]<typename T>(std::type_identity<T>) -> Result<Scalar> {
      if constexpr (kMode == kWrapping && std::is_floating_point_v<S> && !std::is_same_v<S, T>) {
        return Error(ErrorCode::kInternal, "wrapping_cast from a float");
      } else {
        return CastValue<kMode, S, T>(x);
      }
    });
  });
}

template <Mode kMode>
Result<DataType> CastRule(std::string_view name, std::span<const DataType> a,
                          std::optional<TypeId> target) {
  if (!target) return MakeError(ErrorCode::kTypeError, "{} needs a target type: {}(x, T)", name, name);
  if (IsString(a[0].id) || IsString(*target)) {
    return MakeError(ErrorCode::kUnsupported, "{}({}, {}): casts to and from strings are not built yet",
                     name, TypeIdName(a[0].id), TypeIdName(*target));
  }
  if (kMode == kWrapping && IsFloat(a[0].id) && a[0].id != *target) {
    return MakeError(ErrorCode::kTypeError,
                     "wrapping_cast({}, {}): wrapping is defined for integers; use cast or "
                     "saturating_cast for floats",
                     TypeIdName(a[0].id), TypeIdName(*target));
  }
  return DataType(*target, a[0].nullable);
}

// Every value of `from` is a value of `to` (both integers).
bool IntRangeContains(TypeId to, TypeId from) {
  if (IsSignedInt(to) == IsSignedInt(from)) return BitWidth(to) >= BitWidth(from);
  return IsSignedInt(to) && BitWidth(to) > BitWidth(from);  // unsigned into a wider signed
}

// A checked cast fails where the target cannot hold every source value: a narrower integer range,
// a float → integer conversion, or a narrower float (finite values that round to inf). Widening
// casts and integer → float conversions (which round) cannot fail.
bool CastCanFail(std::span<const DataType> args, DataType result) {
  const TypeId from = args[0].id, to = result.id;
  if (from == to || (IsFloat(to) && IsInteger(from))) return false;
  if (IsFloat(from) && IsFloat(to)) return BitWidth(to) < BitWidth(from);
  if (IsInteger(from) && IsInteger(to)) return !IntRangeContains(to, from);
  return true;
}

const Function kFunctions[] = {
    {.name = "cast", .arg_names = {"x"}, .family = Family::kCast, .can_fail = CastCanFail,
     .unify_from = -1, .takes_type_arg = true, .type_rule = CastRule<kChecked>,
     .eval = Cast<kChecked>},
    {.name = "saturating_cast", .arg_names = {"x"}, .family = Family::kCast, .unify_from = -1,
     .takes_type_arg = true, .type_rule = CastRule<kSaturating>, .eval = Cast<kSaturating>},
    {.name = "wrapping_cast", .arg_names = {"x"}, .family = Family::kCast, .unify_from = -1,
     .takes_type_arg = true, .type_rule = CastRule<kWrapping>, .eval = Cast<kWrapping>},
};

}  // namespace

std::span<const Function> CastFunctions() { return kFunctions; }

}  // namespace rowjit::ir
