// Helpers shared by the catalog's family files: type rules and typed scalar visitors (ir layer,
// internal to ir/).
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

#include "ir/expr.h"
#include "ir/function.h"

namespace rowjit::ir::internal {

// --- type rules ---------------------------------------------------------------------------

bool AnyNullable(std::span<const DataType> args);
std::string ArgTypes(std::span<const DataType> args);
Error TypeMismatch(std::string_view name, std::span<const DataType> args, std::string_view want);

// All arguments one type accepted by `accept`; result that type (or bool), strict nullability.
Result<DataType> SameType(std::string_view name, std::span<const DataType> args,
                          bool (*accept)(TypeId), std::string_view want, bool result_bool);

Result<DataType> NumericRule(std::string_view, std::span<const DataType>, std::optional<TypeId>);
Result<DataType> IntegerRule(std::string_view, std::span<const DataType>, std::optional<TypeId>);
Result<DataType> FloatRule(std::string_view, std::span<const DataType>, std::optional<TypeId>);
Result<DataType> BoolRule(std::string_view, std::span<const DataType>, std::optional<TypeId>);
Result<DataType> CompareRule(std::string_view, std::span<const DataType>, std::optional<TypeId>);

// A bound call of catalog function `name` (which must exist) of type `type`, nullable where a
// strict function has a nullable argument, folded by `fold`: what the binder's rewrites build.
ExprPtr BuildCall(std::string_view name, std::vector<ExprPtr> args, DataType type, FoldFn fold,
                  std::optional<TypeId> type_arg = std::nullopt);

// --- scalar visitors ----------------------------------------------------------------------

template <typename T>
constexpr bool kIsNumber = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;

// f(x...) with every argument read as the C++ type of args[0]'s type.
template <typename F>
Result<Scalar> VisitUnary(std::span<const Scalar> args, F&& f) {
  return VisitType(args[0].type_id(), [&]<typename T>(std::type_identity<T>) -> Result<Scalar> {
    return f(args[0].value<T>());
  });
}
template <typename F>
Result<Scalar> VisitBinary(std::span<const Scalar> args, F&& f) {
  return VisitType(args[0].type_id(), [&]<typename T>(std::type_identity<T>) -> Result<Scalar> {
    return f(args[0].value<T>(), args[1].value<T>());
  });
}

// At most the first 40 bytes of `s`, quoted, with bytes that are not valid UTF-8 or are control
// characters as \xNN: what an error message shows of a row's text (ir/functions_cast.cc).
std::string Shown(std::string_view s);

inline Error Overflow(std::string_view what) {
  return Error(ErrorCode::kOverflow, std::string(what));
}

}  // namespace rowjit::ir::internal
