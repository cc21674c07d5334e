// List and map functions (ir layer): which one a call is, its semantics row by row (the
// reference's) and a column at a time (what evaluation computes before the kernel of the rest).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "ir/expr.h"
#include "runtime/array.h"

namespace rowjit::ir {

// In the catalog's order (ir/functions_list.cc).
enum class ListOp : uint8_t { kLen, kExtract, kContains, kSum, kMin, kMax, kAvg, kMapValue, kMapContains, kTransform, kFilter };

std::optional<ListOp> ListOpOf(const Function& f);
bool IsListCall(const Expr& e);

// The lambda of a bound list_transform or list_filter call, bound in its elements' scope: its one
// column (index 0) is the parameter. Its second argument holds it as text ('x -> x * 2'), parsed
// and bound once per text and element type (a bounded cache).
Result<ExprPtr> LambdaBody(const Expr& call);
// A lambda `param -> body` over elements of type `elem`, bound: its body, or the binder's error.
Result<ExprPtr> BindLambda(std::string_view param, const ExprPtr& body, const DataType& elem);

// A bound list function call at one row: `list` is its first argument's array (a ListArray, or
// null where a struct's row above it is null), `rest` its other arguments' values at the row.
// An error (list_sum's overflow) carries no row: the caller adds it.
Result<Scalar> EvaluateListRow(const Expr& call, const Array* list, int64_t row, std::span<const Scalar> rest);

// The call over `length` rows: `list` its first argument's ListArray, `rest` its other
// arguments' arrays (any encoding). The same values and nulls as EvaluateListRow row by row;
// rows where that fails are null in the result and listed, ascending, in `failed`.
Result<ArrayPtr> ListColumn(const Expr& call, const ListArray& list, std::span<const ArrayPtr> rest, int64_t length,
                            const std::shared_ptr<MemoryPool>& pool, std::vector<int64_t>& failed);

}  // namespace rowjit::ir
