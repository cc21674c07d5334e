// The Engine (jit layer, api room): its public methods, each forwarding to EngineImpl, and the
// engine's own machinery: making it, the kernel caches' makers, admission, tiers and kernels.
// The routes themselves run in evaluate.cc, aggregate.cc, project.cc and filter.cc.
#include "jit/api/engine.h"

#include <algorithm>
#include <chrono>

#include "ir/projection.h"
#include "ir/reference.h"
#include "jit/api/engine_impl.h"
#include "jit/base/host.h"
#include "jit/plan/staging.h"
#include "runtime/environment.h"

namespace rowjit::jit {

// --- Engine: the public methods ---------------------------------------------------------------

Engine::Engine() = default;
Engine::~Engine() = default;

Result<std::unique_ptr<Engine>> Engine::Make(EngineOptions options) {
  return NoThrow([&]() -> Result<std::unique_ptr<Engine>> {
    ApplyKernelLevelVariable();  // before the compiler resolves the native target's level
    ROWJIT_ASSIGN_OR_RETURN(auto compiler, JitCompiler::Make(options.vector_widths));
    return Make(std::move(options), std::move(compiler));
  });
}

Result<std::unique_ptr<Engine>> Engine::Make(EngineOptions options, std::unique_ptr<JitCompiler> compiler) {
  return NoThrow([&]() -> Result<std::unique_ptr<Engine>> {
    ROWJIT_ASSIGN_OR_RETURN(std::unique_ptr<internal::EngineImpl> impl,
                            internal::EngineImpl::Make(std::move(options), std::move(compiler)));
    std::unique_ptr<Engine> engine(new Engine());
    engine->impl_ = std::move(impl);
    return engine;
  });
}

Result<ArrayPtr> Engine::Evaluate(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns, int64_t length,
                                  const EvalOptions& options, EvalReport* report) {
  return impl_->Evaluate(expr, columns, length, options, report);
}

Result<ArrayPtr> Engine::Evaluate(const ir::ExprPtr& expr, const RecordBatch& batch, const EvalOptions& options,
                                  EvalReport* report) {
  return impl_->Evaluate(expr, batch.columns, batch.length, options, report);
}

Result<ArrayPtr> Engine::Evaluate(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns, int64_t length,
                                  const SelectionVector& selection, const EvalOptions& options,
                                  EvalReport* report) {
  return impl_->EvaluateSelected(expr, columns, length, selection, options, report);
}

Result<ArrayPtr> Engine::EvaluateInto(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns, int64_t length,
                                      const OutputBuffers& out, const EvalOptions& options, EvalReport* report) {
  return impl_->EvaluateInto(expr, columns, length, out, options, report);
}

Result<ArrayPtr> Engine::EvaluateInto(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns, int64_t length,
                                      const SelectionVector& selection, const OutputBuffers& out,
                                      const EvalOptions& options, EvalReport* report) {
  return impl_->EvaluateSelectedInto(expr, columns, length, selection, out, options, report);
}

Result<SelectionVector> Engine::Filter(const ir::ExprPtr& predicate, std::span<const ArrayPtr> columns,
                                       int64_t length, const EvalOptions& options, EvalReport* report) {
  return impl_->Filter(predicate, columns, length, nullptr, options, report);
}

Result<SelectionVector> Engine::Filter(const ir::ExprPtr& predicate, std::span<const ArrayPtr> columns,
                                       int64_t length, const SelectionVector& selection,
                                       const EvalOptions& options, EvalReport* report) {
  return impl_->Filter(predicate, columns, length, &selection, options, report);
}

Result<std::vector<ArrayPtr>> Engine::Project(std::span<const ir::ExprPtr> exprs, std::span<const ArrayPtr> columns,
                                              int64_t length, const EvalOptions& options, EvalReport* report) {
  return impl_->Project(exprs, columns, length, {}, options, report);
}

Result<std::vector<ArrayPtr>> Engine::Project(std::span<const ir::ExprPtr> exprs, std::span<const ArrayPtr> columns,
                                              int64_t length, const SelectionVector& selection,
                                              const EvalOptions& options, EvalReport* report) {
  return impl_->ProjectSelected(exprs, columns, length, selection, {}, options, report);
}

Result<std::vector<ArrayPtr>> Engine::ProjectInto(std::span<const ir::ExprPtr> exprs, std::span<const ArrayPtr> columns,
                                                  int64_t length, std::span<const OutputBuffers> outs,
                                                  const EvalOptions& options, EvalReport* report) {
  return impl_->Project(exprs, columns, length, outs, options, report);
}

Result<std::vector<ArrayPtr>> Engine::ProjectInto(std::span<const ir::ExprPtr> exprs, std::span<const ArrayPtr> columns,
                                                  int64_t length, const SelectionVector& selection,
                                                  std::span<const OutputBuffers> outs, const EvalOptions& options,
                                                  EvalReport* report) {
  return impl_->ProjectSelected(exprs, columns, length, selection, outs, options, report);
}

Status Engine::TopK(const ir::TopK& top, std::span<const ArrayPtr> columns, int64_t length, ir::TopKState& state,
                    int64_t first_row, const EvalOptions& options, EvalReport* report) {
  if (top.selected == nullptr) return MakeError(ErrorCode::kInvalidInput, "a top-k selection without a score");
  if (state.k() != top.k || state.largest() != top.largest || !(state.score_type() == top.score->type().WithNullable(false))) {
    return MakeError(ErrorCode::kInvalidInput, "a top-k state of another selection");
  }
  ROWJIT_ASSIGN_OR_RETURN(ArrayPtr scores, Evaluate(top.selected, columns, length, options, report));
  return state.Add(*scores, first_row);
}

Result<ir::AggregateResult> Engine::Aggregate(const ir::Aggregate& aggregate, std::span<const ArrayPtr> columns,
                                              int64_t length, EvalReport* report) {
  return impl_->Aggregate(aggregate, columns, length, EvalOptions{}, report);
}

Result<ir::AggregateResult> Engine::Aggregate(const ir::Aggregate& aggregate, std::span<const ArrayPtr> columns,
                                              int64_t length, const EvalOptions& options, EvalReport* report) {
  return impl_->Aggregate(aggregate, columns, length, options, report);
}

Result<ir::AggregateResult> Engine::Aggregate(const ir::Aggregate& aggregate, std::span<const ArrayPtr> columns,
                                              int64_t length, const SelectionVector& selection,
                                              const EvalOptions& options, EvalReport* report) {
  if (aggregate.arg == nullptr) return MakeError(ErrorCode::kInvalidInput, "aggregate without argument");
  const ir::ExprPtr arg[] = {aggregate.arg};
  ROWJIT_ASSIGN_OR_RETURN(std::vector<ArrayPtr> values,
                          impl_->ProjectSelected(arg, columns, length, selection, {}, options, nullptr));
  ir::Aggregate over_values = aggregate;
  over_values.arg = ir::Expr::BoundColumn("arg", 0, aggregate.arg->type());
  Result<ir::AggregateResult> out = impl_->Aggregate(over_values, values, selection.size(), options, report);
  if (!out.ok()) return internal::AtBatchRow(out.error(), selection);  // a row of the values: its batch row
  return out;
}

Status Engine::Prepare(const ir::ExprPtr& expr, const Schema& schema) { return impl_->Prepare(expr, schema); }

Result<std::unique_ptr<PreparedExpression>> Engine::PrepareExpression(const ir::ExprPtr& expr,
                                                                      const EvalOptions& options) {
  return impl_->PrepareExpression(expr, options);
}

Result<std::unique_ptr<PreparedProjection>> Engine::PrepareProjection(std::span<const ir::ExprPtr> exprs,
                                                                      const EvalOptions& options) {
  return impl_->PrepareProjection(exprs, options);
}

Result<std::unique_ptr<PreparedAggregate>> Engine::PrepareAggregate(const ir::Aggregate& aggregate,
                                                                    const EvalOptions& options) {
  return impl_->PrepareAggregate(aggregate, options);
}

void Engine::WaitForCompiles() { impl_->WaitForCompiles(); }

Result<std::shared_ptr<const CompiledKernel>> Engine::KernelFor(const CacheKey& key) { return impl_->KernelFor(key); }

CacheStats Engine::cache_stats() const { return impl_->cache_stats(); }

DiskCacheStats Engine::disk_cache_stats() const { return impl_->disk_cache_stats(); }

// --- EngineImpl: making it ----------------------------------------------------------------------

namespace internal {

Result<std::unique_ptr<EngineImpl>> EngineImpl::Make(EngineOptions options, std::unique_ptr<JitCompiler> compiler) {
  ApplyKernelLevelVariable();
  if (compiler == nullptr) return MakeError(ErrorCode::kInvalidInput, "null compiler");
  if (options.fold_slice_rows < 1 || options.fold_slice_rows > (int64_t{1} << 31)) {
    return MakeError(ErrorCode::kInvalidInput, "fold_slice_rows {} is not in [1, 2^31]", options.fold_slice_rows);
  }
  // Each held table notes as many expressions as it holds, up front.
  if (options.held_expressions > kMaxHeldExpressions) {
    return MakeError(ErrorCode::kInvalidInput, "held_expressions {} is above {}", options.held_expressions,
                     kMaxHeldExpressions);
  }
  // A stage holds at least one call and its arguments (at most 4, add_interval's; variadic
  // calls are grouped by staging): below 5 nodes staging could not shrink such a call.
  if (options.max_kernel_nodes < kMinKernelNodes) {
    return MakeError(ErrorCode::kInvalidInput, "max_kernel_nodes {} is below {}", options.max_kernel_nodes,
                     kMinKernelNodes);
  }
  if (options.max_queued_compiles < 1) {
    return MakeError(ErrorCode::kInvalidInput, "max_queued_compiles is 0; the queue holds at least 1");
  }
  if (options.claim_wait_ms < 0) {
    return MakeError(ErrorCode::kInvalidInput, "claim_wait_ms {} is negative", options.claim_wait_ms);
  }
  std::unique_ptr<DiskCache> disk;
  if (!options.cache_dir.empty()) {
    ROWJIT_ASSIGN_OR_RETURN(disk, DiskCache::Open(options.cache_dir, options.disk_cache_bytes,
                                                  std::chrono::milliseconds(options.claim_wait_ms)));
  }
  std::unique_ptr<CompilePool> pool;
  if (options.compile == EngineOptions::Compile::kTiered) {
    ROWJIT_ASSIGN_OR_RETURN(pool, CompilePool::Make(options.compile_threads, options.max_queued_compiles));
  }
  return std::make_unique<EngineImpl>(std::move(compiler), options, std::move(disk), std::move(pool));
}

EngineImpl::EngineImpl(std::unique_ptr<JitCompiler> c, const EngineOptions& o, std::unique_ptr<DiskCache> d,
                       std::unique_ptr<CompilePool> pool)
    : options_(o),
      compiler_(std::move(c)),
      disk_(std::move(d)),
      object_environment_(compiler_->ObjectEnvironment()),
      cache_(o.cache_capacity, o.optimize_after_uses, Makers()),
      held_exprs_(o.held_expressions),
      held_aggregates_(o.held_expressions),
      held_projections_(o.held_expressions),
      pool_(std::move(pool)) {
  if (kRecycleOutputs && o.retained_output_bytes > 0) {
    outputs_ = std::make_shared<RecyclingPool>(o.retained_output_bytes, kRecycledOutputMin);
  }
  stream_bytes_ = StreamThreshold(o.stream_output_bytes);
}

EngineImpl::~EngineImpl() {
  cache_.Close();
  if (disk_ != nullptr) disk_->Abandon();
  pool_.reset();
}

// Kernels from disk when the disk cache has them; compiled optimized kernels go to disk.
KernelCache::Makers EngineImpl::Makers() {
  KernelCache::Makers m;
  m.load = [this](const CacheKey& key) -> Result<KernelCache::KernelPtr> {
    if (disk_ == nullptr) return KernelCache::KernelPtr();
    const auto start = std::chrono::steady_clock::now();
    std::optional<std::string> bytes = disk_->Load(DiskKey(key));
    if (!bytes) return KernelCache::KernelPtr();
    KernelObject object{std::move(*bytes), {}};
    object.phases.read_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return compiler_->Link(object, key.shape, Tier::kOptimized);
  };
  m.compile = [this](const CacheKey& key, Tier tier) -> Result<KernelCache::KernelPtr> {
    ROWJIT_ASSIGN_OR_RETURN(KernelObject object, compiler_->Emit(key, tier));
    // The disk cache is an optimization: a failed write (full disk) costs a later compile only.
    if (disk_ != nullptr && tier == Tier::kOptimized) (void)disk_->Store(DiskKey(key), object.bytes);
    return compiler_->Link(object, key.shape, tier);
  };
  m.submit = [this](std::function<void()> job) { return pool_ != nullptr && pool_->Submit(std::move(job)); };
  m.claim = [this](const CacheKey& key) -> std::shared_ptr<void> {
    return disk_ != nullptr ? disk_->Claim(DiskKey(key)) : nullptr;
  };
  return m;
}

// The streaming threshold: the option, or the last-level cache one core shares (jit/base/host.h).
int64_t EngineImpl::StreamThreshold(int64_t option) {
#if defined(__x86_64__)
  if (option != 0) return std::max<int64_t>(option, 0);
  return LastLevelCacheBytes();
#else
  (void)option;
  return 0;  // the kernels' streaming form is x86's (non-temporal stores and sfence)
#endif
}

bool EngineImpl::StreamsOutput(const ir::Expr& expr, int64_t length, int64_t input_row_bytes,
                               std::span<const OutputBuffers> into) const {
  if (stream_bytes_ <= 0 || expr.type().id == TypeId::kBool) return false;
  if (length * (ByteWidth(expr.type().id) + input_row_bytes) < stream_bytes_) return false;
  return into.empty() || reinterpret_cast<uintptr_t>(into[0].values) % kBufferAlignment == 0;
}

// --- EngineImpl: stats, kernels, admission --------------------------------------------------------

CacheStats EngineImpl::cache_stats() const {
  CacheStats s = cache_.stats();
  s.held = held_runs_.load(std::memory_order_relaxed);
  if (pool_ != nullptr) {
    s.compile_queue = pool_->queued();
    s.compile_queue_peak = pool_->queued_peak();
  }
  return s;
}

DiskCacheStats EngineImpl::disk_cache_stats() const { return disk_ ? disk_->stats() : DiskCacheStats{}; }

void EngineImpl::WaitForCompiles() {
  if (pool_) pool_->WaitIdle();
}

Result<std::shared_ptr<const CompiledKernel>> EngineImpl::KernelFor(const CacheKey& key) {
  if (key.spec.expr == nullptr) return MakeError(ErrorCode::kInvalidInput, "null expression");
  return NoThrow([&]() -> Result<std::shared_ptr<const CompiledKernel>> {
    ROWJIT_RETURN_NOT_OK(ir::CheckLimits(key.spec.expr->facts(), options_.limits));
    ROWJIT_ASSIGN_OR_RETURN(KernelCache::Lookup found, cache_.Get(key, TierWant::kOptimized));
    return std::move(found.kernel);
  });
}

Result<std::shared_ptr<const CompiledKernel>> EngineImpl::KernelOf(Plan& plan, TierWant want, EvalReport& report,
                                                                   std::optional<KernelCache::Lookup> ready) {
  if (!plan.kernel) return std::shared_ptr<const CompiledKernel>();
  if (!ready) {
    ROWJIT_ASSIGN_OR_RETURN(ready, cache_.Get(*plan.kernel, want));
  }
  KernelCache::Lookup& found = *ready;
  report.compiled = found.source == KernelSource::kCompiled;
  if (found.source != KernelSource::kMemory) {
    report.phases = found.kernel->phases();
    report.compile_ms = report.phases.total_ms();
  }
  report.tier = found.kernel->tier();
  report.source = found.source;
  report.kernel = std::move(plan.kernel);
  return std::move(found.kernel);
}

Result<std::shared_ptr<const CompiledKernel>> EngineImpl::TieredKernelOf(Plan& plan, const EvalOptions& options,
                                                                         EvalReport& report) {
  TierWant want = WantOf(options);
  std::optional<KernelCache::Lookup> ready;
  if (want == TierWant::kTiered) {
    ROWJIT_ASSIGN_OR_RETURN(KernelCache::Lookup found, cache_.Get(*plan.kernel, TierWant::kOptimizedIfReady));
    if (found.kernel != nullptr) ready = std::move(found);
    if (!ready) want = TierWant::kFast;
  }
  return KernelOf(plan, want, report, std::move(ready));
}

void EngineImpl::ApplyRetryPressure(const ir::Expr& expr, ir::Policy policy, Batch& batch) {
  if (policy != ir::Policy::kAuto || !expr.facts().can_fail ||
      batch.facts.rows != BatchFacts::Rows::kSomeNull || !retry_pressure_.PreferValidOnly(expr)) {
    return;
  }
  batch.facts = ValidOnlyFacts(expr, batch);
}

// The batches after a retry run valid-only, through a kernel of their own (branch-and-skip's;
// filter-and-scatter runs the dense one): it is found here, in the call whose retry made them owe
// it, so that the call after it runs from memory. Found later, the first valid-only batch would
// compile it: in a batch loop the call after the warm-up, whose one compile is then measured as
// the loop's time per call (bench: `guarded/i32_div/jit/rows:65536/valid:50` under
// `tools/bench-report --quick`). The retry itself is a rerun of the dense kernel over the
// compacted valid rows for evidence only, which costs less than a valid-only run of the whole
// batch. A tiered engine only starts the optimized compile; a kernel that fails to compile fails
// the call that runs it, not this one.
void EngineImpl::RaiseRetryPressure(const ir::ExprPtr& expr, const Batch& batch, const EvalOptions& options,
                                    EvalReport& report) {
  retry_pressure_.Retried(*expr);
  const Plan next = PlanEvaluation(expr, ValidOnlyFacts(*expr, batch), options.policy);
  if (!next.kernel) return;
  const TierWant want = WantOf(options);
  Result<KernelCache::Lookup> found =
      cache_.Get(*next.kernel, want == TierWant::kTiered ? TierWant::kOptimizedIfReady : want);
  if (!found.ok() || found->kernel == nullptr || found->source == KernelSource::kMemory) return;
  report.compiled = report.compiled || found->source == KernelSource::kCompiled;
  report.compile_ms += found->kernel->phases().total_ms();
}

double EngineImpl::EvaluationBytesPerRow(const ir::Expr& expr, std::span<const ArrayPtr> columns) {
  // The output and its validity (every output of a projection), and at worst a decoded or
  // aligned copy of every input (a string's offsets or views: 16 bytes a row at most).
  auto output_bytes = [](const ir::Expr& e) { return e.type().id == TypeId::kBool ? 1.25 : ByteWidth(e.type().id) + 0.125; };
  double per_row = 0;
  if (ir::IsProjection(expr)) {
    for (const ir::ExprPtr& out : expr.args()) per_row += output_bytes(*out);
  } else {
    per_row = output_bytes(expr);
  }
  for (int c : expr.facts().columns) {
    per_row += IsString(columns[c]->type().id) ? 16 : ByteWidth(columns[c]->type().id);
  }
  return per_row;
}

Status EngineImpl::Admit(const ir::Expr& expr, std::span<const ArrayPtr> columns, int64_t length, bool folded) const {
  ROWJIT_RETURN_NOT_OK(ir::CheckLimits(expr.facts(), options_.limits));
  if (static_cast<int64_t>(columns.size()) > options_.limits.max_columns) {
    return MakeError(ErrorCode::kInvalidInput, "batch of {} columns; the limit is {} (Limits::max_columns)",
                     columns.size(), options_.limits.max_columns);
  }
  ROWJIT_RETURN_NOT_OK(ir::CheckInputs(expr, columns, length));
  // No string results (an aggregate's argument is folded: count(s)). Checked without building a
  // list of the outputs: this runs on every call.
  auto string_result = [](const ir::Expr& out) {
    return MakeError(ErrorCode::kUnsupported,
                     "{} returns {}: string results are not built yet (string functions return "
                     "bools and integers)",
                     out.ToString(), out.type().ToString());
  };
  if (ir::IsProjection(expr)) {
    for (const ir::ExprPtr& out : expr.args()) {
      if (IsString(out->type().id) && !folded) return string_result(*out);
    }
  } else if (IsString(expr.type().id) && !folded) {
    return string_result(expr);
  }
  if (options_.max_evaluation_bytes <= 0) return Status::OK();
  const double bytes = static_cast<double>(length) * EvaluationBytesPerRow(expr, columns);
  if (bytes > static_cast<double>(options_.max_evaluation_bytes)) {
    return MakeError(ErrorCode::kOutOfMemory,
                     "evaluating {} rows needs about {:.0f} MiB; the limit is {:.0f} MiB "
                     "(EngineOptions::max_evaluation_bytes)",
                     length, bytes / (1 << 20), static_cast<double>(options_.max_evaluation_bytes) / (1 << 20));
  }
  return Status::OK();
}

// --- Prepare: the kernels a schema's batches will run, made ahead ---------------------------------

namespace {

// The specs of flat columns as `schema` describes them: a nullable field is taken to hold nulls.
std::vector<ir::InputSpec> SchemaSpecs(const Schema& schema) {
  std::vector<ir::InputSpec> specs;
  for (const Field& f : schema.fields) {
    specs.push_back({.shape = ir::InputShape::kFlat, .type = f.type.id, .has_nulls = f.type.nullable, .layout = f.layout});
  }
  return specs;
}

}  // namespace

Status EngineImpl::Prepare(const ir::ExprPtr& expr, const Schema& schema) {
  if (expr == nullptr) return MakeError(ErrorCode::kInvalidInput, "null expression");
  return NoThrow([&]() -> Status {
    ROWJIT_RETURN_NOT_OK(ir::CheckLimits(expr->facts(), options_.limits));
    if (!expr->bound()) return MakeError(ErrorCode::kInvalidInput, "expression is not bound");
    // Vector functions run kernels of their own, made on the first batch (ScoreVectors); struct
    // fields and list functions' results are columns only a batch has.
    if (expr->facts().reads_nested()) return Status::OK();
    std::vector<ir::InputSpec> specs = SchemaSpecs(schema);
    std::vector<ir::ExprPtr> kernels = {expr};
    if (RouteDescribed(*expr, options_.max_kernel_nodes) == Route::kStaged) {  // each stage, then the root
      Stages staged = SplitIntoStages(expr, static_cast<int>(specs.size()), options_.max_kernel_nodes);
      kernels = std::move(staged.stages);
      kernels.push_back(staged.root);
    }
    for (const ir::ExprPtr& e : kernels) {
      for (const ir::Expr* c : e->facts().column_nodes) {
        if (c->column_index() < 0 || static_cast<size_t>(c->column_index()) >= specs.size()) {
          return MakeError(ErrorCode::kInvalidInput, "column '{}' is not in the schema", c->name());
        }
      }
      // As a batch describes its inputs: the columns the kernel reads, the others left default.
      std::vector<ir::InputSpec> read(specs.size());
      for (int c : e->facts().columns) read[c] = specs[c];
      Plan plan = PlanEvaluation(e, DescribeSpecs(e->facts(), std::move(read)), ir::Policy::kAuto);
      if (plan.kernel) {
        if (pool_) cache_.Prefetch(*plan.kernel);
        else ROWJIT_RETURN_NOT_OK(cache_.Get(*plan.kernel, TierWant::kOptimized).status());
      }
      specs.push_back({.shape = ir::InputShape::kFlat, .type = e->type().id, .has_nulls = e->type().nullable});
    }
    return Status::OK();
  });
}

}  // namespace internal

}  // namespace rowjit::jit
