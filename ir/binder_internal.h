// The binder's rules that need no binder state (ir/binder_rules.cc): untyped literals, the logical
// type a call's arguments share, and where errors point and what they suggest (ir layer, internal
// to ir/).
#pragma once

#include <optional>
#include <span>
#include <string>

#include "ir/expr.h"
#include "ir/function.h"
#include "runtime/array.h"

namespace rowjit::ir::internal {

// Untyped: a literal without suffix, or a type-propagating call of untyped arguments only.
bool IsUntyped(const Expr& e);
// Whether a number's text is a float's: a point, an exponent, nan or inf.
bool LooksFloat(const std::string& text);
// The type an untyped literal gets when nothing around it says: i32 if it fits, else i64, else
// u64; floats f64; true/false bool; an untyped null is a type error.
Result<TypeId> DefaultLiteralType(const std::string& text);

// The binder's rule for arguments of logical types (ir/function.h LogicalArgs): the logical type
// the unified arguments share, nullopt when the call has none (or reads only nullness).
Result<std::optional<DataType>> LogicalGroup(const Function& f, std::span<const DataType> types,
                                             std::span<const ExprPtr> args);

// `e` about the text `node` was parsed from, unless it names a place already (an argument's
// error keeps the argument's span) or the node has none (a tree built in code).
Error At(const Expr& node, Error e);
// `r`, its error about the text of `node` (a literal's value that does not parse, say). Hidden:
// the symbol of an instantiation starts with its return type (rowjit::Result<...>), which the
// export map's public patterns would otherwise take (tools/consumer-test checks).
template <typename T>
[[gnu::visibility("hidden")]] Result<T> Located(const Expr& node, Result<T> r) {
  if (r.ok()) return r;
  return At(node, std::move(r).TakeError());
}

// " (did you mean 'sqrt'?)" for an unknown function name, from the catalog (names and aliases),
// SQL's forms and other engines' names; "" when none is close.
std::string FunctionSuggestion(const std::string& name);
// The same for an unknown column, from the schema's names and the literals' keywords (ture: true).
std::string ColumnSuggestion(const std::string& name, const Schema& schema);

}  // namespace rowjit::ir::internal
