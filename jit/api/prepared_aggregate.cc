// Prepared aggregates (jit layer): a reduction template folded batch after batch, planned once
// per batch layout with its fold kernel held, where Engine::Aggregate plans and looks up the
// cache (hashing the whole argument tree) every call.
#include "jit/api/prepared_internal.h"

namespace rowjit::jit {

using internal::BatchInputs;
using internal::PreparedLayout;

struct PreparedAggregate::State {
  Engine* engine;
  ir::Aggregate agg;
  EvalOptions options;
  internal::LayoutTable layouts;
  // A handle the engine holds for its one-shot calls: its runs on a held kernel, counted
  // (CacheStats::held); null for a host's own handle.
  std::atomic<int64_t>* held_runs = nullptr;
  // The fold is one kernel over the columns as they are (Engine::Aggregate's last path): not a
  // 16-byte or string-valued fold, no strings computed first, not staged.
  bool one_kernel = false;

  // `full_report`: the caller asked for a report, so that the kernel key is copied into it.
  Result<ir::AggregateResult> Run(std::span<const ArrayPtr> columns, int64_t length, EvalReport& rep,
                                  bool full_report);
  Result<ir::AggregateResult> PlanAndRun(std::span<const ArrayPtr> columns, int64_t length, EvalReport& rep);
};

// A layout seen for the first time: read, planned and folded as Engine::Aggregate does it, and
// kept when the fold succeeded with a kernel of the tier the options hold.
Result<ir::AggregateResult> PreparedAggregate::State::PlanAndRun(std::span<const ArrayPtr> columns, int64_t length,
                                                                 EvalReport& rep) {
  Engine::Impl& impl = *engine->impl_;
  ROWJIT_ASSIGN_OR_RETURN(internal::Batch batch,
                          internal::ReadBatch(*agg.arg, columns, length, nullptr, /*defer_rows=*/true));
  Plan plan = PlanAggregate(agg, batch.facts);
  rep.strategy = plan.strategy;
  auto layout = std::make_unique<PreparedLayout>();
  layout->rows = batch.facts.rows;
  layout->strategy = plan.strategy;
  for (int c : agg.arg->facts().columns) layout->inputs.push_back(batch.facts.inputs[c]);
  std::optional<CacheKey> planned = plan.kernel;
  ROWJIT_ASSIGN_OR_RETURN(std::shared_ptr<const CompiledKernel> kernel, impl.KernelOf(plan, impl.WantOf(options), rep));
  const internal::Execution run{*agg.arg, batch, &*rep.kernel, kernel.get(), impl.outputs, rep};
  Result<ir::AggregateResult> out = internal::ExecuteFold(agg, run);
  if (out.ok() && kernel != nullptr && internal::Holdable(*kernel, options)) {
    layout->key = std::move(planned);
    layout->kernel = std::move(kernel);
    layouts.Keep(std::move(layout));
  }
  return out;
}

Result<ir::AggregateResult> PreparedAggregate::State::Run(std::span<const ArrayPtr> columns, int64_t length,
                                                          EvalReport& rep, bool full_report) {
  Engine::Impl& impl = *engine->impl_;
  const bool sliced = agg.kind == ir::AggKind::kSum && !IsFloat(agg.arg->type().id) &&
                      length > impl.options.fold_slice_rows;
  if (!one_kernel || sliced) return engine->AggregateUnheld(agg, columns, length, options, rep);
  ROWJIT_RETURN_NOT_OK(impl.Admit(*agg.arg, columns, length, /*folded=*/true));
  const ir::ExprFacts& f = agg.arg->facts();
  const BatchInputs inputs(f.columns, columns);
  // Inputs the kernels cannot read as they are: the engine's path decodes them (once).
  if (inputs.decode) return engine->AggregateUnheld(agg, columns, length, options, rep);
  internal::Batch batch;
  batch.columns = columns;
  batch.facts.length = length;
  ROWJIT_RETURN_NOT_OK(internal::ReadRows(*agg.arg, inputs.any_nulls, batch, nullptr, /*defer_rows=*/true));
  const PreparedLayout* layout = layouts.Find(inputs, f.columns.size(), batch.facts.rows);
  if (layout == nullptr) return PlanAndRun(columns, length, rep);
  rep.strategy = layout->strategy;
  rep.tier = layout->kernel->tier();
  if (full_report) rep.kernel = *layout->key;
  if (held_runs != nullptr) held_runs->fetch_add(1, std::memory_order_relaxed);
  const internal::Execution run{*agg.arg, batch, &*layout->key, layout->kernel.get(), impl.outputs, rep};
  return internal::ExecuteFold(agg, run);
}

PreparedAggregate::PreparedAggregate(std::unique_ptr<State> state) : state_(std::move(state)) {}
PreparedAggregate::~PreparedAggregate() = default;

const ir::Aggregate& PreparedAggregate::aggregate() const { return state_->agg; }

size_t PreparedAggregate::layouts() const { return state_->layouts.size(); }

Result<ir::AggregateResult> PreparedAggregate::Aggregate(std::span<const ArrayPtr> columns, int64_t length,
                                                         EvalReport* report) {
  EvalReport local;
  if (report != nullptr) *report = EvalReport{};
  EvalReport& rep = report ? *report : local;
  return NoThrow([&] { return state_->Run(columns, length, rep, report != nullptr); });
}

Result<std::unique_ptr<PreparedAggregate>> Engine::PrepareAggregate(const ir::Aggregate& aggregate,
                                                                    const EvalOptions& options) {
  if (aggregate.arg == nullptr) return MakeError(ErrorCode::kInvalidInput, "aggregate without argument");
  return NoThrow([&]() -> Result<std::unique_ptr<PreparedAggregate>> {
    const ir::ExprPtr& arg = aggregate.arg;
    if (!arg->bound()) return MakeError(ErrorCode::kInvalidInput, "aggregate argument is not bound");
    ROWJIT_RETURN_NOT_OK(ir::CheckLimits(arg->facts(), impl_->options.limits));
    auto state = std::make_unique<PreparedAggregate::State>();
    state->engine = this;
    state->agg = aggregate;
    state->options = options;
    const TypeId t = arg->type().id;
    const bool counts = aggregate.kind == ir::AggKind::kCount;
    const bool interval = arg->type().logical == LogicalKind::kInterval;
    state->one_kernel = (counts || (t != TypeId::kI128 && !IsString(t) && !interval)) &&
                        !(internal::NeedsStringColumns(*arg) && !arg->is_column()) &&
                        arg->facts().kernel_nodes <= impl_->options.max_kernel_nodes;
    return std::unique_ptr<PreparedAggregate>(new PreparedAggregate(std::move(state)));
  });
}

// The handle Engine::Aggregate holds for `agg` under `options`: keyed by its argument, with the
// kind and NaN rule in the tag; a handle made for another result type (a caller's own aggregate
// over the same argument) is not used.
std::shared_ptr<PreparedAggregate> Engine::HeldAggregate(const ir::Aggregate& agg, const EvalOptions& options) {
  if (!agg.arg->bound()) return nullptr;
  const uint64_t tag = internal::OptionsTag(options) | uint64_t{static_cast<uint8_t>(agg.kind)} << 16 | uint64_t{agg.keep_nan} << 24;
  std::shared_ptr<PreparedAggregate> held =
      impl_->held_aggregates.Find(agg.arg, tag, [&]() -> Result<std::unique_ptr<PreparedAggregate>> {
        ROWJIT_ASSIGN_OR_RETURN(std::unique_ptr<PreparedAggregate> handle, PrepareAggregate(agg, options));
        handle->state_->held_runs = &impl_->held_runs;
        return handle;
      });
  return held != nullptr && held->aggregate().result == agg.result ? held : nullptr;
}

}  // namespace rowjit::jit
