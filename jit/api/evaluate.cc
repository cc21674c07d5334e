// Rows (jit layer, api room): Engine::Evaluate and EvaluateInto along their route
// (jit/plan/route.h): a string column or literal as it is, string-valued calls computed first,
// one expression over a dictionary's values, stages, or one kernel under the planner's strategy.
#include <cassert>

#include "ir/reference.h"
#include "jit/api/engine_impl.h"
#include "jit/exec/static_chain.h"
#include "jit/plan/staging.h"

namespace rowjit::jit::internal {
namespace {

// Whether row `row` of the whole expression raises an error (the reference semantics).
Status WholeRow(const ir::Expr& expr, std::span<const ArrayPtr> columns, int64_t row) {
  Result<Scalar> r = ir::EvaluateRow(expr, columns, row);
  if (!r.ok()) return std::move(r).TakeError();
  return Status::OK();
}

}  // namespace

Result<ArrayPtr> EngineImpl::Evaluate(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns, int64_t length,
                                      const EvalOptions& options, EvalReport* report) {
  if (report != nullptr) *report = EvalReport{};
  if (expr == nullptr) return MakeError(ErrorCode::kInvalidInput, "null expression");
  return NoThrow([&]() -> Result<ArrayPtr> {
    if (std::shared_ptr<PreparedExpression> held = HeldExpression(expr, options)) {
      return held->Evaluate(columns, length, report);
    }
    EvalReport local;  // not built on the held path: the handle has its own
    return EvaluateRouted(expr, columns, length, options, report ? *report : local);
  });
}

Result<ArrayPtr> EngineImpl::EvaluateInto(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns, int64_t length,
                                          const OutputBuffers& out, const EvalOptions& options, EvalReport* report) {
  if (report != nullptr) *report = EvalReport{};
  if (expr == nullptr) return MakeError(ErrorCode::kInvalidInput, "null expression");
  if (!expr->bound()) return MakeError(ErrorCode::kInvalidInput, "expression is not bound");
  return NoThrow([&]() -> Result<ArrayPtr> {
    if (std::shared_ptr<PreparedExpression> held = HeldExpression(expr, options)) {
      return held->EvaluateInto(columns, length, out, report);
    }
    EvalReport local;  // not built on the held path: the handle has its own
    EvalReport& rep = report ? *report : local;
    const std::span<const OutputBuffers> into(&out, 1);
    ROWJIT_RETURN_NOT_OK(CheckOutputs(std::span(&expr, 1), into, length, columns));
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr result, EvaluateRouted(expr, columns, length, options, rep, into));
    return Deliver(result, out, &rep.output_copied);
  });
}

Result<ArrayPtr> EngineImpl::EvaluateRouted(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns,
                                            int64_t length, const EvalOptions& options, EvalReport& rep,
                                            std::span<const OutputBuffers> into) {
  const Route route = RouteEvaluation(*expr, Call(columns, length, options, !into.empty()));
  rep.route = route;
  const bool strings = route == Route::kStrings || route == Route::kNested || route == Route::kAsIs;
  ROWJIT_RETURN_NOT_OK(Admit(*expr, columns, length, /*folded=*/strings));
  switch (route) {
    case Route::kAsIs: return EvaluateAsIs(expr, columns, length);
    case Route::kStrings:
    case Route::kNested: return EvaluateStrings(expr, columns, length, options, rep, into);
    case Route::kOverDictionary: return EvaluateOverDictionary(expr, columns, length, options, rep);
    case Route::kStaged: return EvaluateStaged(expr, columns, length, options, rep, into);
    case Route::kKernel: return EvaluateKernel(expr, columns, length, options, rep, into);
    default: break;
  }
  return MakeError(ErrorCode::kInternal, "an evaluation routed {}", RouteName(route));
}

// A string or vector column is its own result; a literal (folded text: cast(cast('2024-02-29', date32),
// utf8)) a constant array.
Result<ArrayPtr> EngineImpl::EvaluateAsIs(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns,
                                          int64_t length) {
  if (expr->is_column()) return columns[static_cast<size_t>(expr->column_index())];
  ROWJIT_ASSIGN_OR_RETURN(ArrayPtr text, ConstantArray::Make(expr->value(), length, expr->type().nullable));
  return text;
}

// String-valued calls computed a column at a time, then the rest over those columns (routed
// again): rows where a string-valued call failed on its own are decided by the whole expression.
Result<ArrayPtr> EngineImpl::EvaluateStrings(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns,
                                             int64_t length, const EvalOptions& options, EvalReport& rep,
                                             std::span<const OutputBuffers> into) {
  ROWJIT_ASSIGN_OR_RETURN(StringColumns s, MaterializeStrings(expr, columns, length, options, &rep));
  if (s.expr->is_column()) {  // a list_sum that overflows at the root raises here
    ROWJIT_RETURN_NOT_OK(FirstFailingRow(s.failed_rows, INT64_MAX, [&](int64_t row) { return WholeRow(*expr, columns, row); }));
    return s.columns[static_cast<size_t>(s.expr->column_index())];
  }
  EvalReport rest;
  Result<ArrayPtr> out = EvaluateRouted(s.expr, s.columns, length, options, rest, into);
  rep.Merge(rest);
  const int64_t limit = out.ok() || !out.error().row() ? INT64_MAX : *out.error().row();
  ROWJIT_RETURN_NOT_OK(FirstFailingRow(s.failed_rows, limit, [&](int64_t row) { return WholeRow(*expr, columns, row); }));
  return out;
}

Result<StringColumns> EngineImpl::MaterializeStrings(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns,
                                                     int64_t length, const EvalOptions& options, EvalReport* report) {
  const EvaluateFn kernels = [&](const ir::ExprPtr& e, std::span<const ArrayPtr> cols, int64_t n) {
    EvalReport inner;
    return EvaluateRouted(e, cols, n, options, inner);
  };
  const EvaluateFn vectors = [&](const ir::ExprPtr& e, std::span<const ArrayPtr> cols, int64_t n) {
    EvalReport scored;
    Result<ArrayPtr> out = ScoreVectors(e, cols, n, scored);
    if (report != nullptr) report->Merge(scored);
    return out;
  };
  return internal::MaterializeStrings(expr, columns, length, kernels,
                                      StringResultPool(outputs_, options_.max_evaluation_bytes), vectors);
}

Result<ArrayPtr> EngineImpl::ScoreVectors(const ir::ExprPtr& call, std::span<const ArrayPtr> columns, int64_t length,
                                          EvalReport& report) {
  std::vector<KernelInput> inputs(columns.size());
  std::vector<Validity> validity;
  for (int c : call->facts().columns) {
    const Array& a = *columns[static_cast<size_t>(c)];
    // Vectors arrive flat (import, Take and the random batches make no other encoding); a host's
    // constant vector column is scored by the reference.
    if (a.encoding() != Encoding::kFixedList) return ir::EvaluateReference(*call, columns, length);
    const auto& list = static_cast<const FixedListArray&>(a);
    inputs[static_cast<size_t>(c)].values = list.raw_values();
    validity.push_back(list.validity());
  }
  const TypeId t = call->type().id;
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr values, Buffer::AllocateForOverwrite(length * ByteWidth(t), outputs_));
  if (length > 0) {
    Plan plan = PlanVectorScore(call, std::vector<ir::InputSpec>(columns.size()));
    report.strategy = plan.strategy;
    ROWJIT_ASSIGN_OR_RETURN(std::shared_ptr<const CompiledKernel> kernel, KernelOf(plan, TierWant::kOptimized, report));
    kernel->row_fn()(inputs.data(), values->mutable_data(), nullptr, length, 0);
  }
  ROWJIT_ASSIGN_OR_RETURN(Validity valid, AndValidity(validity, length));
  ROWJIT_ASSIGN_OR_RETURN(auto out, PrimitiveArray::Make(call->type(), length, std::move(values), std::move(valid)));
  return ArrayPtr(std::move(out));
}

// The expression over the values of the dictionary in its one column, then gathered through
// its codes.
Result<ArrayPtr> EngineImpl::EvaluateOverDictionary(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns,
                                                    int64_t length, const EvalOptions& options, EvalReport& rep) {
  const std::optional<int> column = OverDictionaryColumn(*expr, columns, length);
  assert(column && "the route found the column");
  const auto& d = static_cast<const DictionaryArray&>(*columns[*column]);
  std::vector<ArrayPtr> over(columns.begin(), columns.end());
  over[static_cast<size_t>(*column)] = d.values();
  EvalReport values;
  Result<ArrayPtr> per_value = EvaluateRouted(expr, over, d.values()->length(), options, values);
  rep.Merge(values);
  if (!per_value.ok()) return per_value;
  // Rows with a null code: the expression with its column null (is_null, coalesce, ...).
  Scalar null_row = Scalar::Null(expr->type().id).As(expr->type());
  if (d.codes()->NullCount() > 0) {
    ROWJIT_ASSIGN_OR_RETURN(over[static_cast<size_t>(*column)],
                            ConstantArray::Make(Scalar::Null(d.type().id).As(d.type()), 1, true));
    ROWJIT_ASSIGN_OR_RETURN(null_row, ir::EvaluateRow(*expr, over, 0));
  }
  return GatherThroughCodes(**per_value, null_row, d, outputs_);
}

// Stages run one after another, each result a column of the next. A stage reads fewer columns
// than the whole expression, so its error may lie behind a null of a column it does not read,
// where the whole expression yields null instead: on any row error the whole expression is
// checked with the reference semantics (its first failing row, or its values when no row fails).
// Slow, but only on that path, and exact.
Result<ArrayPtr> EngineImpl::EvaluateStaged(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns,
                                            int64_t length, const EvalOptions& options, EvalReport& rep,
                                            std::span<const OutputBuffers> into) {
  const Stages staged = SplitIntoStages(expr, static_cast<int>(columns.size()), options_.max_kernel_nodes);
  std::vector<ArrayPtr> cols(columns.begin(), columns.end());
  Result<ArrayPtr> out = Error(ErrorCode::kInternal, "no stage ran");
  for (size_t k = 0; k <= staged.stages.size(); ++k) {
    const ir::ExprPtr& stage = k < staged.stages.size() ? staged.stages[k] : staged.root;
    EvalReport part;
    // The root stage writes the caller's output, when one was lent.
    out = EvaluateRouted(stage, cols, length, options, part, stage == staged.root ? into : std::span<const OutputBuffers>());
    assert(part.route != Route::kStaged && "a stage fits one kernel");
    rep.Merge(part);
    if (!out.ok()) break;
    cols.push_back(*out);
  }
  if (out.ok() || !out.error().row().has_value()) return out;
  rep.cold_pass = true;
  return ir::EvaluateReference(*expr, columns, length);
}

// One kernel (or none) under the planner's strategy for the read batch.
Result<ArrayPtr> EngineImpl::EvaluateKernel(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns,
                                            int64_t length, const EvalOptions& options, EvalReport& rep,
                                            std::span<const OutputBuffers> into) {
  void* rows_into = into.empty() ? nullptr : into[0].validity;
  ROWJIT_ASSIGN_OR_RETURN(Batch batch, ReadBatch(*expr, columns, length, rows_into));
  ApplyRetryPressure(*expr, options.policy, batch);
  batch.facts.stream_output = StreamsOutput(*expr, batch.facts, into);
  Plan plan = PlanEvaluation(expr, batch.facts, options.policy);
  rep.strategy = plan.strategy;
  return RunPlan(*expr, batch, plan, options, rep, nullptr, into);
}

// The static tier, while the optimized kernel of an expression the static chain covers is not
// ready: the chain answers with no compile at all. A row that fails, or a batch the chain does
// not take (every row null), returns nothing: the fast kernel answers, and its error is the JIT's.
std::optional<ArrayPtr> EngineImpl::StaticTier(const ir::Expr& expr, std::span<const ArrayPtr> columns,
                                               int64_t length, const Plan& plan, EvalReport& report) {
  Result<StaticChainRun> chain = RunStaticChain(expr, columns, length, outputs_);
  if (!chain.ok() || chain->failed_row >= 0 || chain->result == nullptr) return std::nullopt;
  report.tier = Tier::kStatic;
  report.source = KernelSource::kMemory;
  report.kernel = plan.kernel;  // the kernel compiling for this expression
  return std::move(chain->result);
}

Result<ArrayPtr> EngineImpl::RunPlan(const ir::Expr& expr, const Batch& batch, Plan& plan, const EvalOptions& options,
                                     EvalReport& rep, std::shared_ptr<const CompiledKernel>* ran,
                                     std::span<const OutputBuffers> into) {
  TierWant want = WantOf(options);
  std::optional<KernelCache::Lookup> ready;
  if (want == TierWant::kTiered && plan.kernel) {
    // One lookup: the optimized kernel when it is ready (the warm path); else it starts
    // compiling, and the static tier or the fast kernel answers.
    ROWJIT_ASSIGN_OR_RETURN(KernelCache::Lookup found, cache_.Get(*plan.kernel, TierWant::kOptimizedIfReady));
    if (found.kernel != nullptr) {
      ready = std::move(found);
    } else {
      if (StaticChainCovers(expr, batch.columns)) {
        if (std::optional<ArrayPtr> out = StaticTier(expr, batch.columns, batch.facts.length, plan, rep)) return *out;
      }
      want = TierWant::kFast;  // not a second use: the optimized compile is already handled
    }
  }
  ROWJIT_ASSIGN_OR_RETURN(auto kernel, KernelOf(plan, want, rep, std::move(ready)));
  // A speculative kernel's exact twin, when its evidence asks for it: the report then names it,
  // `twin` keeps it alive for the run, and `ran` stays the planned kernel (whose memory sends the
  // twin later batches).
  std::shared_ptr<const CompiledKernel> twin;
  auto find_twin = [&]() -> Result<ExactTwin> {
    Plan exact{plan.strategy, *rep.kernel};
    exact.kernel->shape.speculative_mul = false;
    ROWJIT_ASSIGN_OR_RETURN(twin, KernelOf(exact, want, rep));
    return ExactTwin{twin.get(), &*rep.kernel};
  };
  const FindExactTwin exact_twin(find_twin);
  const bool speculates = kernel != nullptr && kernel->shape().speculative_mul;
  const Execution run{expr, batch, rep.kernel ? &*rep.kernel : nullptr, kernel.get(), outputs_, rep, into,
                      speculates ? &exact_twin : nullptr};
  Result<ArrayPtr> out = ExecuteRows(plan.strategy, run);
  if (out.ok() && rep.retried && options.policy == ir::Policy::kAuto) {
    RaiseRetryPressure(rep.kernel->spec.expr, batch, options, rep);
  }
  if (ran != nullptr) *ran = std::move(kernel);
  return out;
}

}  // namespace rowjit::jit::internal
