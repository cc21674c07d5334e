// The engine behind the public API (jit layer, api room, internal): EngineImpl holds an Engine's
// state and runs every call along its route (jit/plan/route.h): rows (jit/api/evaluate.cc),
// aggregates (jit/api/aggregate.cc), projections (jit/api/project.cc), selections and filters
// (jit/api/filter.cc), and the prepared handles it makes (jit/api/prepared*.cc).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <functional>
#include <mutex>

#include "jit/api/engine.h"
#include "jit/api/held.h"
#include "jit/cache/compile_pool.h"
#include "jit/exec/executor_internal.h"
#include "jit/plan/retry_pressure.h"
#include "jit/plan/route.h"

namespace rowjit::jit::internal {

#if defined(__SANITIZE_ADDRESS__)  // GCC
constexpr bool kRecycleOutputs = false;  // ASan must see every free
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)  // Clang
constexpr bool kRecycleOutputs = false;
#else
constexpr bool kRecycleOutputs = true;
#endif
#else
constexpr bool kRecycleOutputs = true;
#endif

// The smallest output block the engine's pool recycles. Below 64 KiB glibc's malloc serves from
// its bins cheaply; above it, every fresh block costs a large-chunk search (and a consolidation
// of the fast bins the per-call objects leave), which shows in a call of 65,536 rows (a 256 KiB
// output; bench: `ordinary/i32_mul_add/jit_prepared/rows:65536` against `jit_kernel`).
constexpr int64_t kRecycledOutputMin = int64_t{64} << 10;

// What else than the expression sets one-shot calls apart for the held handles: the options.
inline uint64_t OptionsTag(const EvalOptions& o) {
  const uint64_t tier = o.tier ? uint64_t{static_cast<uint8_t>(*o.tier)} + 1 : 0;
  return uint64_t{static_cast<uint8_t>(o.policy)} | tier << 8;
}

// A projection the engine holds for Engine::Project (jit/api/held.h, keyed by its first
// expression): the host's expressions, so that a call runs it only when it passes these same
// objects.
struct HeldProjection {
  std::vector<ir::ExprPtr> exprs;
  std::unique_ptr<PreparedProjection> handle;
};

// What a projection ran, for a prepared projection to hold: its kernel (null: several kernels,
// or none), and whether its outputs took the AND of their columns' validity.
struct ProjectionRan {
  std::shared_ptr<const CompiledKernel> kernel;
  bool output_validity = false;
};

class EngineImpl {
 public:
  static Result<std::unique_ptr<EngineImpl>> Make(EngineOptions options, std::unique_ptr<JitCompiler> compiler);
  EngineImpl(std::unique_ptr<JitCompiler> c, const EngineOptions& o, std::unique_ptr<DiskCache> d,
             std::unique_ptr<CompilePool> pool);
  // Ends the background work before anything it uses goes: queued compiles are dropped, a
  // running one stops waiting on another process's claim, and the pool is joined.
  ~EngineImpl();

  // --- the public calls (Engine's methods forward here; `report` may be null) ---
  Result<ArrayPtr> Evaluate(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns, int64_t length,
                            const EvalOptions& options, EvalReport* report);
  Result<ArrayPtr> EvaluateInto(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns, int64_t length,
                                const OutputBuffers& out, const EvalOptions& options, EvalReport* report);
  Result<ArrayPtr> EvaluateSelected(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns, int64_t length,
                                    const SelectionVector& selection, const EvalOptions& options,
                                    EvalReport* report);
  Result<ArrayPtr> EvaluateSelectedInto(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns, int64_t length,
                                        const SelectionVector& selection, const OutputBuffers& out,
                                        const EvalOptions& options, EvalReport* report);
  Result<SelectionVector> Filter(const ir::ExprPtr& predicate, std::span<const ArrayPtr> columns, int64_t length,
                                 const SelectionVector* selection, const EvalOptions& options, EvalReport* report);
  Result<std::vector<ArrayPtr>> Project(std::span<const ir::ExprPtr> exprs, std::span<const ArrayPtr> columns,
                                        int64_t length, std::span<const OutputBuffers> outs,
                                        const EvalOptions& options, EvalReport* report);
  Result<std::vector<ArrayPtr>> ProjectSelected(std::span<const ir::ExprPtr> exprs, std::span<const ArrayPtr> columns,
                                                int64_t length, const SelectionVector& selection,
                                                std::span<const OutputBuffers> outs, const EvalOptions& options,
                                                EvalReport* report);
  Result<ir::AggregateResult> Aggregate(const ir::Aggregate& aggregate, std::span<const ArrayPtr> columns,
                                        int64_t length, const EvalOptions& options, EvalReport* report);
  Status Prepare(const ir::ExprPtr& expr, const Schema& schema);
  // A handle of the host's (`held_runs` null) or one the engine holds for its one-shot calls.
  Result<std::unique_ptr<PreparedExpression>> PrepareExpression(const ir::ExprPtr& expr, const EvalOptions& options,
                                                                std::atomic<int64_t>* held_runs = nullptr);
  Result<std::unique_ptr<PreparedProjection>> PrepareProjection(std::span<const ir::ExprPtr> exprs,
                                                                const EvalOptions& options,
                                                                std::atomic<int64_t>* held_runs = nullptr);
  Result<std::unique_ptr<PreparedAggregate>> PrepareAggregate(const ir::Aggregate& aggregate,
                                                              const EvalOptions& options,
                                                              std::atomic<int64_t>* held_runs = nullptr);
  Result<std::shared_ptr<const CompiledKernel>> KernelFor(const CacheKey& key);
  CacheStats cache_stats() const;
  DiskCacheStats disk_cache_stats() const;
  void WaitForCompiles();

  // --- routes: each call checked (Admit) and dispatched on its route ---
  // Rows (jit/api/evaluate.cc). `into`: caller memory for the result, written where a kernel can.
  Result<ArrayPtr> EvaluateRouted(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns, int64_t length,
                                  const EvalOptions& options, EvalReport& report,
                                  std::span<const OutputBuffers> into = {});
  // Aggregates (jit/api/aggregate.cc).
  Result<ir::AggregateResult> AggregateRouted(const ir::Aggregate& aggregate, std::span<const ArrayPtr> columns,
                                              int64_t length, const EvalOptions& options, EvalReport& report);
  // Projections (jit/api/project.cc): `root` is ir::MakeProjection of the outputs; `ran`, when
  // given, receives what ran (for a prepared projection to hold).
  Result<std::vector<ArrayPtr>> ProjectRouted(const ir::ExprPtr& root, std::span<const ArrayPtr> columns,
                                              int64_t length, const EvalOptions& options, EvalReport& report,
                                              std::span<const OutputBuffers> outs, ProjectionRan* ran = nullptr);
  // The string-valued calls of `expr` computed a column at a time (MaterializeStrings), their
  // non-string arguments through kernels with `options`, their buffers from the output pool
  // within EngineOptions::max_evaluation_bytes.
  // `report`, when given, adds the vector kernels' compiles (ScoreVectors).
  Result<StringColumns> MaterializeStrings(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns,
                                           int64_t length, const EvalOptions& options, EvalReport* report = nullptr);
  // A vector function's scores over the batch (ir::IsVectorScore): its vector kernel
  // (PlanVectorScore), optimized and compiled on the calling thread when new, over the rows in
  // place; the rows' validity the AND of its vector columns'. The kernel's origin and compile go
  // into `report`.
  Result<ArrayPtr> ScoreVectors(const ir::ExprPtr& call, std::span<const ArrayPtr> columns, int64_t length,
                                EvalReport& report);

  // --- the kernel route's steps, shared with the prepared handles ---
  // What every call checks before it reads or allocates anything: the expression's limits, the
  // inputs, and the memory the evaluation would take. `folded`: string results are allowed (an
  // aggregate's argument, or strings computed outside kernels).
  Status Admit(const ir::Expr& expr, std::span<const ArrayPtr> columns, int64_t length, bool folded = false) const;
  // The bytes a row of an evaluation of `expr` over `columns` may take (Admit's estimate, held by
  // prepared handles for their direct calls), and whether `bytes` fit EngineOptions::max_evaluation_bytes.
  static double EvaluationBytesPerRow(const ir::Expr& expr, std::span<const ArrayPtr> columns);
  bool WithinEvaluationBytes(double bytes) const {
    return options_.max_evaluation_bytes <= 0 || bytes <= static_cast<double>(options_.max_evaluation_bytes);
  }
  // The facts a route reads of a call.
  CallFacts Call(std::span<const ArrayPtr> columns, int64_t length, const EvalOptions& options, bool into) const {
    return {.columns = columns, .length = length, .policy = options.policy, .into = into,
            .max_kernel_nodes = options_.max_kernel_nodes, .fold_slice_rows = options_.fold_slice_rows};
  }
  // Policy `auto` over a fallible expression and a batch with nulls: whether to run the valid rows
  // only for now (the retry pressure), and then how many of them survive (what the planner's
  // choice between branch-and-skip and filter-and-scatter reads).
  void ApplyRetryPressure(const ir::Expr& expr, ir::Policy policy, Batch& batch);
  // KernelShape::stream_output for a batch: on x86-64, when the bytes a dense kernel reads and
  // writes pass the streaming threshold and its output lands 64-byte aligned (the engine's own
  // buffers always do; a caller's may not). `input_row_bytes`: the bytes a row of the referenced
  // inputs takes.
  bool StreamsOutput(const ir::Expr& expr, int64_t length, int64_t input_row_bytes,
                     std::span<const OutputBuffers> into) const;
  bool StreamsOutput(const ir::Expr& expr, const BatchFacts& facts, std::span<const OutputBuffers> into) const {
    int64_t input_row_bytes = 0;
    for (int c : expr.facts().columns) input_row_bytes += std::max(ByteWidth(facts.inputs[c].type), 1);
    return StreamsOutput(expr, facts.length, input_row_bytes, into);
  }
  TierWant WantOf(const EvalOptions& options) const {
    if (options.tier) return *options.tier == Tier::kFast ? TierWant::kFast : TierWant::kOptimized;
    return pool_ ? TierWant::kTiered : TierWant::kOptimized;
  }
  // The plan's kernel through the cache (none when the plan has none), or `found` when the
  // caller looked it up already, recorded in the report: the key moves into `report.kernel`.
  Result<std::shared_ptr<const CompiledKernel>> KernelOf(Plan& plan, TierWant want, EvalReport& report,
                                                         std::optional<KernelCache::Lookup> found = {});
  // One kernel in the tier `options` want: the optimized kernel when a tiered engine has it
  // ready, else the fast one while it compiles (projections, which have no static tier).
  Result<std::shared_ptr<const CompiledKernel>> TieredKernelOf(Plan& plan, const EvalOptions& options,
                                                               EvalReport& report);
  // A call of policy `auto` that retried over `batch`: its next batches owe valid-only runs (the
  // retry pressure), and the kernel they will run is found now (jit/api/engine.cc says why); a
  // compile counts in `report`, whose kernel stays the one that ran.
  void RaiseRetryPressure(const ir::ExprPtr& expr, const Batch& batch, const EvalOptions& options,
                          EvalReport& report);
  // Runs a kernel route's plan over a read batch: the kernel through the cache in the tier
  // `options` want (the static tier while a tiered engine's optimized kernel is not ready), the
  // strategy through the executor. `ran`, when given, receives the kernel that ran (null: none,
  // or the static tier). `into`: caller memory for the output (Execution::targets).
  Result<ArrayPtr> RunPlan(const ir::Expr& expr, const Batch& batch, Plan& plan, const EvalOptions& options,
                           EvalReport& report, std::shared_ptr<const CompiledKernel>* ran = nullptr,
                           std::span<const OutputBuffers> into = {});

  // The grouped fold plan of a query (jit/plan/planner.h PlanQueryFold; none: the query is not one
  // it covers), made once for the batches a host folds with one query object: the last
  // kQueryPlans queries' plans are held, by the query's identity (QueryState::shared_query).
  static constexpr size_t kQueryPlans = 8;
  struct QueryFold {
    std::optional<GroupedFoldPlan> plan;
    // The group codes of the last batch folded (GroupedCodes::slot bytes, 255 unused): the next
    // batch's first guess, which its kernel checks (a kept row of no slot's code).
    std::atomic<uint64_t> codes_hint{~uint64_t{0}};
    // The optimized kernels its batches ran, by the inputs' specs and the slot count: a batch like
    // an earlier one runs its kernel without planning it and looking it up in the kernel cache
    // again (hashing and comparing the expression), a visible part of a batch at engine vector
    // sizes (bench: `tpch/q6/jit_query_batch2048`). At most kKernels, the oldest replaced; they keep their code
    // alive past the kernel cache's eviction.
    struct Kernel {
      std::vector<ir::InputSpec> specs;
      int slots = 0;
      CacheKey key;
      std::shared_ptr<const CompiledKernel> kernel;
    };
    static constexpr size_t kKernels = 4;
    std::optional<Kernel> FindKernel(std::span<const ir::InputSpec> specs, int slots) {
      std::lock_guard lock(kernels_mutex);
      for (const Kernel& k : kernels) {
        if (k.slots == slots && std::equal(k.specs.begin(), k.specs.end(), specs.begin(), specs.end())) return k;
      }
      return std::nullopt;
    }
    void Remember(Kernel k) {
      std::lock_guard lock(kernels_mutex);
      if (kernels.size() == kKernels) kernels.erase(kernels.begin());
      kernels.push_back(std::move(k));
    }
    std::mutex kernels_mutex;
    std::vector<Kernel> kernels;
  };
  std::shared_ptr<QueryFold> QueryFoldPlanOf(const std::shared_ptr<const ir::Query>& query);

  const EngineOptions& options() const { return options_; }
  const std::shared_ptr<MemoryPool>& outputs() const { return outputs_; }
  RetryPressure& retry_pressure() { return retry_pressure_; }

 private:
  // Rows, route by route (jit/api/evaluate.cc).
  Result<ArrayPtr> EvaluateAsIs(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns, int64_t length);
  Result<ArrayPtr> EvaluateStrings(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns, int64_t length,
                                   const EvalOptions& options, EvalReport& report, std::span<const OutputBuffers> into);
  Result<ArrayPtr> EvaluateOverDictionary(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns, int64_t length,
                                          const EvalOptions& options, EvalReport& report);
  Result<ArrayPtr> EvaluateStaged(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns, int64_t length,
                                  const EvalOptions& options, EvalReport& report, std::span<const OutputBuffers> into);
  Result<ArrayPtr> EvaluateKernel(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns, int64_t length,
                                  const EvalOptions& options, EvalReport& report, std::span<const OutputBuffers> into);
  std::optional<ArrayPtr> StaticTier(const ir::Expr& expr, std::span<const ArrayPtr> columns, int64_t length,
                                     const Plan& plan, EvalReport& report);
  // Aggregates, route by route (jit/api/aggregate.cc).
  Result<ir::AggregateResult> AggregateRows(Route route, const ir::Aggregate& aggregate,
                                            std::span<const ArrayPtr> columns, int64_t length,
                                            const EvalOptions& options, EvalReport& report);
  Result<ir::AggregateResult> AggregateSliced(const ir::Aggregate& aggregate, std::span<const ArrayPtr> columns,
                                              int64_t length, const EvalOptions& options, EvalReport& report);
  Result<ir::AggregateResult> AggregateStrings(const ir::Aggregate& aggregate, std::span<const ArrayPtr> columns,
                                               int64_t length, const EvalOptions& options, EvalReport& report);
  Result<ir::AggregateResult> AggregateStaged(const ir::Aggregate& aggregate, std::span<const ArrayPtr> columns,
                                              int64_t length, const EvalOptions& options, EvalReport& report);
  Result<ir::AggregateResult> AggregateKernel(const ir::Aggregate& aggregate, std::span<const ArrayPtr> columns,
                                              int64_t length, const EvalOptions& options, EvalReport& report);
  // Projections, route by route (jit/api/project.cc).
  Result<std::vector<ArrayPtr>> ProjectStrings(const ir::ExprPtr& root, std::span<const ArrayPtr> columns,
                                               int64_t length, const EvalOptions& options, EvalReport& report,
                                               std::span<const OutputBuffers> outs);
  Result<std::vector<ArrayPtr>> ProjectSeparately(std::span<const ir::ExprPtr> exprs,
                                                  std::span<const ArrayPtr> columns, int64_t length,
                                                  const EvalOptions& options, EvalReport& report,
                                                  std::span<const OutputBuffers> outs);
  Result<std::vector<ArrayPtr>> ProjectKernel(const ir::ExprPtr& root, const Batch& batch, ProjectionRoute& route,
                                              const EvalOptions& options, EvalReport& report,
                                              std::span<const OutputBuffers> outs, ProjectionRan& ran);
  // The handles the engine holds for the one-shot calls (EngineOptions::held_expressions,
  // jit/api/held.h), or null: a first call, an unbound expression, holding off. Their runs on a
  // held kernel count in CacheStats::held.
  std::shared_ptr<PreparedExpression> HeldExpression(const ir::ExprPtr& expr, const EvalOptions& options);
  std::shared_ptr<PreparedAggregate> HeldAggregate(const ir::Aggregate& agg, const EvalOptions& options);
  std::shared_ptr<HeldProjection> HeldProjectionOf(std::span<const ir::ExprPtr> exprs, const EvalOptions& options);

  static int64_t StreamThreshold(int64_t option);
  KernelCache::Makers Makers();
  std::string DiskKey(const CacheKey& key) const { return object_environment_ + "\n" + key.Serialize(); }

  EngineOptions options_;
  std::unique_ptr<JitCompiler> compiler_;
  std::unique_ptr<DiskCache> disk_;     // null without EngineOptions::cache_dir
  std::string object_environment_;      // the compiler's, the first line of every disk key
  KernelCache cache_;
  RetryPressure retry_pressure_;
  std::shared_ptr<MemoryPool> outputs_;  // null: the system allocator
  int64_t stream_bytes_ = 0;             // options.stream_output_bytes resolved (0: never)
  // Handles for expressions (aggregates, projections) passed again to the one-shot calls
  // (jit/api/held.h), and the calls they answered with a held kernel (CacheStats::held).
  HeldHandles<PreparedExpression> held_exprs_;
  HeldHandles<PreparedAggregate> held_aggregates_;
  HeldHandles<HeldProjection> held_projections_;
  std::atomic<int64_t> held_runs_{0};
  std::mutex query_plans_mutex_;
  // Oldest first, at most kQueryPlans.
  std::vector<std::pair<std::shared_ptr<const ir::Query>, std::shared_ptr<QueryFold>>> query_plans_;
  // Last: destroyed first, so that no background compile outlives the cache or the compiler.
  std::unique_ptr<CompilePool> pool_;
};

// Evaluation under a selection (jit/api/filter.cc): the selected rows of every column `expr` reads
// (checking they exist and the selection is of this batch; flat 4- and 8-byte columns as views
// the kernel gathers through, SelectView), and a row error of the selected rows as an error of
// the batch (its row is the batch row the selection names).
Result<std::vector<ArrayPtr>> TakeInputs(const ir::Expr& expr, std::span<const ArrayPtr> columns, int64_t length,
                                         const SelectionVector& selection, const std::shared_ptr<MemoryPool>& pool);
Error AtBatchRow(Error e, const SelectionVector& selection);
// Evaluation under a selection, for the engine and the prepared handles alike: by its route
// (RouteSelection), `rows` runs over the whole batch (`gathered` false; the selected rows of its
// result are then taken) or over the selected rows of each input (`gathered` true).
using RowsFn = std::function<Result<ArrayPtr>(std::span<const ArrayPtr> columns, int64_t length, bool gathered)>;
Result<ArrayPtr> RunSelected(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns, int64_t length,
                             const SelectionVector& selection, const std::shared_ptr<MemoryPool>& pool,
                             const RowsFn& rows);
// The rows where a bool array (a predicate's result) is true and not null.
Result<SelectionVector> TrueRows(const Array& predicate, const std::shared_ptr<MemoryPool>& pool);
// The report a call fills: the caller's, cleared, or a local one.
inline EvalReport& ReportOf(EvalReport* report, EvalReport& local) {
  if (report == nullptr) return local;
  *report = EvalReport{};
  return *report;
}

}  // namespace rowjit::jit::internal
