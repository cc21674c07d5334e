// What `rowjit eval`'s two halves share: the summary (tools/eval_command.cc) and the rows of
// --print and --output (tools/eval_rows.cc) (tools layer).
#pragma once

#include <string>
#include <utility>

#include "ir/expr.h"
#include "jit/api/engine.h"
#include "runtime/array.h"
#include "runtime/selection.h"
#include "tools/commands.h"
#include "tools/csv_input.h"

namespace rowjit::cli {

// "price * qty as total" -> {"price * qty", "total"}; an expression without a trailing
// `as NAME` (outside parentheses and quotes) is its own name.
std::pair<std::string, std::string> SplitName(const std::string& text);

// The reference evaluator's selection for a predicate: the rows where it is true (null is false).
Result<SelectionVector> ReferenceSelection(const ir::Expr& pred, const RecordBatch& batch);
// The reference evaluator over the selected rows; an error names its batch row.
Result<ArrayPtr> ReferenceUnder(const ir::Expr& expr, const RecordBatch& batch,
                                const SelectionVector& sel);

// `--print N` / `--output FILE`: evaluates EXPR and every --expr (or the aggregate) under --filter,
// and writes the rows (with --verify, checked against the reference first). A failing row is
// printed on stderr with its row (and line of the CSV input) and exits 1.
int EvalRows(const EvalOptions& o, const RecordBatch& batch, const CsvInput* input,
             jit::Engine& engine, const jit::EvalOptions& eval_options);

}  // namespace rowjit::cli
