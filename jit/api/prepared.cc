// Prepared expressions (jit layer, api room): the host's handle for one expression evaluated
// batch after batch. Engine::Evaluate routes and plans every call and finds its kernel through
// the cache (hashing and comparing the whole expression tree); a prepared expression does that
// once per batch layout and keeps the plan and the kernel, so that a call on a known layout costs
// its input checks, one read of the batch and the kernel run. Calls whose route is not one kernel
// over the batch as it is take the engine's path.
#include "jit/api/prepared_internal.h"

namespace rowjit::jit::internal {

struct PreparedExpressionState {
  EngineImpl* engine;
  ir::ExprPtr expr;
  EvalOptions options;
  LayoutTable layouts;
  // A handle the engine holds for its one-shot calls: its runs on a held kernel, counted
  // (CacheStats::held); null for a host's own handle.
  std::atomic<int64_t>* held_runs = nullptr;

  // `full_report`: the caller asked for a report, so that the kernel key is copied into it.
  // `into`: the caller's output, when it lent one.
  Result<ArrayPtr> Run(std::span<const ArrayPtr> columns, int64_t length, EvalReport& rep, bool full_report,
                       std::span<const OutputBuffers> into);
  Result<ArrayPtr> PlanAndRun(std::span<const ArrayPtr> columns, int64_t length, EvalReport& rep,
                              std::span<const OutputBuffers> into);
  // The exact twin of a layout's speculative kernel, compiled (in the tier the layout holds) the
  // first time a batch needs it and held by the layout from then on (no cache lookup when the
  // kernel sends it later batches).
  Result<ExactTwin> TwinOf(const PreparedLayout& layout, EvalReport& rep);
};

Result<ExactTwin> PreparedExpressionState::TwinOf(const PreparedLayout& layout, EvalReport& rep) {
  if (!layout.has_twin.load(std::memory_order_acquire)) {  // set once, never changed after
    std::lock_guard lock(layout.twin_mu);
    if (!layout.has_twin.load(std::memory_order_relaxed)) {
      Plan exact{layout.strategy, *layout.key};
      exact.kernel->shape.speculative_mul = false;
      const TierWant want = options.tier == Tier::kFast ? TierWant::kFast : TierWant::kOptimized;
      ROWJIT_ASSIGN_OR_RETURN(layout.twin_kernel, engine->KernelOf(exact, want, rep));
      layout.twin_key = rep.kernel;
      layout.has_twin.store(true, std::memory_order_release);
    }
  }
  rep.kernel = layout.twin_key;
  rep.tier = layout.twin_kernel->tier();
  return ExactTwin{layout.twin_kernel.get(), &*layout.twin_key};
}

// A layout seen for the first time: read, planned and run as Engine::Evaluate's kernel route
// does it, and kept when the run succeeded with one plain kernel (or none) that may be held.
Result<ArrayPtr> PreparedExpressionState::PlanAndRun(std::span<const ArrayPtr> columns, int64_t length,
                                                     EvalReport& rep, std::span<const OutputBuffers> into) {
  void* rows_into = into.empty() ? nullptr : into[0].validity;
  ROWJIT_ASSIGN_OR_RETURN(Batch batch, ReadBatch(*expr, columns, length, rows_into));
  batch.facts.stream_output = engine->StreamsOutput(*expr, batch.facts, into);
  Plan plan = PlanEvaluation(expr, batch.facts, options.policy);
  rep.strategy = plan.strategy;
  auto layout = std::make_unique<PreparedLayout>();
  layout->rows = batch.facts.rows;
  layout->stream_output = batch.facts.stream_output;
  layout->short_batch = IsShortBatch(length);
  layout->route = rep.route;
  layout->strategy = plan.strategy;
  for (int c : expr->facts().columns) layout->inputs.push_back(batch.facts.inputs[c]);
  const bool needs_kernel = plan.kernel.has_value();
  // The layout holds the planned key and kernel: RunPlan moves the key into the report, which
  // names the exact twin instead when a speculative kernel handed it the batch.
  std::optional<CacheKey> planned = plan.kernel;
  Result<ArrayPtr> out = engine->RunPlan(*expr, batch, plan, options, rep, &layout->kernel, into);
  // Not kept: a failed run (its compile may succeed next time), a length-0 batch (planned by its
  // length, not its layout), and a kernel of a tier the options do not want held.
  const bool keep = out.ok() && plan.strategy != Strategy::kEmpty &&
                    (needs_kernel ? layout->kernel != nullptr && rep.kernel.has_value() &&
                                        Holdable(*layout->kernel, options)
                                  : layout->kernel == nullptr);
  if (keep) {
    layout->key = std::move(planned);
    layouts.Keep(std::move(layout));
  }
  return out;
}

Result<ArrayPtr> PreparedExpressionState::Run(std::span<const ArrayPtr> columns, int64_t length, EvalReport& rep,
                                              bool full_report, std::span<const OutputBuffers> into) {
  const ir::ExprFacts& f = expr->facts();
  // The route, as Engine::Evaluate's: only the kernel route's layouts are held (the others take
  // the engine's path, which checks the inputs first).
  const Route route = RouteEvaluation(*expr, engine->Call(columns, length, options, !into.empty()));
  if (route != Route::kKernel) return engine->EvaluateRouted(expr, columns, length, options, rep, into);
  ROWJIT_RETURN_NOT_OK(engine->Admit(*expr, columns, length));
  rep.route = route;
  const BatchInputs inputs(f.columns, columns);
  // Inputs the kernels cannot read as they are: Evaluate's path decodes them (once).
  if (length == 0 || inputs.decode) return engine->EvaluateRouted(expr, columns, length, options, rep, into);
  Batch batch;
  batch.columns = columns;
  batch.facts.length = length;
  ROWJIT_RETURN_NOT_OK(ReadRows(*expr, inputs.any_nulls, batch, into.empty() ? nullptr : into[0].validity));
  // Valid-only runs owed to retry pressure: planned per batch by Evaluate's path.
  if (options.policy == ir::Policy::kAuto && f.can_fail && batch.facts.rows == BatchFacts::Rows::kSomeNull &&
      engine->retry_pressure().Pressured(*expr)) {
    return engine->EvaluateRouted(expr, columns, length, options, rep, into);
  }
  int64_t input_row_bytes = 0;
  for (size_t k = 0; k < f.columns.size(); ++k) input_row_bytes += std::max(ByteWidth(inputs[k].type), 1);
  const bool stream = engine->StreamsOutput(*expr, length, input_row_bytes, into);
  const PreparedLayout* layout = layouts.Find(inputs, f.columns.size(), batch.facts.rows, stream, IsShortBatch(length));
  if (layout == nullptr) return PlanAndRun(columns, length, rep, into);
  rep.strategy = layout->strategy;
  const CompiledKernel* kernel = layout->kernel.get();
  const CacheKey* key = layout->key ? &*layout->key : nullptr;
  if (kernel != nullptr) rep.tier = kernel->tier();
  if (full_report && key != nullptr) rep.kernel = *key;
  if (held_runs != nullptr && kernel != nullptr) held_runs->fetch_add(1, std::memory_order_relaxed);
  auto find_twin = [&] { return TwinOf(*layout, rep); };
  const FindExactTwin exact_twin(find_twin);
  const bool speculates = kernel != nullptr && kernel->shape().speculative_mul;
  const Execution run{*expr, batch, key, kernel, engine->outputs(), rep, into, speculates ? &exact_twin : nullptr};
  Result<ArrayPtr> out = ExecuteRows(layout->strategy, run);
  if (out.ok() && rep.retried && options.policy == ir::Policy::kAuto) {
    engine->RaiseRetryPressure(expr, batch, options, rep);
  }
  return out;
}

Result<std::unique_ptr<PreparedExpression>> EngineImpl::PrepareExpression(const ir::ExprPtr& expr,
                                                                          const EvalOptions& options,
                                                                          std::atomic<int64_t>* held_runs) {
  if (expr == nullptr) return MakeError(ErrorCode::kInvalidInput, "null expression");
  return NoThrow([&]() -> Result<std::unique_ptr<PreparedExpression>> {
    if (!expr->bound()) return MakeError(ErrorCode::kInvalidInput, "expression is not bound");
    ROWJIT_RETURN_NOT_OK(ir::CheckLimits(expr->facts(), options_.limits));
    auto state = std::make_unique<PreparedExpressionState>();
    state->engine = this;
    state->expr = expr;
    state->options = options;
    state->held_runs = held_runs;
    std::unique_ptr<PreparedExpression> handle(new PreparedExpression());
    handle->state_ = std::move(state);
    return handle;
  });
}

// The handle Engine::Evaluate and EvaluateInto hold for `expr` under `options`: keyed by the
// expression and the options' tag.
std::shared_ptr<PreparedExpression> EngineImpl::HeldExpression(const ir::ExprPtr& expr, const EvalOptions& options) {
  if (!expr->bound()) return nullptr;
  return held_exprs_.Find(expr, OptionsTag(options), [&]() { return PrepareExpression(expr, options, &held_runs_); });
}

}  // namespace rowjit::jit::internal

namespace rowjit::jit {

using internal::ReportOf;

PreparedExpression::PreparedExpression() = default;
PreparedExpression::~PreparedExpression() = default;

const ir::ExprPtr& PreparedExpression::expr() const { return state_->expr; }

size_t PreparedExpression::layouts() const { return state_->layouts.size(); }

Result<ArrayPtr> PreparedExpression::Evaluate(std::span<const ArrayPtr> columns, int64_t length,
                                              EvalReport* report) {
  EvalReport local;
  EvalReport& rep = ReportOf(report, local);
  return NoThrow([&] { return state_->Run(columns, length, rep, report != nullptr, {}); });
}

Result<ArrayPtr> PreparedExpression::EvaluateInto(std::span<const ArrayPtr> columns, int64_t length,
                                                  const OutputBuffers& out, EvalReport* report) {
  EvalReport local;
  EvalReport& rep = ReportOf(report, local);
  return NoThrow([&]() -> Result<ArrayPtr> {
    const std::span<const OutputBuffers> into(&out, 1);
    ROWJIT_RETURN_NOT_OK(internal::CheckOutputs(std::span(&state_->expr, 1), into, length, columns));
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr result, state_->Run(columns, length, rep, report != nullptr, into));
    return internal::Deliver(result, out, &rep.output_copied);
  });
}

Result<ArrayPtr> PreparedExpression::Evaluate(std::span<const ArrayPtr> columns, int64_t length,
                                              const SelectionVector& selection, EvalReport* report) {
  return internal::RunSelected(state_->expr, columns, length, selection, state_->engine->outputs(),
                               [&](std::span<const ArrayPtr> cols, int64_t n, bool) { return Evaluate(cols, n, report); });
}

Result<SelectionVector> PreparedExpression::Filter(std::span<const ArrayPtr> columns, int64_t length,
                                                   EvalReport* report) {
  if (state_->expr->type().id != TypeId::kBool) {
    return MakeError(ErrorCode::kTypeError, "a filter's predicate is bool, not {}", state_->expr->type().ToString());
  }
  ROWJIT_ASSIGN_OR_RETURN(ArrayPtr result, Evaluate(columns, length, report));
  return internal::TrueRows(*result, state_->engine->outputs());
}

Result<SelectionVector> PreparedExpression::Filter(std::span<const ArrayPtr> columns, int64_t length,
                                                   const SelectionVector& selection, EvalReport* report) {
  if (state_->expr->type().id != TypeId::kBool) {
    return MakeError(ErrorCode::kTypeError, "a filter's predicate is bool, not {}", state_->expr->type().ToString());
  }
  ROWJIT_ASSIGN_OR_RETURN(ArrayPtr result, Evaluate(columns, length, selection, report));
  ROWJIT_ASSIGN_OR_RETURN(SelectionVector inner, internal::TrueRows(*result, state_->engine->outputs()));
  return selection.Compose(inner, state_->engine->outputs());
}

}  // namespace rowjit::jit
