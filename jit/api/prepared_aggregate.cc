// Prepared aggregates (jit layer, api room): a reduction template folded batch after batch,
// planned once per batch layout with its fold kernel held, where Engine::Aggregate routes, plans
// and looks up the cache (hashing the whole argument tree) every call. Calls whose route is not
// one fold kernel (Route::kFold) take the engine's path.
#include "jit/api/prepared_internal.h"

namespace rowjit::jit::internal {

struct PreparedAggregateState {
  EngineImpl* engine;
  ir::Aggregate agg;
  EvalOptions options;
  LayoutTable layouts;
  // A handle the engine holds for its one-shot calls: its runs on a held kernel, counted
  // (CacheStats::held); null for a host's own handle.
  std::atomic<int64_t>* held_runs = nullptr;

  // `full_report`: the caller asked for a report, so that the kernel key is copied into it.
  Result<ir::AggregateResult> Run(std::span<const ArrayPtr> columns, int64_t length, EvalReport& rep,
                                  bool full_report);
  Result<ir::AggregateResult> PlanAndRun(std::span<const ArrayPtr> columns, int64_t length, EvalReport& rep);
};

// A layout seen for the first time: read, planned and folded as Engine::Aggregate's fold route
// does it, and kept when the fold succeeded with a kernel of the tier the options hold.
Result<ir::AggregateResult> PreparedAggregateState::PlanAndRun(std::span<const ArrayPtr> columns, int64_t length,
                                                               EvalReport& rep) {
  ROWJIT_ASSIGN_OR_RETURN(Batch batch, ReadBatch(*agg.arg, columns, length, nullptr, /*defer_rows=*/true));
  Plan plan = PlanAggregate(agg, batch.facts);
  rep.strategy = plan.strategy;
  auto layout = std::make_unique<PreparedLayout>();
  layout->rows = batch.facts.rows;
  layout->route = rep.route;
  layout->strategy = plan.strategy;
  for (int c : agg.arg->facts().columns) layout->inputs.push_back(batch.facts.inputs[c]);
  std::optional<CacheKey> planned = plan.kernel;
  ROWJIT_ASSIGN_OR_RETURN(std::shared_ptr<const CompiledKernel> kernel,
                          engine->KernelOf(plan, engine->WantOf(options), rep));
  const Execution run{*agg.arg, batch, &*rep.kernel, kernel.get(), engine->outputs(), rep};
  Result<ir::AggregateResult> out = ExecuteFold(agg, run);
  if (out.ok() && kernel != nullptr && Holdable(*kernel, options)) {
    layout->key = std::move(planned);
    layout->kernel = std::move(kernel);
    layouts.Keep(std::move(layout));
  }
  return out;
}

Result<ir::AggregateResult> PreparedAggregateState::Run(std::span<const ArrayPtr> columns, int64_t length,
                                                        EvalReport& rep, bool full_report) {
  // The route, as Engine::Aggregate's: only the fold kernel's layouts are held.
  const Route route = RouteAggregate(agg, engine->Call(columns, length, options, false));
  if (route != Route::kFold) return engine->AggregateRouted(agg, columns, length, options, rep);
  ROWJIT_RETURN_NOT_OK(engine->Admit(*agg.arg, columns, length, /*folded=*/true));
  rep.route = route;
  const ir::ExprFacts& f = agg.arg->facts();
  const BatchInputs inputs(f.columns, columns);
  // Inputs the kernels cannot read as they are: the engine's path decodes them (once).
  if (inputs.decode) return engine->AggregateRouted(agg, columns, length, options, rep);
  Batch batch;
  batch.columns = columns;
  batch.facts.length = length;
  ROWJIT_RETURN_NOT_OK(ReadRows(*agg.arg, inputs.any_nulls, batch, nullptr, /*defer_rows=*/true));
  const PreparedLayout* layout = layouts.Find(inputs, f.columns.size(), batch.facts.rows);
  if (layout == nullptr) return PlanAndRun(columns, length, rep);
  rep.strategy = layout->strategy;
  rep.tier = layout->kernel->tier();
  if (full_report) rep.kernel = *layout->key;
  if (held_runs != nullptr) held_runs->fetch_add(1, std::memory_order_relaxed);
  const Execution run{*agg.arg, batch, &*layout->key, layout->kernel.get(), engine->outputs(), rep};
  return ExecuteFold(agg, run);
}

Result<std::unique_ptr<PreparedAggregate>> EngineImpl::PrepareAggregate(const ir::Aggregate& aggregate,
                                                                        const EvalOptions& options,
                                                                        std::atomic<int64_t>* held_runs) {
  if (aggregate.arg == nullptr) return MakeError(ErrorCode::kInvalidInput, "aggregate without argument");
  return NoThrow([&]() -> Result<std::unique_ptr<PreparedAggregate>> {
    const ir::ExprPtr& arg = aggregate.arg;
    if (!arg->bound()) return MakeError(ErrorCode::kInvalidInput, "aggregate argument is not bound");
    ROWJIT_RETURN_NOT_OK(ir::CheckLimits(arg->facts(), options_.limits));
    auto state = std::make_unique<PreparedAggregateState>();
    state->engine = this;
    state->agg = aggregate;
    state->options = options;
    state->held_runs = held_runs;
    std::unique_ptr<PreparedAggregate> handle(new PreparedAggregate());
    handle->state_ = std::move(state);
    return handle;
  });
}

// The handle Engine::Aggregate holds for `agg` under `options`: keyed by its argument, with the
// kind and NaN rule in the tag; a handle made for another result type (a caller's own aggregate
// over the same argument) is not used.
std::shared_ptr<PreparedAggregate> EngineImpl::HeldAggregate(const ir::Aggregate& agg, const EvalOptions& options) {
  if (!agg.arg->bound()) return nullptr;
  const uint64_t tag = OptionsTag(options) | uint64_t{static_cast<uint8_t>(agg.kind)} << 16 | uint64_t{agg.keep_nan} << 24;
  std::shared_ptr<PreparedAggregate> held =
      held_aggregates_.Find(agg.arg, tag, [&]() { return PrepareAggregate(agg, options, &held_runs_); });
  return held != nullptr && held->aggregate().result == agg.result ? held : nullptr;
}

}  // namespace rowjit::jit::internal

namespace rowjit::jit {

PreparedAggregate::PreparedAggregate() = default;
PreparedAggregate::~PreparedAggregate() = default;

const ir::Aggregate& PreparedAggregate::aggregate() const { return state_->agg; }

size_t PreparedAggregate::layouts() const { return state_->layouts.size(); }

Result<ir::AggregateResult> PreparedAggregate::Aggregate(std::span<const ArrayPtr> columns, int64_t length,
                                                         EvalReport* report) {
  EvalReport local;
  EvalReport& rep = internal::ReportOf(report, local);
  return NoThrow([&] { return state_->Run(columns, length, rep, report != nullptr); });
}

}  // namespace rowjit::jit
