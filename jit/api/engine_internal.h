// The Engine's state (jit layer, internal): shared by its public plumbing (jit/api/engine.cc) and
// the prepared expressions it makes (jit/api/prepared.cc).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <functional>

#include "jit/cache/compile_pool.h"
#include "jit/api/engine.h"
#include "jit/exec/executor_internal.h"
#include "jit/api/held.h"

namespace rowjit::jit {

// Policy `auto` runs a deferred-error kernel dense over a batch with nulls: rows behind nulls
// are computed too, and their evidence costs a rerun over the valid rows only when it appears.
// When it keeps appearing (garbage behind nulls that overflows), reruns would double the work:
// the engine then remembers, per expression, to run valid-only (branch-and-skip or
// filter-and-scatter) for a few batches before it tries dense again. The memory is a small
// table of counters indexed by the expression's hash: lock-free, bounded, and a collision only
// costs a less suited strategy, never a wrong result.
class RetryPressure {
 public:
  static constexpr int kPerRetry = 4;  // a retry buys this many valid-only batches
  static constexpr int kCap = 32;

  // Whether valid-only runs are owed, without spending one (PreferValidOnly spends).
  bool Pressured(const ir::Expr& e) { return slot(e).load(std::memory_order_relaxed) > 0; }
  bool PreferValidOnly(const ir::Expr& e) {
    std::atomic<int>& p = slot(e);
    int v = p.load(std::memory_order_relaxed);
    if (v <= 0) return false;
    p.compare_exchange_strong(v, v - 1, std::memory_order_relaxed);  // decay toward dense
    return true;
  }
  void Retried(const ir::Expr& e) {
    std::atomic<int>& p = slot(e);
    int v = p.load(std::memory_order_relaxed);
    p.compare_exchange_strong(v, std::min(kCap, v + kPerRetry), std::memory_order_relaxed);
  }

 private:
  std::atomic<int>& slot(const ir::Expr& e) { return slots_[e.hash() % slots_.size()]; }
  std::array<std::atomic<int>, 256> slots_{};
};

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
// of the fast bins the per-call objects leave). Measured on Sapphire Rapids, `a * b + c` over
// 65,536 i32 rows (a 256 KiB output): prepared Evaluate / kernel alone 1.030 -> 1.022 (means of
// four interleaved runs) against the pool's default of 1 MiB.
constexpr int64_t kRecycledOutputMin = int64_t{64} << 10;

namespace internal {

// What else than the expression sets one-shot calls apart for the held handles: the options.
inline uint64_t OptionsTag(const EvalOptions& o) {
  const uint64_t tier = o.tier ? uint64_t{static_cast<uint8_t>(*o.tier)} + 1 : 0;
  return uint64_t{static_cast<uint8_t>(o.policy)} | tier << 8;
}

// A projection the engine holds for Engine::Project (jit/api/held.h, keyed by its first expression):
// the host's expressions, so that a call runs it only when it passes these same objects.
struct HeldProjection {
  std::vector<ir::ExprPtr> exprs;
  std::unique_ptr<PreparedProjection> handle;
};

}  // namespace internal

struct Engine::Impl {
  EngineOptions options;
  std::unique_ptr<JitCompiler> compiler;
  std::unique_ptr<DiskCache> disk;      // null without EngineOptions::cache_dir
  std::string object_environment;       // the compiler's, the first line of every disk key
  KernelCache cache;
  RetryPressure retry_pressure;
  std::shared_ptr<MemoryPool> outputs;  // null: the system allocator
  // Handles for expressions (aggregates) passed again to the one-shot calls (jit/api/held.h), and
  // the calls they answered with a held kernel (CacheStats::held).
  internal::HeldHandles<PreparedExpression> held_exprs;
  internal::HeldHandles<PreparedAggregate> held_aggregates;
  internal::HeldHandles<internal::HeldProjection> held_projections;
  std::atomic<int64_t> held_runs{0};
  // Last: destroyed first, so that no background compile outlives the cache or the compiler.
  std::unique_ptr<CompilePool> pool;

  Impl(std::unique_ptr<JitCompiler> c, const EngineOptions& o, std::unique_ptr<DiskCache> d)
      : options(o),
        compiler(std::move(c)),
        disk(std::move(d)),
        object_environment(compiler->ObjectEnvironment()),
        cache(o.cache_capacity, o.optimize_after_uses, Makers()),
        held_exprs(o.held_expressions),
        held_aggregates(o.held_expressions),
        held_projections(o.held_expressions) {
    if (kRecycleOutputs && o.retained_output_bytes > 0) {
      outputs = std::make_shared<RecyclingPool>(o.retained_output_bytes, kRecycledOutputMin);
    }
    if (o.compile == EngineOptions::Compile::kTiered) pool = std::make_unique<CompilePool>(o.compile_threads);
    stream_bytes = StreamThreshold(o.stream_output_bytes);
  }
  static int64_t StreamThreshold(int64_t option);

  KernelCache::Makers Makers();
  // KernelShape::stream_output for a batch: on x86-64, when the bytes a dense kernel reads and
  // writes pass the streaming threshold and its output lands 64-byte aligned (the engine's own
  // buffers always do; a caller's may not).
  // `input_row_bytes`: the bytes a row of the referenced inputs takes.
  bool StreamsOutput(const ir::Expr& expr, int64_t length, int64_t input_row_bytes,
                     std::span<const OutputBuffers> into) const;
  bool StreamsOutput(const ir::Expr& expr, const BatchFacts& facts, std::span<const OutputBuffers> into) const {
    int64_t input_row_bytes = 0;
    for (int c : expr.facts().columns) input_row_bytes += std::max(ByteWidth(facts.inputs[c].type), 1);
    return StreamsOutput(expr, facts.length, input_row_bytes, into);
  }
  int64_t stream_bytes = 0;  // options.stream_output_bytes resolved (0: never)
  std::string DiskKey(const CacheKey& key) const { return object_environment + "\n" + key.Serialize(); }
  TierWant WantOf(const EvalOptions& options) const {
    if (options.tier) return *options.tier == Tier::kFast ? TierWant::kFast : TierWant::kOptimized;
    return pool ? TierWant::kTiered : TierWant::kOptimized;
  }
  // The plan's kernel through the cache (none when the plan has none), or `found` when the
  // caller looked it up already, recorded in the report: the key moves into `report.kernel`.
  Result<std::shared_ptr<const CompiledKernel>> KernelOf(Plan& plan, TierWant want, EvalReport& report,
                                                         std::optional<KernelCache::Lookup> found = {});
  std::optional<ArrayPtr> StaticTier(const ir::Expr& expr, std::span<const ArrayPtr> columns, int64_t length,
                                     const Plan& plan, EvalReport& report);
  // Runs a plan that is not staged over a read batch: the kernel through the cache in the tier
  // `options` want (the static tier while a tiered engine's optimized kernel is not ready), the
  // strategy through the executor. `ran`, when given, receives the kernel that ran (null: none,
  // or the static tier).
  // `into`: caller memory for the output (Execution::targets).
  Result<ArrayPtr> RunPlan(const ir::Expr& expr, const internal::Batch& batch, Plan& plan,
                           const EvalOptions& options, EvalReport& report,
                           std::shared_ptr<const CompiledKernel>* ran = nullptr,
                           std::span<const OutputBuffers> into = {});
  void ApplyRetryPressure(const ir::Expr& expr, ir::Policy policy, internal::Batch& batch);
  Status Admit(const ir::Expr& expr, std::span<const ArrayPtr> columns, int64_t length, bool folded = false) const;
};

namespace internal {

// Evaluation under a selection (jit/api/filter.cc): the selected rows of every column `expr` reads
// (checking they exist and the selection is of this batch; flat 4- and 8-byte columns as views
// the kernel gathers through, SelectView), and a row error of the selected rows as an error of
// the batch (its row is the batch row the selection names).
Result<std::vector<ArrayPtr>> TakeInputs(const ir::Expr& expr, std::span<const ArrayPtr> columns, int64_t length,
                                         const SelectionVector& selection, const std::shared_ptr<MemoryPool>& pool);
Error AtBatchRow(Error e, const SelectionVector& selection);
// Evaluation under a selection, for the engine and the prepared handles alike: by the selected
// fraction, `rows` runs over the whole batch (`gathered` false; the selected rows of its result
// are then taken) or over the selected rows of each input (`gathered` true).
using RowsFn = std::function<Result<ArrayPtr>(std::span<const ArrayPtr> columns, int64_t length, bool gathered)>;
Result<ArrayPtr> EvaluateSelected(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns, int64_t length,
                                  const SelectionVector& selection, const std::shared_ptr<MemoryPool>& pool,
                                  const RowsFn& rows);
// The rows where a bool array (a predicate's result) is true and not null.
Result<SelectionVector> TrueRows(const Array& predicate, const std::shared_ptr<MemoryPool>& pool);

}  // namespace internal

}  // namespace rowjit::jit
