// Projections (jit layer): several expressions over one batch in one kernel pass. The outputs
// become the arguments of one root (ir/projection.h), planned and cached like any expression;
// its kernel stores every output, and LLVM computes a subexpression the outputs share once
// (the outputs' IR is emitted into one loop body, where common subexpressions are merged).
#include "ir/projection.h"
#include "ir/reference.h"
#include "jit/engine.h"
#include "jit/engine_internal.h"
#include "jit/executor_internal.h"

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
    ROWJIT_ASSIGN_OR_RETURN(delivered.emplace_back(), internal::Deliver(*results[k], outs[k], &rep.output_copied));
  }
  return delivered;
}

}  // namespace

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
  EvalReport local;
  EvalReport& rep = report ? *report : local;
  rep = EvalReport{};
  ROWJIT_ASSIGN_OR_RETURN(ir::ExprPtr root, ir::MakeProjection(exprs));
  return NoThrow([&] { return ProjectRoot(root, columns, length, options, rep, {}); });
}

Result<std::vector<ArrayPtr>> Engine::ProjectInto(std::span<const ir::ExprPtr> exprs, std::span<const ArrayPtr> columns,
                                                  int64_t length, std::span<const OutputBuffers> outs,
                                                  const EvalOptions& options, EvalReport* report) {
  EvalReport local;
  EvalReport& rep = report ? *report : local;
  rep = EvalReport{};
  ROWJIT_ASSIGN_OR_RETURN(ir::ExprPtr root, ir::MakeProjection(exprs));
  return NoThrow([&]() -> Result<std::vector<ArrayPtr>> {
    ROWJIT_RETURN_NOT_OK(internal::CheckOutputs(root->args(), outs, length, columns));
    ROWJIT_ASSIGN_OR_RETURN(std::vector<ArrayPtr> results, ProjectRoot(root, columns, length, options, rep, outs));
    return DeliverAll(results, outs, rep);
  });
}

// The projection `root` (ir::MakeProjection) over a batch; `outs`: the caller's outputs, or none.
Result<std::vector<ArrayPtr>> Engine::ProjectRoot(const ir::ExprPtr& root, std::span<const ArrayPtr> columns,
                                                  int64_t length, const EvalOptions& options, EvalReport& rep,
                                                  std::span<const OutputBuffers> outs) {
  const std::span<const ir::ExprPtr> exprs = root->args();
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

}  // namespace rowjit::jit
