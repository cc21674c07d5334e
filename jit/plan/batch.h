// A batch read for one call (jit layer, plan room): each input the expression reads decoded
// where kernels cannot read it as it is, described (shape, type, nulls) for the route and the
// planner, and the AND of the inputs' validity taken for strict-row expressions. The planner
// reads its facts; the executor runs kernels over its columns.
#pragma once

#include <span>
#include <vector>

#include "ir/expr.h"
#include "jit/plan/planner.h"
#include "runtime/array.h"
#include "runtime/validity.h"

namespace rowjit::jit::internal {

// One batch as a call reads it: inputs decoded where kernels cannot read them, and what
// the planner needs to know of it.
struct Batch {
  Batch() = default;
  Batch(Batch&&) = default;  // `columns` may point into `normalized`: moved, never copied
  Batch& operator=(Batch&&) = default;
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;

  // One per schema column, referenced ones normalized: the caller's columns, or `normalized`
  // when one had to be decoded or copied (a moved Batch keeps the vector's storage).
  std::span<const ArrayPtr> columns;
  std::vector<ArrayPtr> normalized = {};
  Validity rows = Validity::AllValid();   // AND of the referenced inputs' validity (strict-row
                                          // expressions; all valid for the others; not taken
                                          // when ReadBatch deferred it: then only facts.rows)
  BatchFacts facts;
};

// Reads a batch for `expr`: dictionaries the kernels cannot read become flat, value buffers not
// aligned to their element width are copied (an Arrow producer may hand us any), each referenced
// input is described, and for strict-row expressions the AND of the inputs' validity is taken.
// `rows_into`: caller memory of kernels::NumWords(length) words (the validity buffer it lent for
// the output) where that AND is computed when it needs a bitmap of its own; null: a fresh one.
// `defer_rows`: no AND is taken, only facts.rows set (Aggregate: fold kernels read the inputs'
// validity words themselves).
Result<Batch> ReadBatch(const ir::Expr& expr, std::span<const ArrayPtr> columns, int64_t length,
                        void* rows_into = nullptr, bool defer_rows = false);
// ReadBatch's last step: for a strict-row expression over inputs with nulls (`any_nulls`), the
// AND of the referenced columns' validity into batch.rows and batch.facts.rows.
Status ReadRows(const ir::Expr& expr, bool any_nulls, Batch& batch, void* rows_into = nullptr,
                bool defer_rows = false);
// The facts of `batch` (`expr` strict-row, rows with nulls) for a valid-only plan:
// prefer_valid_only set and the surviving fraction counted, which the planner's choice between
// branch-and-skip and filter-and-scatter reads; the inputs described if the batch was read
// without them (ReadRows alone). The engine plans from these both the batches that owe
// valid-only runs and, in the call whose retry made them owe them, the kernel those batches will
// run: the two name the same kernel.
BatchFacts ValidOnlyFacts(const ir::Expr& expr, const Batch& batch);
// Whether kernels cannot read `array` as it is: a dictionary of bools or of values with nulls,
// or values not aligned to their width. ReadBatch decodes such columns to flat ones.
bool NeedsDecoding(const Array& array);

}  // namespace rowjit::jit::internal
