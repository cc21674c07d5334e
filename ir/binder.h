// Binding an expression against a schema: resolve columns, type every node, type untyped
// literals from their siblings, fold literal-only calls (ir layer).
#pragma once

#include "ir/expr.h"
#include "ir/limits.h"
#include "runtime/array.h"

namespace rowjit::ir {

// How to bind. The default binds as SQL does (docs/semantics.md#binding).
struct BindOptions {
  // SQL's implicit numeric casts: operands of different numeric types meet in their common
  // type (i32 + f64 is f64 arithmetic, u8 < 300 compares in u16), float-only functions take
  // integers as f64, and untyped literals that do not fit widen. The casts are nodes of the
  // bound tree. false: strict binding, where the value arguments of a call must share one type
  // and every mix is a type error naming it (write the cast).
  bool implicit_casts = true;
  Limits limits = {};
};

// Errors: kInvalidInput for unknown columns or functions and wrong arity, kTypeError for type
// mismatches (naming the function and the argument types) and literals that do not fit. Every
// error about a parsed node carries the span of its text (Error::span(), shown by FormatError),
// and an unknown name a suggestion when a known one is close.
// A literal-only call is evaluated once; if that evaluation fails (1 / 0) the call is kept and
// fails when the expression runs on a non-empty batch.
// The schema's columns and the expression's depth and nodes are checked against the limits first.
Result<ExprPtr> Bind(const ExprPtr& expr, const Schema& schema, const BindOptions& options);
Result<ExprPtr> Bind(const ExprPtr& expr, const Schema& schema, const Limits& limits = {});

// Parse + Bind.
Result<ExprPtr> ParseAndBind(std::string_view text, const Schema& schema, const BindOptions& options);
Result<ExprPtr> ParseAndBind(std::string_view text, const Schema& schema, const Limits& limits = {});

}  // namespace rowjit::ir
