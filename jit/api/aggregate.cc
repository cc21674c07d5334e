// Aggregates (jit layer, api room): Engine::Aggregate along its route (jit/plan/route.h): one
// fold kernel; the argument's rows folded by a static loop (intervals, 16-byte decimals, strings);
// integer sums in slices; string-valued calls computed first; an argument too large for one
// kernel evaluated in stages.
#include <algorithm>

#include "ir/reference.h"
#include "jit/api/engine_impl.h"

namespace rowjit::jit::internal {

Result<ir::AggregateResult> EngineImpl::Aggregate(const ir::Aggregate& agg, std::span<const ArrayPtr> columns,
                                                  int64_t length, const EvalOptions& options, EvalReport* report) {
  if (report != nullptr) *report = EvalReport{};
  if (agg.arg == nullptr) return MakeError(ErrorCode::kInvalidInput, "aggregate without argument");
  return NoThrow([&]() -> Result<ir::AggregateResult> {
    if (std::shared_ptr<PreparedAggregate> held = HeldAggregate(agg, options)) {
      return held->Aggregate(columns, length, report);
    }
    EvalReport local;  // not built on the held path: the handle has its own
    return AggregateRouted(agg, columns, length, options, report ? *report : local);
  });
}

Result<ir::AggregateResult> EngineImpl::AggregateRouted(const ir::Aggregate& agg, std::span<const ArrayPtr> columns,
                                                        int64_t length, const EvalOptions& options, EvalReport& rep) {
  return NoThrow([&]() -> Result<ir::AggregateResult> {
    ROWJIT_RETURN_NOT_OK(Admit(*agg.arg, columns, length, /*folded=*/true));
    const Route route = RouteAggregate(agg, Call(columns, length, options, false));
    rep.route = route;
    switch (route) {
      case Route::kFoldIntervals:
      case Route::kFoldSixteenByte:
      case Route::kFoldStringValues: return AggregateRows(route, agg, columns, length, options, rep);
      case Route::kFoldSliced: return AggregateSliced(agg, columns, length, options, rep);
      case Route::kFoldStrings: return AggregateStrings(agg, columns, length, options, rep);
      case Route::kFoldStaged: return AggregateStaged(agg, columns, length, options, rep);
      case Route::kFold: return AggregateKernel(agg, columns, length, options, rep);
      default: break;
    }
    return MakeError(ErrorCode::kInternal, "an aggregate routed {}", RouteName(route));
  });
}

// The argument's rows, then a static fold of them: intervals part by part, 16-byte decimals in
// 128 bits, strings in bytewise order.
Result<ir::AggregateResult> EngineImpl::AggregateRows(Route route, const ir::Aggregate& agg,
                                                      std::span<const ArrayPtr> columns, int64_t length,
                                                      const EvalOptions& options, EvalReport& rep) {
  Result<ArrayPtr> rows = Error(ErrorCode::kInternal, "no rows");
  const ir::Expr& arg = *agg.arg;
  if (arg.is_column()) {
    // A flat column the static folds read as it is: no kernel copies it first (a copy of 16 bytes
    // a row costs as much as the fold, bench: `decimal/sum30/jit`).
    ROWJIT_RETURN_NOT_OK(Admit(arg, columns, length, /*folded=*/true));
    const ArrayPtr& column = columns[static_cast<size_t>(arg.column_index())];
    if (column->encoding() == Encoding::kPrimitive && !NeedsDecoding(*column)) rows = column;
  }
  if (!rows.ok()) {
    EvalReport part;
    rows = EvaluateRouted(agg.arg, columns, length, options, part);
    rep.Merge(part);
  }
  if (!rows.ok()) return std::move(rows).TakeError();
  if (route == Route::kFoldIntervals) return FoldIntervals(agg, **rows);
  if (route == Route::kFoldSixteenByte) return FoldSixteenByte(agg, **rows);
  return FoldStrings(agg, **rows);
}

// An integer sum over more rows than one kernel call keeps exact: slices of fold_slice_rows rows,
// their sums added in 128 bits; a row error names its row in the whole batch.
Result<ir::AggregateResult> EngineImpl::AggregateSliced(const ir::Aggregate& agg, std::span<const ArrayPtr> columns,
                                                        int64_t length, const EvalOptions& options, EvalReport& rep) {
  const int64_t step = options_.fold_slice_rows;
  // A duration's slices sum exactly (decimal(38,0)): only the total must fit its i64.
  ir::Aggregate per_slice = agg;
  if (agg.result.logical == LogicalKind::kDuration) per_slice.result = DataType::Decimal(38, 0)->WithNullable(true);
  __int128 total = 0;
  bool any = false;
  for (int64_t start = 0; start < length; start += step) {
    const int64_t n = std::min(step, length - start);
    std::vector<ArrayPtr> slice;
    for (const ArrayPtr& c : columns) {
      if (c == nullptr) {
        slice.push_back(nullptr);
        continue;
      }
      ROWJIT_ASSIGN_OR_RETURN(ArrayPtr s, c->Slice(start, n));
      slice.push_back(std::move(s));
    }
    EvalReport part;
    Result<ir::AggregateResult> r = AggregateRouted(per_slice, slice, n, options, part);
    rep.Merge(part);
    if (!r.ok()) {
      Error e = r.error();
      if (e.row()) return std::move(e).WithRow(e.function(), *e.row() + start);
      return e;
    }
    if (r->value.is_null()) continue;
    any = true;
    total += r->value.int128();
  }
  const Scalar null = Scalar::Null(agg.result.id).As(agg.result);
  if (!any) return ir::AggregateResult{.value = null, .max = null};
  ROWJIT_ASSIGN_OR_RETURN(Scalar sum, ir::IntegerSumResult(total, agg.result));
  return ir::AggregateResult{.value = sum, .max = null};
}

// String-valued calls in the argument (lower(s), concat(a, b), ...) computed first, then the
// fold over those columns, routed again; rows where such a call failed on its own are decided by
// the whole argument.
Result<ir::AggregateResult> EngineImpl::AggregateStrings(const ir::Aggregate& agg, std::span<const ArrayPtr> columns,
                                                         int64_t length, const EvalOptions& options, EvalReport& rep) {
  ROWJIT_ASSIGN_OR_RETURN(StringColumns s, MaterializeStrings(agg.arg, columns, length, options));
  ir::Aggregate over = agg;
  over.arg = s.expr;
  EvalReport rest;
  Result<ir::AggregateResult> out = AggregateRouted(over, s.columns, length, options, rest);
  rep.Merge(rest);
  const int64_t limit = out.ok() || !out.error().row() ? INT64_MAX : *out.error().row();
  ROWJIT_RETURN_NOT_OK(FirstFailingRow(s.failed_rows, limit, [&](int64_t row) -> Status {
    Result<Scalar> r = ir::EvaluateRow(*agg.arg, columns, row);
    return r.ok() ? Status::OK() : Status(std::move(r).TakeError());
  }));
  return out;
}

// An argument too large for one fold kernel is evaluated (in stages) and its column folded: the
// argument's errors are the aggregate's either way.
Result<ir::AggregateResult> EngineImpl::AggregateStaged(const ir::Aggregate& agg, std::span<const ArrayPtr> columns,
                                                        int64_t length, const EvalOptions& options, EvalReport& rep) {
  const EvalOptions dense{.policy = ir::Policy::kAuto, .tier = options.tier};
  EvalReport rows;
  Result<ArrayPtr> values = EvaluateRouted(agg.arg, columns, length, dense, rows);
  rep.Merge(rows);
  if (!values.ok()) return std::move(values).TakeError();
  ir::Aggregate over_column = agg;
  over_column.arg = ir::Expr::BoundColumn("$arg", 0, (*values)->type());
  const ArrayPtr one[] = {*values};
  EvalReport fold;
  Result<ir::AggregateResult> out = AggregateRouted(over_column, one, length, options, fold);
  rep.Merge(fold);
  return out;
}

// One fold kernel over the batch as it is read.
Result<ir::AggregateResult> EngineImpl::AggregateKernel(const ir::Aggregate& agg, std::span<const ArrayPtr> columns,
                                                        int64_t length, const EvalOptions& options, EvalReport& rep) {
  ROWJIT_ASSIGN_OR_RETURN(Batch batch, ReadBatch(*agg.arg, columns, length, nullptr, /*defer_rows=*/true));
  Plan plan = PlanAggregate(agg, batch.facts);
  rep.strategy = plan.strategy;
  ROWJIT_ASSIGN_OR_RETURN(auto kernel, KernelOf(plan, WantOf(options), rep));
  const Execution run{*agg.arg, batch, &*rep.kernel, kernel.get(), outputs_, rep};
  return ExecuteFold(agg, run);
}

}  // namespace rowjit::jit::internal
