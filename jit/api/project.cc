// Projections (jit layer, api room): several expressions over one batch in one kernel pass. The
// outputs become the arguments of one root (ir/projection.h), planned and cached like any
// expression; its kernel stores every output, and LLVM computes a subexpression the outputs
// share once (the outputs' IR is emitted into one loop body, where common subexpressions are
// merged). The route (jit/plan/route.h) decides between that kernel, the dense kernel with each
// output's own validity, outputs one by one, and outputs with strings.
#include "ir/projection.h"
#include "ir/reference.h"
#include "jit/api/engine_impl.h"
#include "jit/api/prepared_internal.h"

namespace rowjit::jit::internal {
namespace {

// Each output's validity, the AND of its columns'; outputs reading the same columns share one.
Result<std::vector<Validity>> OutputValidity(std::span<const ir::ExprPtr> exprs, const Batch& batch) {
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

// Every result left in the caller's memory (Deliver).
Result<std::vector<ArrayPtr>> DeliverAll(const std::vector<ArrayPtr>& results, std::span<const OutputBuffers> outs,
                                         EvalReport& rep) {
  std::vector<ArrayPtr> delivered;
  for (size_t k = 0; k < results.size(); ++k) {
    ROWJIT_ASSIGN_OR_RETURN(delivered.emplace_back(), Deliver(results[k], outs[k], &rep.output_copied));
  }
  return delivered;
}

}  // namespace

Result<std::vector<ArrayPtr>> EngineImpl::Project(std::span<const ir::ExprPtr> exprs, std::span<const ArrayPtr> columns,
                                                  int64_t length, std::span<const OutputBuffers> outs,
                                                  const EvalOptions& options, EvalReport* report) {
  if (report != nullptr) *report = EvalReport{};
  return NoThrow([&]() -> Result<std::vector<ArrayPtr>> {
    if (std::shared_ptr<HeldProjection> held = HeldProjectionOf(exprs, options)) {
      return outs.empty() ? held->handle->Project(columns, length, report)
                          : held->handle->ProjectInto(columns, length, outs, report);
    }
    EvalReport local;  // not built on the held path: the handle has its own
    EvalReport& rep = report ? *report : local;
    ROWJIT_ASSIGN_OR_RETURN(ir::ExprPtr root, ir::MakeProjection(exprs));
    if (outs.empty()) return ProjectRouted(root, columns, length, options, rep, {});
    ROWJIT_RETURN_NOT_OK(CheckOutputs(root->args(), outs, length, columns));
    ROWJIT_ASSIGN_OR_RETURN(std::vector<ArrayPtr> results, ProjectRouted(root, columns, length, options, rep, outs));
    return DeliverAll(results, outs, rep);
  });
}

Result<std::vector<ArrayPtr>> EngineImpl::ProjectSelected(std::span<const ir::ExprPtr> exprs,
                                                          std::span<const ArrayPtr> columns, int64_t length,
                                                          const SelectionVector& selection,
                                                          std::span<const OutputBuffers> outs,
                                                          const EvalOptions& options, EvalReport* report) {
  ROWJIT_ASSIGN_OR_RETURN(ir::ExprPtr root, ir::MakeProjection(exprs));
  // Checked against the caller's columns here, the taken ones (fresh buffers) in the call below.
  if (!outs.empty()) ROWJIT_RETURN_NOT_OK(CheckOutputs(root->args(), outs, selection.size(), columns));
  ROWJIT_ASSIGN_OR_RETURN(std::vector<ArrayPtr> taken, TakeInputs(*root, columns, length, selection, outputs_));
  Result<std::vector<ArrayPtr>> out = Project(exprs, taken, selection.size(), outs, options, report);
  if (out.ok()) return out;
  return AtBatchRow(std::move(out).TakeError(), selection);
}

Result<std::vector<ArrayPtr>> EngineImpl::ProjectRouted(const ir::ExprPtr& root, std::span<const ArrayPtr> columns,
                                                        int64_t length, const EvalOptions& options, EvalReport& rep,
                                                        std::span<const OutputBuffers> outs, ProjectionRan* ran) {
  ProjectionRan ignored;
  if (ran == nullptr) ran = &ignored;
  const std::span<const ir::ExprPtr> exprs = root->args();
  if (const std::optional<Route> strings = RouteProjectionStrings(exprs)) {
    rep.route = *strings;
    ROWJIT_RETURN_NOT_OK(Admit(*root, columns, length, /*folded=*/true));
    return ProjectStrings(root, columns, length, options, rep, outs);
  }
  ROWJIT_RETURN_NOT_OK(Admit(*root, columns, length));
  ROWJIT_ASSIGN_OR_RETURN(Batch batch, ReadBatch(*root, columns, length));
  ProjectionRoute route = RouteProjection(root, batch.facts, options.policy, options_.max_kernel_nodes);
  rep.route = route.route;
  rep.strategy = route.plan.strategy;
  if (route.route == Route::kProjectSeparately) return ProjectSeparately(exprs, columns, length, options, rep, outs);
  return ProjectKernel(root, batch, route, options, rep, outs, *ran);
}

// The kernel over every output. kProjectDenseWithNulls: the dense kernel, each output taking the
// AND of its columns' validity; its evidence may come from rows behind nulls, and then the exact
// kernel (validity row by row) decides.
Result<std::vector<ArrayPtr>> EngineImpl::ProjectKernel(const ir::ExprPtr& root, const Batch& batch,
                                                        ProjectionRoute& route, const EvalOptions& options,
                                                        EvalReport& rep, std::span<const OutputBuffers> outs,
                                                        ProjectionRan& ran) {
  if (route.route == Route::kProjectDenseWithNulls) {
    ROWJIT_ASSIGN_OR_RETURN(auto kernel, TieredKernelOf(route.plan, options, rep));
    ROWJIT_ASSIGN_OR_RETURN(std::vector<Validity> validity, OutputValidity(root->args(), batch));
    const Execution run{*root, batch, &*rep.kernel, kernel.get(), outputs_, rep, outs};
    Result<std::optional<std::vector<ArrayPtr>>> out = ExecuteProjection(run, validity);
    if (!out.ok()) return std::move(out).TakeError();
    if (out->has_value()) {
      ran = {std::move(kernel), true};
      return std::move(**out);
    }
    rep.retried = true;  // evidence from rows behind nulls, maybe: the exact kernel decides
    route.plan = std::move(*route.exact);
    rep.strategy = route.plan.strategy;
  }
  ROWJIT_ASSIGN_OR_RETURN(auto kernel, TieredKernelOf(route.plan, options, rep));
  const Execution run{*root, batch, rep.kernel ? &*rep.kernel : nullptr, kernel.get(), outputs_, rep, outs};
  Result<std::optional<std::vector<ArrayPtr>>> exact = ExecuteProjection(run);
  if (!exact.ok()) return std::move(exact).TakeError();
  if (!exact->has_value()) return MakeError(ErrorCode::kInternal, "an exact projection kernel asked for a rerun");
  ran = {std::move(kernel), false};
  return std::move(**exact);
}

// A projection with strings: each string- or nested-valued output computed as Evaluate computes it, and the
// others as one projection whose string-valued calls were computed first (one materializer over
// all of them: a call two outputs share is computed once). On any failure the outputs are
// evaluated one by one, which names the projection's first failing row and output.
Result<std::vector<ArrayPtr>> EngineImpl::ProjectStrings(const ir::ExprPtr& root, std::span<const ArrayPtr> columns,
                                                         int64_t length, const EvalOptions& options, EvalReport& rep,
                                                         std::span<const OutputBuffers> outs) {
  const std::span<const ir::ExprPtr> exprs = root->args();
  std::vector<ArrayPtr> results(exprs.size());
  std::vector<ir::ExprPtr> rest;
  std::vector<size_t> at;
  std::vector<OutputBuffers> rest_outs;
  for (size_t k = 0; k < exprs.size(); ++k) {
    const TypeId t = exprs[k]->type().id;
    if (!IsString(t) && !IsNested(t)) {
      rest.push_back(exprs[k]);
      at.push_back(k);
      if (!outs.empty()) rest_outs.push_back(outs[k]);
      continue;
    }
    if (!outs.empty()) {
      return ProjectionError(MakeError(ErrorCode::kUnsupported, "{} returns {}: caller buffers hold no strings or nested values",
                                       exprs[k]->ToString(), exprs[k]->type().ToString()), k);
    }
    EvalReport one;
    Result<ArrayPtr> r = Evaluate(exprs[k], columns, length, options, &one);
    if (!r.ok()) return ProjectSeparately(exprs, columns, length, options, rep, outs);
    results[k] = *r;
  }
  if (rest.empty()) return results;
  ROWJIT_ASSIGN_OR_RETURN(ir::ExprPtr sub, ir::MakeProjection(rest));
  Result<StringColumns> s = MaterializeStrings(sub, columns, length, options);
  // Failing string-valued calls (rows the whole output decides): output by output.
  if (!s.ok() || !s->failed_rows.empty()) return ProjectSeparately(exprs, columns, length, options, rep, outs);
  EvalReport kernel;
  Result<std::vector<ArrayPtr>> r = ProjectRouted(s->expr, s->columns, length, options, kernel, rest_outs);
  rep.Merge(kernel);
  if (!r.ok()) return ProjectSeparately(exprs, columns, length, options, rep, outs);
  for (size_t j = 0; j < at.size(); ++j) results[at[j]] = std::move((*r)[j]);
  return results;
}

// Outputs the planner does not give one kernel (constants, staged, empty batches) are evaluated
// one by one; their errors are those of the projection (the lowest failing row, and at it the
// first failing output).
Result<std::vector<ArrayPtr>> EngineImpl::ProjectSeparately(std::span<const ir::ExprPtr> exprs,
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
    rep.Merge(one);
    if (r.ok()) {
      out.push_back(*r);
      continue;
    }
    Error e = std::move(r).TakeError();
    if (!e.row()) return ProjectionError(std::move(e), k);
    if (!first || *e.row() < *first->row()) {
      first = std::move(e);
      first_output = k;
    }
  }
  if (first) return ProjectionError(std::move(*first), first_output);
  return out;
}

// --- Prepared projections: the root built once, and per batch layout the kernel the engine's
// path ran (one kernel over every output) held -------------------------------------------------

struct PreparedProjectionState {
  EngineImpl* engine;
  ir::ExprPtr root;  // ir::MakeProjection of the expressions
  EvalOptions options;
  bool strings = false;  // outputs with strings (Route::kProjectStrings): the engine's path every call
  LayoutTable layouts;
  // A handle the engine holds for Engine::Project: its runs on a held kernel, counted
  // (CacheStats::held); null for a host's own handle.
  std::atomic<int64_t>* held_runs = nullptr;

  Result<std::vector<ArrayPtr>> Run(std::span<const ArrayPtr> columns, int64_t length, EvalReport& rep,
                                    std::span<const OutputBuffers> outs);
  Result<std::vector<ArrayPtr>> RunHeld(const PreparedLayout& layout, const Batch& batch, EvalReport& rep,
                                        std::span<const OutputBuffers> outs);
  Result<std::vector<ArrayPtr>> PlanAndRun(std::span<const ArrayPtr> columns, int64_t length, EvalReport& rep,
                                           std::span<const OutputBuffers> outs, const BatchInputs& inputs,
                                           BatchFacts::Rows rows);
};

Result<std::vector<ArrayPtr>> PreparedProjectionState::Run(std::span<const ArrayPtr> columns, int64_t length,
                                                           EvalReport& rep, std::span<const OutputBuffers> outs) {
  if (strings) return engine->ProjectRouted(root, columns, length, options, rep, outs);  // no layout held
  ROWJIT_RETURN_NOT_OK(engine->Admit(*root, columns, length));
  const ir::ExprFacts& f = root->facts();
  const BatchInputs inputs(f.columns, columns);
  // Layouts hold one kernel over every output: an empty batch, inputs the kernels cannot read as
  // they are and a root too large for one kernel take the engine's path.
  if (length == 0 || inputs.decode || RouteDescribed(*root, engine->options().max_kernel_nodes) != Route::kKernel) {
    return engine->ProjectRouted(root, columns, length, options, rep, outs);
  }
  Batch batch;
  batch.columns = columns;
  batch.facts.length = length;
  ROWJIT_RETURN_NOT_OK(ReadRows(*root, inputs.any_nulls, batch));
  const PreparedLayout* layout = layouts.Find(inputs, f.columns.size(), batch.facts.rows);
  if (layout == nullptr) return PlanAndRun(columns, length, rep, outs, inputs, batch.facts.rows);
  return RunHeld(*layout, batch, rep, outs);
}

// A held layout: its kernel over every output; evidence of the dense kernel over inputs with
// nulls may come from rows behind them, and then the engine's path decides with the exact one.
Result<std::vector<ArrayPtr>> PreparedProjectionState::RunHeld(const PreparedLayout& layout, const Batch& batch,
                                                               EvalReport& rep, std::span<const OutputBuffers> outs) {
  rep.route = layout.route;
  rep.strategy = layout.strategy;
  rep.tier = layout.kernel->tier();
  rep.kernel = layout.key;
  if (held_runs != nullptr) held_runs->fetch_add(1, std::memory_order_relaxed);
  const Execution run{*root, batch, &*layout.key, layout.kernel.get(), engine->outputs(), rep, outs};
  std::vector<Validity> validity;
  if (layout.output_validity) {
    ROWJIT_ASSIGN_OR_RETURN(validity, OutputValidity(root->args(), batch));
  }
  Result<std::optional<std::vector<ArrayPtr>>> out = ExecuteProjection(run, validity);
  if (!out.ok()) return std::move(out).TakeError();
  if (out->has_value()) return std::move(**out);
  return engine->ProjectRouted(root, batch.columns, batch.facts.length, options, rep, outs);
}

Result<std::vector<ArrayPtr>> PreparedProjectionState::PlanAndRun(std::span<const ArrayPtr> columns, int64_t length,
                                                                  EvalReport& rep,
                                                                  std::span<const OutputBuffers> outs,
                                                                  const BatchInputs& inputs, BatchFacts::Rows rows) {
  ProjectionRan ran;
  Result<std::vector<ArrayPtr>> out = engine->ProjectRouted(root, columns, length, options, rep, outs, &ran);
  // Kept: a successful run of one kernel of the tier the options want (not a rerun of the exact
  // kernel after evidence, which the next batch of this layout may not need).
  if (!out.ok() || ran.kernel == nullptr || !rep.kernel || rep.retried || !Holdable(*ran.kernel, options)) {
    return out;
  }
  auto layout = std::make_unique<PreparedLayout>();
  for (size_t k = 0; k < root->facts().columns.size(); ++k) layout->inputs.push_back(inputs[k]);
  layout->rows = rows;
  layout->route = rep.route;
  layout->strategy = rep.strategy;
  layout->key = rep.kernel;
  layout->kernel = std::move(ran.kernel);
  layout->output_validity = ran.output_validity;
  layouts.Keep(std::move(layout));
  return out;
}

std::shared_ptr<HeldProjection> EngineImpl::HeldProjectionOf(std::span<const ir::ExprPtr> exprs,
                                                             const EvalOptions& options) {
  if (exprs.empty()) return nullptr;
  for (const ir::ExprPtr& e : exprs) {
    if (e == nullptr || !e->bound()) return nullptr;
  }
  const uint64_t tag = OptionsTag(options) | uint64_t{exprs.size()} << 32;
  std::shared_ptr<HeldProjection> held =
      held_projections_.Find(exprs[0], tag, [&]() -> Result<std::unique_ptr<HeldProjection>> {
        ROWJIT_ASSIGN_OR_RETURN(std::unique_ptr<PreparedProjection> handle,
                                PrepareProjection(exprs, options, &held_runs_));
        return std::make_unique<HeldProjection>(
            HeldProjection{std::vector<ir::ExprPtr>(exprs.begin(), exprs.end()), std::move(handle)});
      });
  // Keyed by the first expression: another projection that starts with it is not this one.
  if (held == nullptr || !std::equal(exprs.begin(), exprs.end(), held->exprs.begin(), held->exprs.end())) return nullptr;
  return held;
}

Result<std::unique_ptr<PreparedProjection>> EngineImpl::PrepareProjection(std::span<const ir::ExprPtr> exprs,
                                                                          const EvalOptions& options,
                                                                          std::atomic<int64_t>* held_runs) {
  ROWJIT_ASSIGN_OR_RETURN(ir::ExprPtr root, ir::MakeProjection(exprs));
  return NoThrow([&]() -> Result<std::unique_ptr<PreparedProjection>> {
    ROWJIT_RETURN_NOT_OK(ir::CheckLimits(root->facts(), options_.limits));
    auto state = std::make_unique<PreparedProjectionState>();
    state->engine = this;
    state->strings = RouteProjectionStrings(root->args()).has_value();
    state->root = std::move(root);
    state->options = options;
    state->held_runs = held_runs;
    std::unique_ptr<PreparedProjection> handle(new PreparedProjection());
    handle->state_ = std::move(state);
    return handle;
  });
}

}  // namespace rowjit::jit::internal

namespace rowjit::jit {

using internal::ReportOf;

PreparedProjection::PreparedProjection() = default;
PreparedProjection::~PreparedProjection() = default;

std::span<const ir::ExprPtr> PreparedProjection::exprs() const { return state_->root->args(); }
size_t PreparedProjection::layouts() const { return state_->layouts.size(); }

Result<std::vector<ArrayPtr>> PreparedProjection::Project(std::span<const ArrayPtr> columns, int64_t length,
                                                          EvalReport* report) {
  EvalReport local;
  EvalReport& rep = ReportOf(report, local);
  return NoThrow([&] { return state_->Run(columns, length, rep, {}); });
}

Result<std::vector<ArrayPtr>> PreparedProjection::ProjectInto(std::span<const ArrayPtr> columns, int64_t length,
                                                              std::span<const OutputBuffers> outs, EvalReport* report) {
  EvalReport local;
  EvalReport& rep = ReportOf(report, local);
  return NoThrow([&]() -> Result<std::vector<ArrayPtr>> {
    ROWJIT_RETURN_NOT_OK(internal::CheckOutputs(state_->root->args(), outs, length, columns));
    ROWJIT_ASSIGN_OR_RETURN(std::vector<ArrayPtr> results, state_->Run(columns, length, rep, outs));
    return internal::DeliverAll(results, outs, rep);
  });
}

Result<std::vector<ArrayPtr>> PreparedProjection::Project(std::span<const ArrayPtr> columns, int64_t length,
                                                          const SelectionVector& selection, EvalReport* report) {
  ROWJIT_ASSIGN_OR_RETURN(std::vector<ArrayPtr> taken, internal::TakeInputs(*state_->root, columns, length, selection,
                                                                            state_->engine->outputs()));
  Result<std::vector<ArrayPtr>> out = Project(taken, selection.size(), report);
  if (out.ok()) return out;
  return internal::AtBatchRow(std::move(out).TakeError(), selection);
}

}  // namespace rowjit::jit
