// The Engine (jit layer): its public plumbing. Each call checks its inputs, reads the batch,
// asks the planner (jit/plan/planner.h) for a strategy and kernel, gets the kernel from the cache
// (compiling it on a miss), and hands both to the executor (jit/exec/executor.cc, executor_fold.cc).
#include "jit/api/engine.h"

#include "jit/api/engine_internal.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cassert>
#include <array>
#include <atomic>

#include "ir/analysis.h"
#include "ir/projection.h"
#include "ir/reference.h"
#include "jit/cache/compile_pool.h"
#include "jit/exec/executor_internal.h"
#include "jit/plan/staging.h"
#include "jit/exec/static_chain.h"

namespace rowjit::jit {

// Kernels from disk when the disk cache has them; compiled optimized kernels go to disk.
KernelCache::Makers Engine::Impl::Makers() {
  KernelCache::Makers m;
  m.load = [this](const CacheKey& key) -> Result<KernelCache::KernelPtr> {
    if (disk == nullptr) return KernelCache::KernelPtr();
    const auto start = std::chrono::steady_clock::now();
    std::optional<std::string> bytes = disk->Load(DiskKey(key));
    if (!bytes) return KernelCache::KernelPtr();
    KernelObject object{std::move(*bytes), {}};
    object.phases.read_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return compiler->Link(object, key.shape, Tier::kOptimized);
  };
  m.compile = [this](const CacheKey& key, Tier tier) -> Result<KernelCache::KernelPtr> {
    ROWJIT_ASSIGN_OR_RETURN(KernelObject object, compiler->Emit(key, tier));
    // The disk cache is an optimization: a failed write (full disk) costs a later compile only.
    if (disk != nullptr && tier == Tier::kOptimized) (void)disk->Store(DiskKey(key), object.bytes);
    return compiler->Link(object, key.shape, tier);
  };
  m.submit = [this](std::function<void()> job) {
    if (pool) pool->Submit(std::move(job));
  };
  m.claim = [this](const CacheKey& key) -> std::shared_ptr<void> {
    return disk != nullptr ? disk->Claim(DiskKey(key)) : nullptr;
  };
  return m;
}

namespace {

// The last-level cache one core shares: Linux's sysfs for cpu0's L3 ("32768K"), which names the
// slice a core sees (glibc's sysconf reported the whole socket's 256 MiB on a Zen 3 guest whose
// cores share 32 MiB); else sysconf; else 32 MiB.
int64_t LastLevelCacheBytes() {
  if (FILE* f = std::fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r")) {
    long long size = 0;
    char unit = 0;
    const int got = std::fscanf(f, "%lld%c", &size, &unit);
    std::fclose(f);
    if (got >= 1 && size > 0) return size << (unit == 'K' ? 10 : unit == 'M' ? 20 : 0);
  }
  const long llc = ::sysconf(_SC_LEVEL3_CACHE_SIZE);  // 0 or -1 where the host does not say
  return llc > 0 ? llc : int64_t{32} << 20;
}

}  // namespace

int64_t Engine::Impl::StreamThreshold(int64_t option) {
#if defined(__x86_64__)
  // An experiment's override (benchmarks with and without streaming stores, same binary).
  if (const char* env = std::getenv("ROWJIT_STREAM_OUTPUT_BYTES")) option = std::strtoll(env, nullptr, 10);
  if (option != 0) return std::max<int64_t>(option, 0);
  return LastLevelCacheBytes();
#else
  (void)option;
  return 0;  // the kernels' streaming form is x86's (non-temporal stores and sfence)
#endif
}

bool Engine::Impl::StreamsOutput(const ir::Expr& expr, int64_t length, int64_t input_row_bytes,
                                 std::span<const OutputBuffers> into) const {
  if (stream_bytes <= 0 || expr.type().id == TypeId::kBool) return false;
  if (length * (ByteWidth(expr.type().id) + input_row_bytes) < stream_bytes) return false;
  return into.empty() || reinterpret_cast<uintptr_t>(into[0].values) % kBufferAlignment == 0;
}

Engine::Engine(std::unique_ptr<JitCompiler> compiler, EngineOptions options, std::unique_ptr<DiskCache> disk)
    : impl_(std::make_unique<Impl>(std::move(compiler), options, std::move(disk))) {}
Engine::~Engine() = default;

Result<std::unique_ptr<Engine>> Engine::Make(EngineOptions options) {
  ROWJIT_ASSIGN_OR_RETURN(auto compiler, JitCompiler::Make());
  return Make(std::move(options), std::move(compiler));
}

Result<std::unique_ptr<Engine>> Engine::Make(EngineOptions options, std::unique_ptr<JitCompiler> compiler) {
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
  std::unique_ptr<DiskCache> disk;
  if (!options.cache_dir.empty()) {
    ROWJIT_ASSIGN_OR_RETURN(disk, DiskCache::Open(options.cache_dir, options.disk_cache_bytes));
  }
  return std::unique_ptr<Engine>(new Engine(std::move(compiler), std::move(options), std::move(disk)));
}

CacheStats Engine::cache_stats() const {
  CacheStats s = impl_->cache.stats();
  s.held = impl_->held_runs.load(std::memory_order_relaxed);
  return s;
}

DiskCacheStats Engine::disk_cache_stats() const {
  return impl_->disk ? impl_->disk->stats() : DiskCacheStats{};
}

void Engine::WaitForCompiles() {
  if (impl_->pool) impl_->pool->WaitIdle();
}

Result<std::shared_ptr<const CompiledKernel>> Engine::KernelFor(const CacheKey& key) {
  if (key.spec.expr == nullptr) return MakeError(ErrorCode::kInvalidInput, "null expression");
  return NoThrow([&]() -> Result<std::shared_ptr<const CompiledKernel>> {
    ROWJIT_RETURN_NOT_OK(ir::CheckLimits(key.spec.expr->facts(), impl_->options.limits));
    ROWJIT_ASSIGN_OR_RETURN(KernelCache::Lookup found, impl_->cache.Get(key, TierWant::kOptimized));
    return std::move(found.kernel);
  });
}

Result<std::shared_ptr<const CompiledKernel>> Engine::Impl::KernelOf(Plan& plan, TierWant want,
                                                                     EvalReport& report,
                                                                     std::optional<KernelCache::Lookup> ready) {
  if (!plan.kernel) return std::shared_ptr<const CompiledKernel>();
  if (!ready) {
    ROWJIT_ASSIGN_OR_RETURN(ready, cache.Get(*plan.kernel, want));
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

// The static tier, while the optimized kernel of an expression the static chain covers is not
// ready: the chain answers with no compile at all. A row that fails, or a batch the chain does
// not take (every row null), returns nothing: the fast kernel answers, and its error is the JIT's.
std::optional<ArrayPtr> Engine::Impl::StaticTier(const ir::Expr& expr, std::span<const ArrayPtr> columns,
                                                 int64_t length, const Plan& plan, EvalReport& report) {
  Result<StaticChainRun> chain = RunStaticChain(expr, columns, length, outputs);
  if (!chain.ok() || chain->failed_row >= 0 || chain->result == nullptr) return std::nullopt;
  report.tier = Tier::kStatic;
  report.source = KernelSource::kMemory;
  report.kernel = plan.kernel;  // the kernel compiling for this expression
  return std::move(chain->result);
}

// Policy `auto` over a fallible expression and a batch with nulls: whether to run the valid rows
// only for now (the retry pressure), and then how many of them survive (what the planner's
// choice between branch-and-skip and filter-and-scatter reads).
void Engine::Impl::ApplyRetryPressure(const ir::Expr& expr, ir::Policy policy, internal::Batch& batch) {
  if (policy != ir::Policy::kAuto || !expr.facts().can_fail ||
      batch.facts.rows != BatchFacts::Rows::kSomeNull || !retry_pressure.PreferValidOnly(expr)) {
    return;
  }
  batch.facts.prefer_valid_only = true;
  batch.facts.surviving = static_cast<double>(batch.rows.CountValid(batch.facts.length)) /
                          static_cast<double>(batch.facts.length);
}

Result<ArrayPtr> Engine::Evaluate(const ir::ExprPtr& expr, const RecordBatch& batch,
                                  const EvalOptions& options, EvalReport* report) {
  return Evaluate(expr, batch.columns, batch.length, options, report);
}

// What every call checks before it reads or allocates anything: the expression's limits, the
// inputs, and the memory the evaluation would take.
Status Engine::Impl::Admit(const ir::Expr& expr, std::span<const ArrayPtr> columns, int64_t length,
                           bool folded) const {
  ROWJIT_RETURN_NOT_OK(ir::CheckLimits(expr.facts(), options.limits));
  if (static_cast<int64_t>(columns.size()) > options.limits.max_columns) {
    return MakeError(ErrorCode::kInvalidInput, "batch of {} columns; the limit is {} (Limits::max_columns)",
                     columns.size(), options.limits.max_columns);
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
  if (options.max_evaluation_bytes <= 0) return Status::OK();
  // The output and its validity (every output of a projection), and at worst a decoded or
  // aligned copy of every input (a string's offsets or views: 16 bytes a row at most).
  auto output_bytes = [](const ir::Expr& e) { return e.type().id == TypeId::kBool ? 1.25 : ByteWidth(e.type().id) + 0.125; };
  double per_row = 0;
  if (ir::IsProjection(expr)) {
    for (const ir::ExprPtr& out : expr.args()) per_row += output_bytes(*out);
  } else {
    per_row = output_bytes(expr);
  }
  double bytes = static_cast<double>(length) * per_row;
  for (int c : expr.facts().columns) {
    bytes += static_cast<double>(length) * (IsString(columns[c]->type().id) ? 16 : ByteWidth(columns[c]->type().id));
  }
  if (bytes > static_cast<double>(options.max_evaluation_bytes)) {
    return MakeError(ErrorCode::kOutOfMemory,
                     "evaluating {} rows needs about {:.0f} MiB; the limit is {:.0f} MiB "
                     "(EngineOptions::max_evaluation_bytes)",
                     length, bytes / (1 << 20), static_cast<double>(options.max_evaluation_bytes) / (1 << 20));
  }
  return Status::OK();
}

namespace {

// Whether row `row` of the whole expression raises an error (the reference semantics).
Status WholeRow(const ir::Expr& expr, std::span<const ArrayPtr> columns, int64_t row) {
  Result<Scalar> r = ir::EvaluateRow(expr, columns, row);
  if (!r.ok()) return std::move(r).TakeError();
  return Status::OK();
}

}  // namespace

Result<ArrayPtr> Engine::Evaluate(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns,
                                  int64_t length, const EvalOptions& options, EvalReport* report) {
  if (report != nullptr) *report = EvalReport{};
  if (expr == nullptr) return MakeError(ErrorCode::kInvalidInput, "null expression");
  return NoThrow([&]() -> Result<ArrayPtr> {
    if (std::shared_ptr<PreparedExpression> held = HeldExpression(expr, options)) {
      return held->Evaluate(columns, length, report);
    }
    EvalReport local;  // not built on the held path: the handle has its own
    EvalReport& rep = report ? *report : local;
    return EvaluateAdmitted(expr, columns, length, options, rep);
  });
}

Result<ArrayPtr> Engine::EvaluateAdmitted(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns,
                                          int64_t length, const EvalOptions& options, EvalReport& rep,
                                          std::span<const OutputBuffers> into) {
  const bool strings = internal::StringsOutsideKernels(*expr);
  ROWJIT_RETURN_NOT_OK(impl_->Admit(*expr, columns, length, /*folded=*/strings));
  if (strings) {  // string-valued calls computed outside kernels, then the rest
    if (expr->is_column()) return columns[static_cast<size_t>(expr->column_index())];
    if (expr->is_literal()) {  // folded text: cast(cast('2024-02-29', date32), utf8)
      ROWJIT_ASSIGN_OR_RETURN(ArrayPtr text, ConstantArray::Make(expr->value(), length, expr->type().nullable));
      return text;
    }
    ROWJIT_ASSIGN_OR_RETURN(internal::StringColumns s, MaterializeStrings(expr, columns, length, options));
    rep.strategy = Strategy::kStrings;
    if (s.expr->is_column()) return s.columns[static_cast<size_t>(s.expr->column_index())];
    return internal::ResolveFailedRows(EvaluateAdmitted(s.expr, s.columns, length, options, rep, into), s.failed_rows,
                                       [&](int64_t row) { return WholeRow(*expr, columns, row); });
  }
  if (into.empty() && options.policy == ir::Policy::kAuto) {
    if (std::optional<int> c = internal::OverDictionaryColumn(*expr, columns, length)) {
      return EvaluateOverDictionary(expr, columns, *c, options, rep);
    }
  }
  void* rows_into = into.empty() ? nullptr : into[0].validity;
  ROWJIT_ASSIGN_OR_RETURN(internal::Batch batch, internal::ReadBatch(*expr, columns, length, rows_into));
  impl_->ApplyRetryPressure(*expr, options.policy, batch);
  batch.facts.stream_output = impl_->StreamsOutput(*expr, batch.facts, into);
  Plan plan = PlanEvaluation(expr, batch.facts, options.policy, "native", impl_->options.max_kernel_nodes);
  rep.strategy = plan.strategy;
  if (plan.strategy == Strategy::kStaged) return EvaluateStaged(expr, columns, length, options, rep, into);
  return impl_->RunPlan(*expr, batch, plan, options, rep, nullptr, into);
}

Result<internal::StringColumns> Engine::MaterializeStrings(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns,
                                                           int64_t length, const EvalOptions& options) {
  const internal::EvaluateFn kernels = [&](const ir::ExprPtr& e, std::span<const ArrayPtr> cols, int64_t n) {
    EvalReport inner;
    return EvaluateAdmitted(e, cols, n, options, inner);
  };
  return internal::MaterializeStrings(expr, columns, length, kernels,
                                      internal::StringResultPool(impl_->outputs, impl_->options.max_evaluation_bytes));
}

Result<ArrayPtr> Engine::EvaluateOverDictionary(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns,
                                                int column, const EvalOptions& options, EvalReport& rep) {
  const auto& d = static_cast<const DictionaryArray&>(*columns[column]);
  std::vector<ArrayPtr> over(columns.begin(), columns.end());
  over[static_cast<size_t>(column)] = d.values();
  ROWJIT_ASSIGN_OR_RETURN(ArrayPtr per_value, EvaluateAdmitted(expr, over, d.values()->length(), options, rep));
  rep.strategy = Strategy::kOverDictionary;
  // Rows with a null code: the expression with its column null (is_null, coalesce, ...).
  Scalar null_row = Scalar::Null(expr->type().id).As(expr->type());
  if (d.codes()->NullCount() > 0) {
    ROWJIT_ASSIGN_OR_RETURN(over[static_cast<size_t>(column)], ConstantArray::Make(Scalar::Null(d.type().id).As(d.type()), 1, true));
    ROWJIT_ASSIGN_OR_RETURN(null_row, ir::EvaluateRow(*expr, over, 0));
  }
  return internal::GatherThroughCodes(*per_value, null_row, d, impl_->outputs);
}

Result<ArrayPtr> Engine::EvaluateInto(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns, int64_t length,
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
    ROWJIT_RETURN_NOT_OK(internal::CheckOutputs(std::span(&expr, 1), into, length, columns));
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr result, EvaluateAdmitted(expr, columns, length, options, rep, into));
    return internal::Deliver(result, out, &rep.output_copied);
  });
}

Result<ArrayPtr> Engine::Impl::RunPlan(const ir::Expr& expr, const internal::Batch& batch, Plan& plan,
                                       const EvalOptions& options, EvalReport& rep,
                                       std::shared_ptr<const CompiledKernel>* ran,
                                       std::span<const OutputBuffers> into) {
  TierWant want = WantOf(options);
  std::optional<KernelCache::Lookup> ready;
  if (want == TierWant::kTiered && plan.kernel) {
    // One lookup: the optimized kernel when it is ready (the warm path); else it starts
    // compiling, and the static tier or the fast kernel answers.
    ROWJIT_ASSIGN_OR_RETURN(KernelCache::Lookup found, cache.Get(*plan.kernel, TierWant::kOptimizedIfReady));
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
  auto find_twin = [&]() -> Result<internal::ExactTwin> {
    Plan exact{plan.strategy, *rep.kernel};
    exact.kernel->shape.speculative_mul = false;
    ROWJIT_ASSIGN_OR_RETURN(twin, KernelOf(exact, want, rep));
    return internal::ExactTwin{twin.get(), &*rep.kernel};
  };
  const internal::FindExactTwin exact_twin(find_twin);
  const bool speculates = kernel != nullptr && kernel->shape().speculative_mul;
  const internal::Execution run{expr, batch, rep.kernel ? &*rep.kernel : nullptr, kernel.get(), outputs, rep, into,
                                speculates ? &exact_twin : nullptr};
  Result<ArrayPtr> out = internal::ExecuteRows(rep.strategy, run);
  if (out.ok() && rep.retried && options.policy == ir::Policy::kAuto) retry_pressure.Retried(expr);
  if (ran != nullptr) *ran = std::move(kernel);
  return out;
}

// Stages run one after another through the engine, each result a column of the next. A stage
// reads fewer columns than the whole expression, so its error may lie behind a null of a column
// it does not read, where the whole expression yields null instead: on any row error the whole
// expression is checked with the reference semantics (its first failing row, or its values when
// no row fails). Slow, but only on that path, and exact.
Result<ArrayPtr> Engine::EvaluateStaged(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns,
                                        int64_t length, const EvalOptions& options, EvalReport& rep,
                                        std::span<const OutputBuffers> into) {
  const internal::Stages staged = internal::SplitIntoStages(
      expr, static_cast<int>(columns.size()), impl_->options.max_kernel_nodes);
  std::vector<ArrayPtr> cols(columns.begin(), columns.end());
  // The root stage writes the caller's output, when one was lent.
  auto run = [&](const ir::ExprPtr& e) -> Result<ArrayPtr> {
    EvalReport stage;
    Result<ArrayPtr> out = EvaluateAdmitted(e, cols, length, options, stage, e == staged.root ? into : std::span<const OutputBuffers>());
    assert(stage.strategy != Strategy::kStaged && "a stage fits one kernel");
    rep.compiled = rep.compiled || stage.compiled;
    rep.compile_ms += stage.compile_ms;
    rep.phases += stage.phases;
    rep.retried = rep.retried || stage.retried;
    if (stage.tier && (!rep.tier || *stage.tier == Tier::kFast)) rep.tier = stage.tier;
    rep.source = stage.source;
    return out;
  };
  Result<ArrayPtr> out = Error(ErrorCode::kInternal, "no stage ran");
  for (size_t k = 0; k <= staged.stages.size(); ++k) {
    out = run(k < staged.stages.size() ? staged.stages[k] : staged.root);
    if (!out.ok()) break;
    cols.push_back(*out);
  }
  if (out.ok() || !out.error().row().has_value()) return out;
  rep.cold_pass = true;
  return ir::EvaluateReference(*expr, columns, length);
}

// An argument too large for one fold kernel is evaluated (in stages) and its column folded: the
// argument's errors are the aggregate's either way.
Result<ir::AggregateResult> Engine::AggregateStaged(const ir::Aggregate& agg,
                                                    std::span<const ArrayPtr> columns, int64_t length,
                                                    const EvalOptions& options, EvalReport& rep) {
  const EvalOptions dense{.policy = ir::Policy::kAuto, .tier = options.tier};
  ROWJIT_ASSIGN_OR_RETURN(ArrayPtr values, EvaluateAdmitted(agg.arg, columns, length, dense, rep));
  ir::Aggregate over_column = agg;
  over_column.arg = ir::Expr::BoundColumn("$arg", 0, values->type());
  const ArrayPtr one[] = {values};
  EvalReport fold;
  Result<ir::AggregateResult> out = AggregateUnheld(over_column, one, length, options, fold);
  rep.compiled = rep.compiled || fold.compiled;
  rep.compile_ms += fold.compile_ms;
  rep.phases += fold.phases;
  if (fold.tier && (!rep.tier || *fold.tier == Tier::kFast)) rep.tier = fold.tier;
  return out;
}

// An integer sum over more rows than one kernel call keeps exact: slices of fold_slice_rows rows,
// their sums added in 128 bits; a row error names its row in the whole batch.
Result<ir::AggregateResult> Engine::AggregateSliced(const ir::Aggregate& agg, std::span<const ArrayPtr> columns,
                                                    int64_t length, const EvalOptions& options, EvalReport& rep) {
  const int64_t step = impl_->options.fold_slice_rows;
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
    Result<ir::AggregateResult> r = AggregateUnheld(per_slice, slice, n, options, part);
    rep.compiled = rep.compiled || part.compiled;
    rep.strategy = part.strategy;
    if (!r.ok()) {
      Error e = r.error();
      if (e.row()) return std::move(e).WithRow(e.function(), *e.row() + start);
      return e;
    }
    if (r->value.is_null()) continue;
    any = true;
    total += r->value.int128();
  }
  if (!any) return ir::AggregateResult{.value = Scalar::Null(agg.result.id).As(agg.result), .max = Scalar::Null(agg.result.id).As(agg.result)};
  ROWJIT_ASSIGN_OR_RETURN(Scalar sum, ir::IntegerSumResult(total, agg.result));
  return ir::AggregateResult{.value = sum, .max = Scalar::Null(agg.result.id).As(agg.result)};
}

Result<ir::AggregateResult> Engine::Aggregate(const ir::Aggregate& agg, std::span<const ArrayPtr> columns,
                                              int64_t length, EvalReport* report) {
  return Aggregate(agg, columns, length, EvalOptions{}, report);
}

Result<ir::AggregateResult> Engine::Aggregate(const ir::Aggregate& agg, std::span<const ArrayPtr> columns,
                                              int64_t length, const EvalOptions& options,
                                              EvalReport* report) {
  if (report != nullptr) *report = EvalReport{};
  if (agg.arg == nullptr) return MakeError(ErrorCode::kInvalidInput, "aggregate without argument");
  return NoThrow([&]() -> Result<ir::AggregateResult> {
    if (std::shared_ptr<PreparedAggregate> held = HeldAggregate(agg, options)) {
      return held->Aggregate(columns, length, report);
    }
    EvalReport local;  // not built on the held path: the handle has its own
    EvalReport& rep = report ? *report : local;
    return AggregateUnheld(agg, columns, length, options, rep);
  });
}

Result<ir::AggregateResult> Engine::AggregateUnheld(const ir::Aggregate& agg, std::span<const ArrayPtr> columns,
                                                    int64_t length, const EvalOptions& options, EvalReport& rep) {
  return NoThrow([&]() -> Result<ir::AggregateResult> {
    ROWJIT_RETURN_NOT_OK(impl_->Admit(*agg.arg, columns, length, /*folded=*/true));
    if (agg.arg->type().logical == LogicalKind::kInterval && agg.kind != ir::AggKind::kCount) {
      ROWJIT_ASSIGN_OR_RETURN(ArrayPtr rows, EvaluateAdmitted(agg.arg, columns, length, options, rep));
      return internal::FoldIntervals(agg, *rows);
    }
    if (agg.arg->type().id == TypeId::kI128 && agg.kind != ir::AggKind::kCount) {  // decimals of 19-38 digits
      ROWJIT_ASSIGN_OR_RETURN(ArrayPtr rows, EvaluateAdmitted(agg.arg, columns, length, options, rep));
      return internal::FoldSixteenByte(agg, *rows);
    }
    if (agg.kind == ir::AggKind::kSum && !IsFloat(agg.arg->type().id) && length > impl_->options.fold_slice_rows) {
      return AggregateSliced(agg, columns, length, options, rep);
    }
    if (IsString(agg.arg->type().id) && agg.kind != ir::AggKind::kCount) {  // min/max of strings
      ROWJIT_ASSIGN_OR_RETURN(ArrayPtr rows, EvaluateAdmitted(agg.arg, columns, length, options, rep));
      return internal::FoldStrings(agg, *rows);
    }
    if (internal::NeedsStringColumns(*agg.arg) && !agg.arg->is_column()) {  // lower(s), concat(a, b), ...
      ROWJIT_ASSIGN_OR_RETURN(internal::StringColumns s, MaterializeStrings(agg.arg, columns, length, options));
      ir::Aggregate over = agg;
      over.arg = s.expr;
      return internal::ResolveFailedRows(AggregateUnheld(over, s.columns, length, options, rep), s.failed_rows,
                                         [&](int64_t row) { return WholeRow(*agg.arg, columns, row); });
    }
    if (agg.arg->facts().kernel_nodes > impl_->options.max_kernel_nodes) {
      return AggregateStaged(agg, columns, length, options, rep);
    }
    ROWJIT_ASSIGN_OR_RETURN(internal::Batch batch,
                            internal::ReadBatch(*agg.arg, columns, length, nullptr, /*defer_rows=*/true));
    Plan plan = PlanAggregate(agg, batch.facts);
    rep.strategy = plan.strategy;
    ROWJIT_ASSIGN_OR_RETURN(auto kernel, impl_->KernelOf(plan, impl_->WantOf(options), rep));
    const internal::Execution run{*agg.arg, batch, &*rep.kernel, kernel.get(), impl_->outputs, rep};
    return internal::ExecuteFold(agg, run);
  });
}

// The specs of flat columns as `schema` describes them: a nullable field is taken to hold nulls.
std::vector<ir::InputSpec> SchemaSpecs(const Schema& schema) {
  std::vector<ir::InputSpec> specs;
  for (const Field& f : schema.fields) {
    specs.push_back({.shape = ir::InputShape::kFlat, .type = f.type.id, .has_nulls = f.type.nullable, .layout = f.layout});
  }
  return specs;
}

Status Engine::Prepare(const ir::ExprPtr& expr, const Schema& schema) {
  if (expr == nullptr) return MakeError(ErrorCode::kInvalidInput, "null expression");
  return NoThrow([&]() -> Status {
    ROWJIT_RETURN_NOT_OK(ir::CheckLimits(expr->facts(), impl_->options.limits));
    if (!expr->bound()) return MakeError(ErrorCode::kInvalidInput, "expression is not bound");
    std::vector<ir::InputSpec> specs = SchemaSpecs(schema);
    std::vector<ir::ExprPtr> kernels = {expr};
    if (expr->facts().kernel_nodes > impl_->options.max_kernel_nodes) {  // each stage, then the root
      internal::Stages staged = internal::SplitIntoStages(expr, static_cast<int>(specs.size()),
                                                          impl_->options.max_kernel_nodes);
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
      Plan plan = PlanEvaluation(e, DescribeSpecs(e->facts(), std::move(read)), ir::Policy::kAuto, "native",
                                 impl_->options.max_kernel_nodes);
      if (plan.kernel) {
        if (impl_->pool) impl_->cache.Prefetch(*plan.kernel);
        else ROWJIT_RETURN_NOT_OK(impl_->cache.Get(*plan.kernel, TierWant::kOptimized).status());
      }
      specs.push_back({.shape = ir::InputShape::kFlat, .type = e->type().id, .has_nulls = e->type().nullable});
    }
    return Status::OK();
  });
}

}  // namespace rowjit::jit
