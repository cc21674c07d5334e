// The reference evaluator: a bound expression, one row at a time, over arrays of any encoding
// (ir layer). Obviously correct rather than fast: the oracle of every differential test.
#pragma once

#include <span>
#include <vector>

#include "ir/expr.h"
#include "runtime/array.h"

namespace rowjit::ir {

// Checks that `columns` can feed `expr`: every referenced column exists with the bound type, a
// column whose bound type is not nullable has no nulls, equal lengths, valid dictionary codes.
Status CheckInputs(const Expr& expr, std::span<const ArrayPtr> columns, int64_t length);

// Row `row` of the expression. Arguments are evaluated eagerly, left to right, but guarded (SQL
// semantics, as PostgreSQL and DuckDB): an argument's errors count only in rows where it is
// taken — the then branch of `if` where the condition is true, the else branch where it is false
// or null; an argument of `coalesce` where every earlier argument is null; the right operand of
// `and` where the left is not false, of `or` where the left is not true. Guards nest. A failing
// call is an error only in a row where it is taken and every column the expression reads is
// non-null; in any other row the call yields null, which propagates like any null. This is what
// lets engines compute every row densely and branch-free.
Result<Scalar> EvaluateRow(const Expr& expr, std::span<const ArrayPtr> columns, int64_t row);

// Every row, or the error of the first failing row in row order, with the function's name.
Result<ArrayPtr> EvaluateReference(const Expr& expr, std::span<const ArrayPtr> columns,
                                   int64_t length);

// Every row of a subexpression computed on its own, a row where it raises an error taking the
// value it has where that error is not raised (each failing call yielding null), and those rows
// added to `failed` in ascending order. The whole expression decides them later (EvaluateRow):
// its guards and nulls may hide the error, and then this is the value it reads.
Result<ArrayPtr> EvaluateReferenceQuiet(const Expr& expr, std::span<const ArrayPtr> columns, int64_t length,
                                        std::vector<int64_t>& failed);

}  // namespace rowjit::ir
