// Projections (jit layer): several expressions over one batch in one kernel pass. The outputs
// become the arguments of one root (ir/projection.h), planned and cached like any expression;
// its kernel stores every output, and LLVM computes a subexpression the outputs share once
// (the outputs' IR is emitted into one loop body, where common subexpressions are merged).
#include "ir/projection.h"
#include "ir/reference.h"
#include "jit/api/engine.h"
#include "jit/api/engine_internal.h"
#include "jit/exec/executor_internal.h"
#include "jit/api/prepared_internal.h"

namespace rowjit::jit {
namespace {

// The strategies whose kernel a projection runs: dense (no input has a null and no output can
// make one) or the kernel computing validity row by row.
bool OneKernel(const Plan& plan) {
  return plan.kernel && (plan.strategy == Strategy::kDense || plan.strategy == Strategy::kDenseRetry ||
                         plan.strategy == Strategy::kValidity);
}

// Outputs that are all strict-row expressions over inputs with nulls: each output's rows are null
// exactly where one of its own columns is, so the dense kernel (no validity computed in the
// loop) serves them, each output taking the AND of its columns' validity. Null constants aside.
bool DenseWithNulls(std::span<const ir::ExprPtr> exprs, const internal::Batch& batch) {
  for (const ir::ExprPtr& e : exprs) {
    if (!e->facts().StrictRows()) return false;
    for (int c : e->facts().columns) {
      if (batch.facts.inputs[static_cast<size_t>(c)].shape == ir::InputShape::kNullConstant) return false;
    }
  }
  return true;
}

// Each output's validity, the AND of its columns'; outputs reading the same columns share one.
Result<std::vector<Validity>> OutputValidity(std::span<const ir::ExprPtr> exprs, const internal::Batch& batch) {
  std::vector<Validity> out;
  for (size_t k = 0; k < exprs.size(); ++k) {
    const std::vector<int>& cols = exprs[k]->facts().columns;
    size_t same = 0;
    while (same < k && exprs[same]->facts().columns != cols) ++same;
    if (same < k) {
      out.push_back(out[same]);
      continue;
    }
    std::vector<Validity> vs;
    for (int c : cols) vs.push_back(ValidityOf(*batch.columns[static_cast<size_t>(c)]));
    ROWJIT_ASSIGN_OR_RETURN(Validity v, AndValidity(vs, batch.facts.length));
    out.push_back(std::move(v));
  }
  return out;
}

// Every result left in the caller's memory (internal::Deliver).
Result<std::vector<ArrayPtr>> DeliverAll(const std::vector<ArrayPtr>& results, std::span<const OutputBuffers> outs,
                                         EvalReport& rep) {
  std::vector<ArrayPtr> delivered;
  for (size_t k = 0; k < results.size(); ++k) {
    ROWJIT_ASSIGN_OR_RETURN(delivered.emplace_back(), internal::Deliver(results[k], outs[k], &rep.output_copied));
  }
  return delivered;
}

// Whether an output returns a string or holds a string-valued call: those are computed a column
// at a time outside kernels (jit/exec/strings_materialize.cc) before the kernel of the rest.
bool HasStrings(std::span<const ir::ExprPtr> exprs) {
  for (const ir::ExprPtr& e : exprs) {
    if (IsString(e->type().id) || internal::NeedsStringColumns(*e)) return true;
  }
  return false;
}

}  // namespace

// A projection with strings: each string-valued output computed as Evaluate computes it, and the
// others as one projection whose string-valued calls were computed first (one materializer over
// all of them: a call two outputs share is computed once). On any failure the outputs are
// evaluated one by one, which names the projection's first failing row and output.
Result<std::vector<ArrayPtr>> Engine::ProjectStrings(const ir::ExprPtr& root, std::span<const ArrayPtr> columns,
                                                     int64_t length, const EvalOptions& options, EvalReport& rep,
                                                     std::span<const OutputBuffers> outs) {
  const std::span<const ir::ExprPtr> exprs = root->args();
  std::vector<ArrayPtr> results(exprs.size());
  std::vector<ir::ExprPtr> rest;
  std::vector<size_t> at;
  std::vector<OutputBuffers> rest_outs;
  for (size_t k = 0; k < exprs.size(); ++k) {
    if (!IsString(exprs[k]->type().id)) {
      rest.push_back(exprs[k]);
      at.push_back(k);
      if (!outs.empty()) rest_outs.push_back(outs[k]);
      continue;
    }
    if (!outs.empty()) {
      return internal::ProjectionError(MakeError(ErrorCode::kUnsupported, "{} returns {}: caller buffers hold no strings",
                                                 exprs[k]->ToString(), exprs[k]->type().ToString()), k);
    }
    EvalReport one;
    Result<ArrayPtr> r = Evaluate(exprs[k], columns, length, options, &one);
    if (!r.ok()) return ProjectSeparately(exprs, columns, length, options, rep, outs);
    results[k] = *r;
  }
  rep.strategy = Strategy::kStrings;
  if (rest.empty()) return results;
  ROWJIT_ASSIGN_OR_RETURN(ir::ExprPtr sub, ir::MakeProjection(rest));
  Result<internal::StringColumns> s = MaterializeStrings(sub, columns, length, options);
  // Failing string-valued calls (rows the whole output decides): output by output.
  if (!s.ok() || !s->failed_rows.empty()) return ProjectSeparately(exprs, columns, length, options, rep, outs);
  Result<std::vector<ArrayPtr>> r = ProjectRoot(s->expr, s->columns, length, options, rep, rest_outs);
  if (!r.ok()) return ProjectSeparately(exprs, columns, length, options, rep, outs);
  for (size_t j = 0; j < at.size(); ++j) results[at[j]] = std::move((*r)[j]);
  return results;
}

// One projection kernel through the cache in the tier `options` want: the optimized kernel
// when a tiered engine has it ready, else the fast one while it compiles.
Result<std::shared_ptr<const CompiledKernel>> Engine::ProjectionKernel(Plan& plan, const EvalOptions& options,
                                                                      EvalReport& rep) {
  TierWant want = impl_->WantOf(options);
  std::optional<KernelCache::Lookup> ready;
  if (want == TierWant::kTiered) {
    ROWJIT_ASSIGN_OR_RETURN(KernelCache::Lookup found, impl_->cache.Get(*plan.kernel, TierWant::kOptimizedIfReady));
    if (found.kernel != nullptr) ready = std::move(found);
    if (!ready) want = TierWant::kFast;
  }
  return impl_->KernelOf(plan, want, rep, std::move(ready));
}

// Outputs the planner does not give one kernel (constants, staged, empty batches) are evaluated
// one by one; their errors are those of the projection (the lowest failing row, and at it the
// first failing output).
Result<std::vector<ArrayPtr>> Engine::ProjectSeparately(std::span<const ir::ExprPtr> exprs,
                                                        std::span<const ArrayPtr> columns, int64_t length,
                                                        const EvalOptions& options, EvalReport& rep,
                                                        std::span<const OutputBuffers> outs) {
  std::vector<ArrayPtr> out;
  std::optional<Error> first;
  size_t first_output = 0;
  for (size_t k = 0; k < exprs.size(); ++k) {
    EvalReport one;
    Result<ArrayPtr> r = outs.empty() ? Evaluate(exprs[k], columns, length, options, &one)
                                      : EvaluateInto(exprs[k], columns, length, outs[k], options, &one);
    rep.compiled = rep.compiled || one.compiled;
    rep.output_copied = rep.output_copied || one.output_copied;
    rep.compile_ms += one.compile_ms;
    if (r.ok()) {
      out.push_back(*r);
      continue;
    }
    Error e = std::move(r).TakeError();
    if (!e.row()) return internal::ProjectionError(std::move(e), k);
    if (!first || *e.row() < *first->row()) {
      first = std::move(e);
      first_output = k;
    }
  }
  if (first) return internal::ProjectionError(std::move(*first), first_output);
  return out;
}

Result<std::vector<ArrayPtr>> Engine::Project(std::span<const ir::ExprPtr> exprs, std::span<const ArrayPtr> columns,
                                              int64_t length, const EvalOptions& options, EvalReport* report) {
  if (report != nullptr) *report = EvalReport{};
  return NoThrow([&]() -> Result<std::vector<ArrayPtr>> {
    if (std::shared_ptr<internal::HeldProjection> held = HeldProjectionOf(exprs, options)) {
      return held->handle->Project(columns, length, report);
    }
    EvalReport local;  // not built on the held path: the handle has its own
    EvalReport& rep = report ? *report : local;
    ROWJIT_ASSIGN_OR_RETURN(ir::ExprPtr root, ir::MakeProjection(exprs));
    return ProjectRoot(root, columns, length, options, rep, {});
  });
}

Result<std::vector<ArrayPtr>> Engine::ProjectInto(std::span<const ir::ExprPtr> exprs, std::span<const ArrayPtr> columns,
                                                  int64_t length, std::span<const OutputBuffers> outs,
                                                  const EvalOptions& options, EvalReport* report) {
  if (report != nullptr) *report = EvalReport{};
  return NoThrow([&]() -> Result<std::vector<ArrayPtr>> {
    if (std::shared_ptr<internal::HeldProjection> held = HeldProjectionOf(exprs, options)) {
      return held->handle->ProjectInto(columns, length, outs, report);
    }
    EvalReport local;  // not built on the held path: the handle has its own
    EvalReport& rep = report ? *report : local;
    ROWJIT_ASSIGN_OR_RETURN(ir::ExprPtr root, ir::MakeProjection(exprs));
    ROWJIT_RETURN_NOT_OK(internal::CheckOutputs(root->args(), outs, length, columns));
    ROWJIT_ASSIGN_OR_RETURN(std::vector<ArrayPtr> results, ProjectRoot(root, columns, length, options, rep, outs));
    return DeliverAll(results, outs, rep);
  });
}

// The projection `root` (ir::MakeProjection) over a batch; `outs`: the caller's outputs, or none.
Result<std::vector<ArrayPtr>> Engine::ProjectRoot(const ir::ExprPtr& root, std::span<const ArrayPtr> columns,
                                                  int64_t length, const EvalOptions& options, EvalReport& rep,
                                                  std::span<const OutputBuffers> outs, ProjectionRan* ran) {
  ProjectionRan ignored;
  if (ran == nullptr) ran = &ignored;
  const std::span<const ir::ExprPtr> exprs = root->args();
  if (HasStrings(exprs)) {
    ROWJIT_RETURN_NOT_OK(impl_->Admit(*root, columns, length, /*folded=*/true));
    return ProjectStrings(root, columns, length, options, rep, outs);
  }
  ROWJIT_RETURN_NOT_OK(impl_->Admit(*root, columns, length));
  ROWJIT_ASSIGN_OR_RETURN(internal::Batch batch, internal::ReadBatch(*root, columns, length));
  Plan plan = PlanEvaluation(root, batch.facts, options.policy, "native", impl_->options.max_kernel_nodes);
  rep.strategy = plan.strategy;
  if (!OneKernel(plan)) return ProjectSeparately(exprs, columns, length, options, rep, outs);
  if (plan.strategy == Strategy::kValidity && DenseWithNulls(exprs, batch)) {
    std::vector<ir::InputSpec> specs = batch.facts.inputs;
    for (ir::InputSpec& s : specs) s.has_nulls = false;
    ROWJIT_ASSIGN_OR_RETURN(CacheKey key, PlanKernel(root, std::move(specs), ir::Policy::kDense, "native"));
    Plan dense{Strategy::kDense, std::move(key)};
    ROWJIT_ASSIGN_OR_RETURN(auto kernel, ProjectionKernel(dense, options, rep));
    ROWJIT_ASSIGN_OR_RETURN(std::vector<Validity> validity, OutputValidity(exprs, batch));
    const internal::Execution run{*root, batch, &*rep.kernel, kernel.get(), impl_->outputs, rep, outs};
    Result<std::optional<std::vector<ArrayPtr>>> out = internal::ExecuteProjection(run, validity);
    if (!out.ok()) return std::move(out).TakeError();
    if (out->has_value()) {
      rep.strategy = Strategy::kDense;
      *ran = {std::move(kernel), true};
      return std::move(**out);
    }
    rep.retried = true;  // evidence from rows behind nulls, maybe: the exact kernel decides
  }
  ROWJIT_ASSIGN_OR_RETURN(auto kernel, ProjectionKernel(plan, options, rep));
  const internal::Execution run{*root, batch, rep.kernel ? &*rep.kernel : nullptr, kernel.get(), impl_->outputs, rep,
                                outs};
  Result<std::optional<std::vector<ArrayPtr>>> exact = internal::ExecuteProjection(run);
  if (!exact.ok()) return std::move(exact).TakeError();
  if (!exact->has_value()) return MakeError(ErrorCode::kInternal, "an exact projection kernel asked for a rerun");
  *ran = {std::move(kernel), false};
  return std::move(**exact);
}

Result<std::vector<ArrayPtr>> Engine::Project(std::span<const ir::ExprPtr> exprs, std::span<const ArrayPtr> columns,
                                              int64_t length, const SelectionVector& selection,
                                              const EvalOptions& options, EvalReport* report) {
  ROWJIT_ASSIGN_OR_RETURN(ir::ExprPtr root, ir::MakeProjection(exprs));
  ROWJIT_ASSIGN_OR_RETURN(std::vector<ArrayPtr> taken,
                          internal::TakeInputs(*root, columns, length, selection, impl_->outputs));
  Result<std::vector<ArrayPtr>> out = Project(exprs, taken, selection.size(), options, report);
  if (out.ok()) return out;
  return internal::AtBatchRow(std::move(out).TakeError(), selection);
}

Result<std::vector<ArrayPtr>> Engine::ProjectInto(std::span<const ir::ExprPtr> exprs, std::span<const ArrayPtr> columns,
                                                  int64_t length, const SelectionVector& selection,
                                                  std::span<const OutputBuffers> outs, const EvalOptions& options,
                                                  EvalReport* report) {
  ROWJIT_ASSIGN_OR_RETURN(ir::ExprPtr root, ir::MakeProjection(exprs));
  // Checked against the caller's columns here, the taken ones (fresh buffers) in the call below.
  ROWJIT_RETURN_NOT_OK(internal::CheckOutputs(root->args(), outs, selection.size(), columns));
  ROWJIT_ASSIGN_OR_RETURN(std::vector<ArrayPtr> taken,
                          internal::TakeInputs(*root, columns, length, selection, impl_->outputs));
  Result<std::vector<ArrayPtr>> out = ProjectInto(exprs, taken, selection.size(), outs, options, report);
  if (out.ok()) return out;
  return internal::AtBatchRow(std::move(out).TakeError(), selection);
}

// Prepared projections: the root built once, and per batch layout the kernel the engine's path
// ran (one kernel over every output) held.
struct PreparedProjection::State {
  Engine* engine;
  ir::ExprPtr root;  // ir::MakeProjection of the expressions
  EvalOptions options;
  bool strings = false;  // outputs with strings: Engine::Project's path every call (ProjectStrings)
  internal::LayoutTable layouts;
  // A handle the engine holds for Engine::Project: its runs on a held kernel, counted
  // (CacheStats::held); null for a host's own handle.
  std::atomic<int64_t>* held_runs = nullptr;

  Result<std::vector<ArrayPtr>> Run(std::span<const ArrayPtr> columns, int64_t length, EvalReport& rep,
                                    std::span<const OutputBuffers> outs);
  Result<std::vector<ArrayPtr>> RunHeld(const internal::PreparedLayout& layout, const internal::Batch& batch,
                                        EvalReport& rep, std::span<const OutputBuffers> outs);
  Result<std::vector<ArrayPtr>> PlanAndRun(std::span<const ArrayPtr> columns, int64_t length, EvalReport& rep,
                                           std::span<const OutputBuffers> outs, const internal::BatchInputs& inputs,
                                           BatchFacts::Rows rows);
};

Result<std::vector<ArrayPtr>> PreparedProjection::State::Run(std::span<const ArrayPtr> columns, int64_t length,
                                                             EvalReport& rep, std::span<const OutputBuffers> outs) {
  Engine::Impl& impl = *engine->impl_;
  if (strings) return engine->ProjectRoot(root, columns, length, options, rep, outs);  // no layout held
  ROWJIT_RETURN_NOT_OK(impl.Admit(*root, columns, length));
  const ir::ExprFacts& f = root->facts();
  const internal::BatchInputs inputs(f.columns, columns);
  if (length == 0 || inputs.decode || f.kernel_nodes > impl.options.max_kernel_nodes) {
    return engine->ProjectRoot(root, columns, length, options, rep, outs);
  }
  internal::Batch batch;
  batch.columns = columns;
  batch.facts.length = length;
  ROWJIT_RETURN_NOT_OK(internal::ReadRows(*root, inputs.any_nulls, batch));
  const internal::PreparedLayout* layout = layouts.Find(inputs, f.columns.size(), batch.facts.rows);
  if (layout == nullptr) return PlanAndRun(columns, length, rep, outs, inputs, batch.facts.rows);
  return RunHeld(*layout, batch, rep, outs);
}

// A held layout: its kernel over every output; evidence of the dense kernel over inputs with
// nulls may come from rows behind them, and then the engine's path decides with the exact one.
Result<std::vector<ArrayPtr>> PreparedProjection::State::RunHeld(const internal::PreparedLayout& layout,
                                                                 const internal::Batch& batch, EvalReport& rep,
                                                                 std::span<const OutputBuffers> outs) {
  rep.strategy = layout.strategy;
  rep.tier = layout.kernel->tier();
  rep.kernel = layout.key;
  if (held_runs != nullptr) held_runs->fetch_add(1, std::memory_order_relaxed);
  const internal::Execution run{*root, batch, &*layout.key, layout.kernel.get(), engine->impl_->outputs, rep, outs};
  std::vector<Validity> validity;
  if (layout.output_validity) {
    ROWJIT_ASSIGN_OR_RETURN(validity, OutputValidity(root->args(), batch));
  }
  Result<std::optional<std::vector<ArrayPtr>>> out = internal::ExecuteProjection(run, validity);
  if (!out.ok()) return std::move(out).TakeError();
  if (out->has_value()) return std::move(**out);
  return engine->ProjectRoot(root, batch.columns, batch.facts.length, options, rep, outs);
}

Result<std::vector<ArrayPtr>> PreparedProjection::State::PlanAndRun(std::span<const ArrayPtr> columns, int64_t length,
                                                                    EvalReport& rep, std::span<const OutputBuffers> outs,
                                                                    const internal::BatchInputs& inputs,
                                                                    BatchFacts::Rows rows) {
  Engine::ProjectionRan ran;
  Result<std::vector<ArrayPtr>> out = engine->ProjectRoot(root, columns, length, options, rep, outs, &ran);
  // Kept: a successful run of one kernel of the tier the options want (not a rerun of the exact
  // kernel after evidence, which the next batch of this layout may not need).
  if (!out.ok() || ran.kernel == nullptr || !rep.kernel || rep.retried || !internal::Holdable(*ran.kernel, options)) {
    return out;
  }
  auto layout = std::make_unique<internal::PreparedLayout>();
  for (size_t k = 0; k < root->facts().columns.size(); ++k) layout->inputs.push_back(inputs[k]);
  layout->rows = rows;
  layout->strategy = rep.strategy;
  layout->key = rep.kernel;
  layout->kernel = std::move(ran.kernel);
  layout->output_validity = ran.output_validity;
  layouts.Keep(std::move(layout));
  return out;
}

PreparedProjection::PreparedProjection(std::unique_ptr<State> state) : state_(std::move(state)) {}
PreparedProjection::~PreparedProjection() = default;

std::span<const ir::ExprPtr> PreparedProjection::exprs() const { return state_->root->args(); }
size_t PreparedProjection::layouts() const { return state_->layouts.size(); }

Result<std::vector<ArrayPtr>> PreparedProjection::Project(std::span<const ArrayPtr> columns, int64_t length,
                                                          EvalReport* report) {
  EvalReport local;
  EvalReport& rep = report ? *report : local;
  rep = EvalReport{};
  return NoThrow([&] { return state_->Run(columns, length, rep, {}); });
}

Result<std::vector<ArrayPtr>> PreparedProjection::ProjectInto(std::span<const ArrayPtr> columns, int64_t length,
                                                              std::span<const OutputBuffers> outs, EvalReport* report) {
  EvalReport local;
  EvalReport& rep = report ? *report : local;
  rep = EvalReport{};
  return NoThrow([&]() -> Result<std::vector<ArrayPtr>> {
    ROWJIT_RETURN_NOT_OK(internal::CheckOutputs(state_->root->args(), outs, length, columns));
    ROWJIT_ASSIGN_OR_RETURN(std::vector<ArrayPtr> results, state_->Run(columns, length, rep, outs));
    return DeliverAll(results, outs, rep);
  });
}

Result<std::vector<ArrayPtr>> PreparedProjection::Project(std::span<const ArrayPtr> columns, int64_t length,
                                                          const SelectionVector& selection, EvalReport* report) {
  ROWJIT_ASSIGN_OR_RETURN(std::vector<ArrayPtr> taken, internal::TakeInputs(*state_->root, columns, length, selection,
                                                                            state_->engine->impl_->outputs));
  Result<std::vector<ArrayPtr>> out = Project(taken, selection.size(), report);
  if (out.ok()) return out;
  return internal::AtBatchRow(std::move(out).TakeError(), selection);
}

std::shared_ptr<internal::HeldProjection> Engine::HeldProjectionOf(std::span<const ir::ExprPtr> exprs,
                                                                   const EvalOptions& options) {
  if (exprs.empty()) return nullptr;
  for (const ir::ExprPtr& e : exprs) {
    if (e == nullptr || !e->bound()) return nullptr;
  }
  const uint64_t tag = internal::OptionsTag(options) | uint64_t{exprs.size()} << 32;
  std::shared_ptr<internal::HeldProjection> held =
      impl_->held_projections.Find(exprs[0], tag, [&]() -> Result<std::unique_ptr<internal::HeldProjection>> {
        ROWJIT_ASSIGN_OR_RETURN(std::unique_ptr<PreparedProjection> handle, PrepareProjection(exprs, options));
        handle->state_->held_runs = &impl_->held_runs;
        return std::make_unique<internal::HeldProjection>(
            internal::HeldProjection{std::vector<ir::ExprPtr>(exprs.begin(), exprs.end()), std::move(handle)});
      });
  // Keyed by the first expression: another projection that starts with it is not this one.
  if (held == nullptr || !std::equal(exprs.begin(), exprs.end(), held->exprs.begin(), held->exprs.end())) return nullptr;
  return held;
}

Result<std::unique_ptr<PreparedProjection>> Engine::PrepareProjection(std::span<const ir::ExprPtr> exprs,
                                                                      const EvalOptions& options) {
  ROWJIT_ASSIGN_OR_RETURN(ir::ExprPtr root, ir::MakeProjection(exprs));
  return NoThrow([&]() -> Result<std::unique_ptr<PreparedProjection>> {
    ROWJIT_RETURN_NOT_OK(ir::CheckLimits(root->facts(), impl_->options.limits));
    auto state = std::make_unique<PreparedProjection::State>();
    state->engine = this;
    state->strings = HasStrings(root->args());
    state->root = std::move(root);
    state->options = options;
    return std::unique_ptr<PreparedProjection>(new PreparedProjection(std::move(state)));
  });
}

}  // namespace rowjit::jit
