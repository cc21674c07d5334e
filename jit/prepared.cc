// Prepared expressions (jit layer): the host's handle for one expression evaluated batch after
// batch. Engine::Evaluate plans every call and finds its kernel through the cache (hashing and
// comparing the whole expression tree); a prepared expression does that once per batch layout
// and keeps the plan and the kernel, so that a call on a known layout costs its input checks,
// one read of the batch and the kernel run.
#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>

#include "jit/engine_internal.h"

namespace rowjit::jit {

// One batch layout and what runs on it.
struct PreparedLayout {
  std::vector<ir::InputSpec> inputs;  // per referenced column, in ExprFacts::columns order
  BatchFacts::Rows rows = BatchFacts::Rows::kAllValid;
  Strategy strategy = Strategy::kEmpty;
  std::optional<CacheKey> key;                   // the plan's kernel (none without a kernel)
  std::shared_ptr<const CompiledKernel> kernel;  // held: no cache lookup per call
};

struct BatchInputs;

// Layouts are only ever added (up to kMaxLayouts; batches of further layouts take the engine's
// path) and live as long as the handle: a call finds its layout with acquire loads, no lock.
struct PreparedExpression::State {
  Engine* engine;
  ir::ExprPtr expr;
  EvalOptions options;
  std::array<std::atomic<const PreparedLayout*>, kMaxLayouts> slots{};
  std::atomic<size_t> published{0};  // slots [0, published) are set
  std::mutex mu;                     // adding a layout
  std::vector<std::unique_ptr<const PreparedLayout>> owned;

  // `full_report`: the caller asked for a report, so that the kernel key is copied into it.
  Result<ArrayPtr> Run(std::span<const ArrayPtr> columns, int64_t length, EvalReport& rep, bool full_report);
  // The layout of a batch, or null when unseen.
  const PreparedLayout* Find(const BatchInputs& inputs, BatchFacts::Rows rows) const;
  Result<ArrayPtr> PlanAndRun(std::span<const ArrayPtr> columns, int64_t length, EvalReport& rep);
  void Keep(std::unique_ptr<PreparedLayout> layout);
};

namespace {

// Whether the kernel that ran is the one to hold: the tier the options ask for (the fast one
// only when forced), so that a tiered engine's later optimized kernel is not missed.
bool Holdable(const CompiledKernel& kernel, const EvalOptions& options) {
  const Tier want = options.tier == Tier::kFast ? Tier::kFast : Tier::kOptimized;
  return kernel.tier() == want;
}

}  // namespace

// The referenced columns of a batch as a layout compares them: described in place for the
// common case of up to 16 of them.
struct BatchInputs {
  ir::InputSpec inline_specs[16];
  std::vector<ir::InputSpec> more;  // wider expressions
  bool any_nulls = false;
  bool decode = false;  // a column kernels cannot read as it is: the engine's path decodes it

  BatchInputs(const std::vector<int>& refs, std::span<const ArrayPtr> columns) {
    if (refs.size() > std::size(inline_specs)) more.resize(refs.size());
    ir::InputSpec* specs = more.empty() ? inline_specs : more.data();
    for (size_t k = 0; k < refs.size(); ++k) {
      const Array& a = *columns[refs[k]];
      decode = decode || internal::NeedsDecoding(a);
      specs[k] = ir::DescribeInput(a);
      any_nulls = any_nulls || specs[k].has_nulls;
    }
  }
  const ir::InputSpec& operator[](size_t k) const { return more.empty() ? inline_specs[k] : more[k]; }
};

const PreparedLayout* PreparedExpression::State::Find(const BatchInputs& inputs, BatchFacts::Rows rows) const {
  const size_t refs = expr->facts().columns.size();
  const size_t n = published.load(std::memory_order_acquire);
  for (size_t i = 0; i < n; ++i) {
    const PreparedLayout* layout = slots[i].load(std::memory_order_acquire);
    bool same = layout->rows == rows;
    for (size_t k = 0; k < refs && same; ++k) same = layout->inputs[k] == inputs[k];
    if (same) return layout;
  }
  return nullptr;
}

void PreparedExpression::State::Keep(std::unique_ptr<PreparedLayout> layout) {
  std::lock_guard lock(mu);
  for (const auto& held : owned) {  // another thread planned it meanwhile
    if (held->rows == layout->rows && held->inputs == layout->inputs) return;
  }
  const size_t n = published.load(std::memory_order_relaxed);
  if (n == kMaxLayouts) return;
  slots[n].store(layout.get(), std::memory_order_release);
  owned.push_back(std::move(layout));
  published.store(n + 1, std::memory_order_release);
}

// A layout seen for the first time: read, planned and run as Engine::Evaluate does it, and kept
// when the run succeeded with one plain kernel (or none) that may be held.
Result<ArrayPtr> PreparedExpression::State::PlanAndRun(std::span<const ArrayPtr> columns, int64_t length,
                                                       EvalReport& rep) {
  Engine::Impl& impl = *engine->impl_;
  ROWJIT_ASSIGN_OR_RETURN(internal::Batch batch, internal::ReadBatch(*expr, columns, length));
  Plan plan = PlanEvaluation(expr, batch.facts, options.policy, "native", impl.options.max_kernel_nodes);
  rep.strategy = plan.strategy;
  auto layout = std::make_unique<PreparedLayout>();
  layout->rows = batch.facts.rows;
  layout->strategy = plan.strategy;
  for (int c : expr->facts().columns) layout->inputs.push_back(batch.facts.inputs[c]);
  const bool needs_kernel = plan.kernel.has_value();  // RunPlan moves the key into the report
  Result<ArrayPtr> out = impl.RunPlan(*expr, batch, plan, options, rep, &layout->kernel);
  // Not kept: a failed run (its compile may succeed next time), a length-0 batch (planned by its
  // length, not its layout), and a kernel of a tier the options do not want held.
  const bool keep = out.ok() && plan.strategy != Strategy::kEmpty &&
                    (needs_kernel ? layout->kernel != nullptr && rep.kernel.has_value() &&
                                        Holdable(*layout->kernel, options)
                                  : layout->kernel == nullptr);
  if (keep) {
    layout->key = rep.kernel;
    Keep(std::move(layout));
  }
  return out;
}

Result<ArrayPtr> PreparedExpression::State::Run(std::span<const ArrayPtr> columns, int64_t length,
                                                EvalReport& rep, bool full_report) {
  Engine::Impl& impl = *engine->impl_;
  ROWJIT_RETURN_NOT_OK(impl.Admit(*expr, columns, length));
  const ir::ExprFacts& f = expr->facts();
  if (f.nodes > impl.options.max_kernel_nodes) {  // staged: every stage its own plan
    return engine->EvaluateAdmitted(expr, columns, length, options, rep);
  }
  const BatchInputs inputs(f.columns, columns);
  // Inputs the kernels cannot read as they are: Evaluate's path decodes them (once).
  if (length == 0 || inputs.decode) return engine->EvaluateAdmitted(expr, columns, length, options, rep);
  internal::Batch batch;
  batch.columns = columns;
  batch.facts.length = length;
  ROWJIT_RETURN_NOT_OK(internal::ReadRows(*expr, inputs.any_nulls, batch));
  // Valid-only runs owed to retry pressure: planned per batch by Evaluate's path.
  if (options.policy == ir::Policy::kAuto && f.can_fail && batch.facts.rows == BatchFacts::Rows::kSomeNull &&
      impl.retry_pressure.Pressured(*expr)) {
    return engine->EvaluateAdmitted(expr, columns, length, options, rep);
  }
  const PreparedLayout* layout = Find(inputs, batch.facts.rows);
  if (layout == nullptr) return PlanAndRun(columns, length, rep);
  rep.strategy = layout->strategy;
  if (layout->kernel) rep.tier = layout->kernel->tier();
  if (full_report) rep.kernel = layout->key;
  const CacheKey* key = layout->key ? &*layout->key : nullptr;
  const internal::Execution run{*expr, batch, key, layout->kernel.get(), impl.outputs, rep};
  Result<ArrayPtr> out = internal::ExecuteRows(layout->strategy, run);
  if (out.ok() && rep.retried && options.policy == ir::Policy::kAuto) impl.retry_pressure.Retried(*expr);
  return out;
}

PreparedExpression::PreparedExpression(std::unique_ptr<State> state) : state_(std::move(state)) {}
PreparedExpression::~PreparedExpression() = default;

const ir::ExprPtr& PreparedExpression::expr() const { return state_->expr; }

size_t PreparedExpression::layouts() const { return state_->published.load(std::memory_order_acquire); }

Result<ArrayPtr> PreparedExpression::Evaluate(std::span<const ArrayPtr> columns, int64_t length,
                                              EvalReport* report) {
  EvalReport local;
  if (report != nullptr) *report = EvalReport{};
  EvalReport& rep = report ? *report : local;
  return NoThrow([&] { return state_->Run(columns, length, rep, report != nullptr); });
}

Result<std::unique_ptr<PreparedExpression>> Engine::PrepareExpression(const ir::ExprPtr& expr,
                                                                      const EvalOptions& options) {
  if (expr == nullptr) return MakeError(ErrorCode::kInvalidInput, "null expression");
  return NoThrow([&]() -> Result<std::unique_ptr<PreparedExpression>> {
    if (!expr->bound()) return MakeError(ErrorCode::kInvalidInput, "expression is not bound");
    ROWJIT_RETURN_NOT_OK(ir::CheckLimits(expr->facts(), impl_->options.limits));
    auto state = std::make_unique<PreparedExpression::State>();
    state->engine = this;
    state->expr = expr;
    state->options = options;
    return std::unique_ptr<PreparedExpression>(new PreparedExpression(std::move(state)));
  });
}

}  // namespace rowjit::jit
