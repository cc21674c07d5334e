// Filters and evaluation under a selection (jit layer, api room): Engine::Filter turns a bool
// expression into the selection of rows where it is true; Engine::Evaluate with a selection
// computes the selected rows only (Gandiva's convention: the result has one row per selected
// row), the whole batch or the gathered rows by the route (RouteSelection).
#include <algorithm>

#include "ir/reference.h"
#include "jit/api/engine_impl.h"
#include "kernels/bitmap.h"
#include "runtime/selection.h"

namespace rowjit::jit::internal {
namespace {

bool Selected(const SelectionVector& s, int64_t row) {
  const std::span<const uint32_t> rows = s.indices();
  return std::binary_search(rows.begin(), rows.end(), static_cast<uint32_t>(row));
}

}  // namespace

Result<SelectionVector> TrueRows(const Array& a, const std::shared_ptr<MemoryPool>& pool) {
  const int64_t n = a.length();
  switch (a.encoding()) {
    case Encoding::kConstant: {
      const Scalar& v = static_cast<const ConstantArray&>(a).value();
      if (!v.is_null() && v.value<bool>()) return SelectionVector::All(n, pool);
      return SelectionVector::FromIndices({}, n);
    }
    case Encoding::kByteBool: {
      ROWJIT_ASSIGN_OR_RETURN(auto bits, static_cast<const ByteBoolArray&>(a).ToBool());
      return TrueRows(*bits, pool);
    }
    case Encoding::kBool: {
      const auto& b = static_cast<const BoolArray&>(a);
      const Validity& v = b.validity();
      if (v.all_null()) return SelectionVector::FromIndices({}, n);
      if (!v.has_bitmap()) return SelectionVector::FromBitmap(b.bits(), pool);
      ROWJIT_ASSIGN_OR_RETURN(BufferPtr both, Buffer::AllocateForOverwrite(kernels::NumBytes(n), pool));
      kernels::BitmapAnd(b.bits(), v.Span(n), both->mutable_data());
      return SelectionVector::FromBitmap({both->data(), 0, n}, pool);
    }
    default:
      return MakeError(ErrorCode::kInternal, "filter: a predicate result of encoding {}", EncodingName(a.encoding()));
  }
}

Error AtBatchRow(Error e, const SelectionVector& s) {
  if (!e.row().has_value() || *e.row() < 0 || *e.row() >= s.size()) return e;
  std::string function = e.function();
  const int64_t row = s[*e.row()];
  return std::move(e).WithRow(std::move(function), row);
}

Result<std::vector<ArrayPtr>> TakeInputs(const ir::Expr& expr, std::span<const ArrayPtr> columns, int64_t length,
                                         const SelectionVector& selection, const std::shared_ptr<MemoryPool>& pool) {
  if (!expr.bound()) return MakeError(ErrorCode::kInvalidInput, "expression is not bound");
  for (int c : expr.facts().columns) {
    if (static_cast<size_t>(c) >= columns.size() || columns[static_cast<size_t>(c)] == nullptr) {
      return MakeError(ErrorCode::kInvalidInput, "column {} is missing", c);
    }
  }
  if (selection.batch_length() != length) {
    return MakeError(ErrorCode::kInvalidInput, "a selection of a batch of {} rows over a batch of {}",
                     selection.batch_length(), length);
  }
  std::vector<ArrayPtr> taken(columns.size());
  for (int c : expr.facts().columns) {
    ROWJIT_ASSIGN_OR_RETURN(taken[static_cast<size_t>(c)], SelectView(columns[static_cast<size_t>(c)], selection, pool));
  }
  return taken;
}

Result<ArrayPtr> RunSelected(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns, int64_t length,
                             const SelectionVector& selection, const std::shared_ptr<MemoryPool>& pool,
                             const RowsFn& rows) {
  if (expr == nullptr) return MakeError(ErrorCode::kInvalidInput, "no expression");
  if (selection.batch_length() != length) {
    return MakeError(ErrorCode::kInvalidInput, "a selection of a batch of {} rows over a batch of {}",
                     selection.batch_length(), length);
  }
  if (RouteSelection(*expr, columns, length, selection.size()) == SelectionWay::kWhole) {
    Result<ArrayPtr> whole = rows(columns, length, false);
    if (whole.ok()) return Take(**whole, selection, pool);
    const std::optional<int64_t>& row = whole.error().row();
    if (!row.has_value() || Selected(selection, *row)) return whole;
    // The first failing row is not selected: a selected row may still fail, which the gathered
    // way finds (it raises only selected rows).
  }
  // The whole batch's inputs are checked either way (the whole way checks them in Evaluate), so
  // that whether a call fails on bad input does not depend on the fraction selected.
  ROWJIT_RETURN_NOT_OK(ir::CheckInputs(*expr, columns, length));
  ROWJIT_ASSIGN_OR_RETURN(std::vector<ArrayPtr> taken, TakeInputs(*expr, columns, length, selection, pool));
  Result<ArrayPtr> out = rows(taken, selection.size(), true);
  if (!out.ok()) return AtBatchRow(std::move(out).TakeError(), selection);
  return out;
}

Result<ArrayPtr> EngineImpl::EvaluateSelected(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns,
                                              int64_t length, const SelectionVector& selection,
                                              const EvalOptions& options, EvalReport* report) {
  return RunSelected(expr, columns, length, selection, outputs_, [&](std::span<const ArrayPtr> cols, int64_t n, bool) {
    return Evaluate(expr, cols, n, options, report);
  });
}

Result<ArrayPtr> EngineImpl::EvaluateSelectedInto(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns,
                                                  int64_t length, const SelectionVector& selection,
                                                  const OutputBuffers& out, const EvalOptions& options,
                                                  EvalReport* report) {
  if (expr == nullptr) return MakeError(ErrorCode::kInvalidInput, "no expression");
  if (!expr->bound()) return MakeError(ErrorCode::kInvalidInput, "expression is not bound");
  ROWJIT_RETURN_NOT_OK(CheckOutputs(std::span(&expr, 1), std::span(&out, 1), selection.size(), columns));
  EvalReport local;
  EvalReport& rep = report ? *report : local;
  // The gathered way's kernel writes the caller's memory; the whole way's result is taken.
  ROWJIT_ASSIGN_OR_RETURN(ArrayPtr result,
                          RunSelected(expr, columns, length, selection, outputs_,
                                      [&](std::span<const ArrayPtr> cols, int64_t n, bool gathered) {
                                        return gathered ? EvaluateInto(expr, cols, n, out, options, &rep)
                                                        : Evaluate(expr, cols, n, options, &rep);
                                      }));
  return NoThrow([&] { return Deliver(result, out, &rep.output_copied); });
}

Result<SelectionVector> EngineImpl::Filter(const ir::ExprPtr& predicate, std::span<const ArrayPtr> columns,
                                           int64_t length, const SelectionVector* selection,
                                           const EvalOptions& options, EvalReport* report) {
  if (predicate == nullptr) return MakeError(ErrorCode::kInvalidInput, "no predicate");
  if (predicate->bound() && predicate->type().id != TypeId::kBool) {
    return MakeError(ErrorCode::kTypeError, "a filter's predicate is bool, not {}", predicate->type().ToString());
  }
  if (selection == nullptr) {
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr result, Evaluate(predicate, columns, length, options, report));
    return TrueRows(*result, outputs_);
  }
  ROWJIT_ASSIGN_OR_RETURN(ArrayPtr result, EvaluateSelected(predicate, columns, length, *selection, options, report));
  ROWJIT_ASSIGN_OR_RETURN(SelectionVector inner, TrueRows(*result, outputs_));
  return selection->Compose(inner, outputs_);
}

}  // namespace rowjit::jit::internal
