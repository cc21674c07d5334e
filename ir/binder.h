// Binding an expression against a schema: resolve columns, type every node, type untyped
// literals from their siblings, fold literal-only calls (ir layer).
#pragma once

#include "ir/expr.h"
#include "ir/limits.h"
#include "runtime/array.h"

namespace rowjit::ir {

// Errors: kInvalidInput for unknown columns or functions and wrong arity, kTypeError for type
// mismatches (naming the function and the argument types) and literals that do not fit.
// A literal-only call is evaluated once; if that evaluation fails (1 / 0) the call is kept and
// fails when the expression runs on a non-empty batch.
// The schema's columns and the expression's depth and nodes are checked against `limits` first.
Result<ExprPtr> Bind(const ExprPtr& expr, const Schema& schema, const Limits& limits = {});

// Parse + Bind.
Result<ExprPtr> ParseAndBind(std::string_view text, const Schema& schema, const Limits& limits = {});

}  // namespace rowjit::ir
