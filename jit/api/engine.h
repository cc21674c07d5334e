// The public JIT API (jit layer, api room: the top room, over all the others, and the only part
// of jit/ a host includes): an Engine owns one LLJIT and a kernel cache, prepares bound
// expressions and evaluates them on batches of runtime arrays. How each call runs is decided by
// its route (jit/plan/route.h); the room also holds the machinery behind these classes,
// internal::EngineImpl (jit/api/engine_impl.h), and the prepared handles (jit/api/prepared*.cc).
//
//   auto engine = *rowjit::jit::Engine::Make();
//   auto expr = *rowjit::ir::ParseAndBind("a * b + c", *rowjit::ParseSchema("a:i32?, b:i32, c:i32"));
//   rowjit::Result<rowjit::ArrayPtr> out = engine->Evaluate(expr, batch);
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>

#include "ir/aggregate.h"
#include "ir/expr.h"
#include "ir/limits.h"
#include "ir/query.h"
#include "ir/spec_key.h"
#include "ir/top_k.h"
#include "jit/cache/disk_cache.h"
#include "jit/cache/kernel_cache.h"
#include "jit/compile/compiler.h"
#include "jit/exec/call.h"
#include "jit/plan/planner.h"
#include "runtime/array.h"
#include "runtime/selection.h"

namespace rowjit::jit {

inline constexpr size_t kMaxHeldExpressions = 4096;  // EngineOptions::held_expressions' bound

struct EngineOptions {
  size_t cache_capacity = 1024;  // compiled kernels kept; older ones are evicted and freed
  // Freed output buffers of at least 64 KiB are kept (up to this many bytes) and reused by later
  // evaluations of the same size, so that a batch loop does not fault in fresh pages for every
  // output. 0: outputs come straight from the system allocator (always so under ASan, which
  // could not see a use after free of recycled memory).
  int64_t retained_output_bytes = int64_t{256} << 20;
  // What an expression may be (depth, nodes, columns); checked on every call.
  ir::Limits limits = {};
  // Bytes one evaluation may allocate for its outputs and scratch, estimated before anything
  // is allocated; past it the call is refused with an out-of-memory error. 0: no limit.
  int64_t max_evaluation_bytes = 0;
  // Nodes one kernel may hold: larger expressions run in stages of this size, each its own
  // kernel, so that compile time grows linearly with the expression (jit/plan/staging.h).
  int64_t max_kernel_nodes = kDefaultMaxKernelNodes;
  // Rows one integer sum kernel folds at a time: its 64-bit accumulators (a 64-bit sum's sum
  // modulo 2^64 and the sum of its high 32-bit halves) are exact below 2^32 rows, so a longer batch is folded in slices of this many
  // rows whose sums are added in 128 bits. Smaller values exist for tests.
  int64_t fold_slice_rows = int64_t{1} << 31;
  // Dense row kernels whose inputs and output together pass this many bytes write the output
  // with streaming (non-temporal) stores, which skip reading each output line first: about a
  // quarter less memory traffic for a*b+c, and the output is not left in cache, where it would
  // not fit anyway. 0: the host's last-level cache size; negative: never. x86-64 only.
  int64_t stream_output_bytes = 0;
  // The native kernels' vector widths instead of the host's own choice (jit/base/target.h), for
  // measuring one width against another; {}: the host's. Ignored by Make(options, compiler).
  VectorWidths vector_widths = {};
  // Evaluate, EvaluateInto, Aggregate, Project and ProjectInto called again with the same
  // ExprPtr(s) (the same objects, not equal ones) run as a prepared handle the engine keeps for
  // them: no planning and no cache lookup on a batch layout already met, so a loop of one-shot
  // calls costs what a prepared handle's calls cost. The handles of this many expressions (and
  // as many aggregates, and projections) are kept, the least recently used dropped first; each
  // holds its expressions and its layouts' kernels (which the kernel cache may then evict
  // without freeing). 0: none.
  size_t held_expressions = 64;  // at most kMaxHeldExpressions

  // --- compile economics ---
  // The persistent kernel cache: optimized kernels' objects are stored in this folder and read
  // back by later engines and processes (jit/cache/disk_cache.h: key, checksums, atomic writes,
  // eviction). Empty: no disk cache.
  std::string cache_dir = {};
  int64_t disk_cache_bytes = int64_t{256} << 20;  // the folder's bound; least recently used out
  // kTiered: a never-seen kernel answers through the fast tier (quick to compile)
  // while its optimized kernel compiles on the background pool; later calls switch to it when
  // ready. kSynchronous: every call waits for the optimized kernel (tests, benchmarks, CLI).
  enum class Compile : uint8_t { kTiered, kSynchronous };
  Compile compile = Compile::kTiered;
  // Threads of the background pool, clamped to [1, the host's hardware threads]
  // (std::thread::hardware_concurrency()). A thread the system cannot start is an error from Make.
  int compile_threads = 1;
  // Optimized compiles the background pool's queue holds (at least 1). When it is full, a new
  // key keeps answering through its lower tier (static or fast) and starts its optimized compile
  // again at a later lookup (CacheStats::background_refused); a queued compile whose key has
  // left the cache is dropped when it comes up (CacheStats::background_dropped).
  size_t max_queued_compiles = 256;
  int optimize_after_uses = 1;  // tiered: lookups of a kernel before its optimized compile starts
  // How long a compile waits for another process's claim on its key (DiskCache::Claim) before
  // it compiles without it (DiskCacheStats::claim_timeouts): kernels compile in milliseconds, so
  // a claim held longer belongs to a stopped or hung process. Destroying the engine ends a wait
  // at once. At least 0.
  int64_t claim_wait_ms = DiskCache::kClaimWait.count();
};

class PreparedExpression;
class PreparedProjection;
class PreparedAggregate;
namespace internal {
class EngineImpl;
struct PreparedExpressionState;
struct PreparedProjectionState;
struct PreparedAggregateState;
}  // namespace internal

class Engine {
 public:
  static Result<std::unique_ptr<Engine>> Make(EngineOptions options = {});
  // With a compiler of the caller's (tests wrap the real one to inject failures).
  static Result<std::unique_ptr<Engine>> Make(EngineOptions options, std::unique_ptr<JitCompiler> compiler);
  ~Engine();

  // Evaluates a bound expression over `columns` (one per schema field the expression was bound
  // against; any encoding) of `length` rows. Returns the result array (nullable whenever any
  // input is), or the error of the first failing row with the function's name. Thread-safe.
  Result<ArrayPtr> Evaluate(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns,
                            int64_t length, const EvalOptions& options = {},
                            EvalReport* report = nullptr);
  Result<ArrayPtr> Evaluate(const ir::ExprPtr& expr, const RecordBatch& batch,
                            const EvalOptions& options = {}, EvalReport* report = nullptr);

  // Evaluates `expr` over the rows `selection` picks (jit/api/filter.cc). The result has
  // selection.size() rows, row i being batch row selection[i] (Gandiva's convention); only the
  // selected rows can fail, and an error names its batch row. Below a calibrated fraction of the
  // batch the selected rows of each input are taken and only they computed; above it every row
  // is computed and the result's selected rows taken. selection.batch_length() == length.
  Result<ArrayPtr> Evaluate(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns, int64_t length,
                            const SelectionVector& selection, const EvalOptions& options = {},
                            EvalReport* report = nullptr);

  // Evaluate, writing the result into memory the caller lends (OutputBuffers: sizes, alignment and
  // overlap are checked first). The kernels of the common strategies write there directly; other
  // paths (constants, the static tier, a selection's take) copy their result in. Returns an array
  // over the caller's memory. With a selection, `out` holds selection.size() rows.
  Result<ArrayPtr> EvaluateInto(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns, int64_t length,
                                const OutputBuffers& out, const EvalOptions& options = {},
                                EvalReport* report = nullptr);
  Result<ArrayPtr> EvaluateInto(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns, int64_t length,
                                const SelectionVector& selection, const OutputBuffers& out,
                                const EvalOptions& options = {}, EvalReport* report = nullptr);

  // The rows where a bool expression is true (null counts as false, as SQL's WHERE), as a
  // selection of the batch: ascending 32-bit row indices. With `selection`, only its rows are
  // considered and only they can fail; the result is still a selection of the whole batch.
  Result<SelectionVector> Filter(const ir::ExprPtr& predicate, std::span<const ArrayPtr> columns,
                                 int64_t length, const EvalOptions& options = {}, EvalReport* report = nullptr);
  Result<SelectionVector> Filter(const ir::ExprPtr& predicate, std::span<const ArrayPtr> columns,
                                 int64_t length, const SelectionVector& selection,
                                 const EvalOptions& options = {}, EvalReport* report = nullptr);

  // Several expressions over one batch in one kernel pass (jit/api/project.cc): one result per
  // expression, each with its own type and validity, values and nulls as Evaluate's; a
  // subexpression they share is computed once. An error is the batch's first failing row over
  // all outputs, at it the first failing output, and its message names the output
  // ("expression 2: ..."). With a selection: the selected rows only (as Evaluate's).
  Result<std::vector<ArrayPtr>> Project(std::span<const ir::ExprPtr> exprs, std::span<const ArrayPtr> columns,
                                        int64_t length, const EvalOptions& options = {},
                                        EvalReport* report = nullptr);
  Result<std::vector<ArrayPtr>> Project(std::span<const ir::ExprPtr> exprs, std::span<const ArrayPtr> columns,
                                        int64_t length, const SelectionVector& selection,
                                        const EvalOptions& options = {}, EvalReport* report = nullptr);

  // Project, writing output k into outs[k] (as EvaluateInto; the outputs must not overlap).
  Result<std::vector<ArrayPtr>> ProjectInto(std::span<const ir::ExprPtr> exprs, std::span<const ArrayPtr> columns,
                                            int64_t length, std::span<const OutputBuffers> outs,
                                            const EvalOptions& options = {}, EvalReport* report = nullptr);
  Result<std::vector<ArrayPtr>> ProjectInto(std::span<const ir::ExprPtr> exprs, std::span<const ArrayPtr> columns,
                                            int64_t length, const SelectionVector& selection,
                                            std::span<const OutputBuffers> outs, const EvalOptions& options = {},
                                            EvalReport* report = nullptr);

  // A reduction template: the aggregate's expression and its fold in one pass over the batch,
  // the expression's rows never materialized. Results equal the static folds bit for bit when
  // the argument is a plain column, and the reference evaluator's over expressions; an error in
  // a row whose inputs are all non-null is reported with its row, one behind a null is not.
  Result<ir::AggregateResult> Aggregate(const ir::Aggregate& aggregate,
                                        std::span<const ArrayPtr> columns, int64_t length,
                                        EvalReport* report = nullptr);
  Result<ir::AggregateResult> Aggregate(const ir::Aggregate& aggregate,
                                        std::span<const ArrayPtr> columns, int64_t length,
                                        const EvalOptions& options, EvalReport* report);
  // Over the selected rows, in selection order (float sums' lanes by position in the selection):
  // the argument computed for those rows only (Project under the selection), then folded as a
  // column of them. An error names its batch row.
  Result<ir::AggregateResult> Aggregate(const ir::Aggregate& aggregate,
                                        std::span<const ArrayPtr> columns, int64_t length,
                                        const SelectionVector& selection, const EvalOptions& options = {},
                                        EvalReport* report = nullptr);

  // A top-k selection (ir/top_k.h) over one batch: its scores where its predicate holds, in one
  // evaluation (vector functions by their kernels), offered to `state` as rows first_row,
  // first_row + 1, ... A host folds batch after batch (numbering them on) and threads into states
  // of their own that merge (TopKState::Merge); state.Finish() gives the rows, best first.
  Status TopK(const ir::TopK& top, std::span<const ArrayPtr> columns, int64_t length, ir::TopKState& state,
              int64_t first_row = 0, const EvalOptions& options = {}, EvalReport* report = nullptr);

  // An aggregate query (ir/query.h) in one pass over the batch (jit/api/query.cc): count(*), sums
  // and averages of integers and decimals over few groups and dense inputs by one grouped fold
  // kernel over the whole batch (WHERE and the arguments computed in registers and summed per
  // group); other batches and queries a block of rows at a time, by one projection kernel of WHERE
  // and the arguments folded per group by the static grouped folds. Results equal
  // ir::EvaluateQueryReference's value for value; an error is the batch's first failing row over
  // WHERE and the arguments (Project's error, naming the output).
  // With a selection: over the selected rows, in selection order (float sums' lanes by position
  // in the selection); an error names its batch row.
  Result<ir::QueryResult> Query(const ir::Query& query, std::span<const ArrayPtr> columns, int64_t length,
                                const EvalOptions& options = {});
  Result<ir::QueryResult> Query(const ir::Query& query, std::span<const ArrayPtr> columns, int64_t length,
                                const SelectionVector& selection, const EvalOptions& options = {});
  // Folds one batch into a partial state (batches, threads: one state each, then
  // QueryState::Merge; Dask: QueryState::Serialize). Query is a new state, one FoldQuery, Finish.
  // The grouped fold kernel writes `state` only once the whole batch folded; the other path folds
  // the batch into a state of its own, added as QueryState::AddBatch adds it: on an error `state`
  // is left as it was. A GROUP BY column whose type is not the bound one is a type error.
  Status FoldQuery(ir::QueryState& state, std::span<const ArrayPtr> columns, int64_t length,
                   const EvalOptions& options = {});
  Status FoldQuery(ir::QueryState& state, std::span<const ArrayPtr> columns, int64_t length,
                   const SelectionVector& selection, const EvalOptions& options = {});

  // Starts making the optimized kernel(s) `expr` will run on batches of `schema`'s flat columns
  // (a nullable field taken to hold nulls), from the disk cache or compiled on the background
  // pool, so that the first batch finds them ready. Returns at once; errors are the
  // expression's (limits, binding). With EngineOptions::Compile::kSynchronous it compiles now.
  Status Prepare(const ir::ExprPtr& expr, const Schema& schema);
  // A handle for evaluating `expr` batch after batch (jit/api/prepared.cc): each batch layout it
  // meets is planned once and its kernel held, so that a call on a known layout checks its
  // inputs and runs the kernel, with no planning and no cache lookup. `options` apply to every
  // call. The handle must not outlive the engine.
  Result<std::unique_ptr<PreparedExpression>> PrepareExpression(const ir::ExprPtr& expr,
                                                                const EvalOptions& options = {});
  // A handle for a projection evaluated batch after batch (jit/api/project.cc): the expressions'
  // common root is built once, and each batch layout planned once and its kernel held, as
  // PrepareExpression's. The handle must not outlive the engine.
  Result<std::unique_ptr<PreparedProjection>> PrepareProjection(std::span<const ir::ExprPtr> exprs,
                                                                const EvalOptions& options = {});
  // A handle for folding `aggregate` batch after batch (jit/api/prepared_aggregate.cc): each batch
  // layout is planned once and its fold kernel held, as PrepareExpression's. The handle keeps its
  // own copy of the aggregate and must not outlive the engine.
  Result<std::unique_ptr<PreparedAggregate>> PrepareAggregate(const ir::Aggregate& aggregate,
                                                              const EvalOptions& options = {});
  // Blocks until the background pool has no compile queued or running.
  void WaitForCompiles();

  // The optimized kernel `key` names, through the memory and disk caches or compiled now.
  Result<std::shared_ptr<const CompiledKernel>> KernelFor(const CacheKey& key);

  CacheStats cache_stats() const;
  DiskCacheStats disk_cache_stats() const;  // zeros without a disk cache

 private:
  Engine();  // made by Make, which sets impl_
  Status FoldBatch(ir::QueryState& state, std::span<const ArrayPtr> columns, int64_t length,
                   const EvalOptions& options);
  Status FoldBatch(ir::QueryState& state, std::span<const ArrayPtr> columns, int64_t length,
                   const SelectionVector& selection, const EvalOptions& options);
  std::unique_ptr<internal::EngineImpl> impl_;
};

// An expression prepared for repeated evaluation: the host keeps it beside its batch loop.
// Results, errors and reports are those of Engine::Evaluate with the same options, call for call
// (a call on a held layout does not touch the kernel cache, so it counts no hit there and the
// cache may evict, and later recompile, a kernel that a handle still holds and runs).
// A layout (per column the expression reads: encoding, type, whether it holds nulls; and whether
// the rows' AND of validity is all valid, mixed or all null) is planned on its first batch, and
// its optimized kernel kept; batches that the engine would not run through one plain kernel
// (staged expressions, the static or fast tier while the optimized kernel compiles, valid-only
// runs owed to retry pressure, inputs that must be decoded first) take Engine::Evaluate's path.
// Thread-safe. At most kMaxLayouts layouts are kept (the first ones met); batches of other
// layouts take Engine::Evaluate's path.
class PreparedExpression {
 public:
  static constexpr size_t kMaxLayouts = 8;
  ~PreparedExpression();
  PreparedExpression(const PreparedExpression&) = delete;
  PreparedExpression& operator=(const PreparedExpression&) = delete;

  Result<ArrayPtr> Evaluate(std::span<const ArrayPtr> columns, int64_t length, EvalReport* report = nullptr);
  // Into memory the caller lends, as Engine::EvaluateInto: with a held layout, a batch loop
  // allocates no output, and once it drops each result builds no result object either (a call
  // into the memory the last call wrote returns that call's array again, describing this result,
  // when nobody else holds it).
  Result<ArrayPtr> EvaluateInto(std::span<const ArrayPtr> columns, int64_t length, const OutputBuffers& out,
                                EvalReport* report = nullptr);
  // As EvaluateInto, returning the result's null count instead of an array over `out`: a batch
  // loop that reads its results from its own buffers builds no result object per call.
  Result<int64_t> WriteInto(std::span<const ArrayPtr> columns, int64_t length, const OutputBuffers& out,
                            EvalReport* report = nullptr);
  // As WriteInto over raw buffers instead of arrays (ColumnBuffers: values and an optional
  // validity bitmap per column, in the layout of the type the column was bound to; entries for
  // columns the expression does not read are ignored): a host keeping its own vectors builds no
  // array per call, and on a held layout the call checks only what a batch can change (pointers,
  // alignment, nulls, the output). String columns have no raw form: pass arrays.
  Result<int64_t> WriteBuffers(std::span<const ColumnBuffers> columns, int64_t length, const OutputBuffers& out,
                               EvalReport* report = nullptr);
  // Under a selection, as Engine::Evaluate with one (the dense and the gathered way each run
  // through this handle, so their layouts are held too).
  Result<ArrayPtr> Evaluate(std::span<const ArrayPtr> columns, int64_t length, const SelectionVector& selection,
                            EvalReport* report = nullptr);
  // A prepared predicate as a filter, as Engine::Filter (a type error unless the expression is bool).
  Result<SelectionVector> Filter(std::span<const ArrayPtr> columns, int64_t length, EvalReport* report = nullptr);
  Result<SelectionVector> Filter(std::span<const ArrayPtr> columns, int64_t length, const SelectionVector& selection,
                                 EvalReport* report = nullptr);
  const ir::ExprPtr& expr() const;
  size_t layouts() const;  // layouts planned and held so far

 private:
  friend class internal::EngineImpl;
  PreparedExpression();  // made by the engine, which sets state_
  std::unique_ptr<internal::PreparedExpressionState> state_;
};

// A projection prepared for repeated evaluation (Engine::PrepareProjection): results, errors
// and reports are those of Engine::Project with the same options. Layouts are held as a
// PreparedExpression holds them; a layout whose outputs the planner does not give one kernel
// (constants, staged outputs) takes Engine::Project's path every call. Thread-safe.
class PreparedProjection {
 public:
  ~PreparedProjection();
  PreparedProjection(const PreparedProjection&) = delete;
  PreparedProjection& operator=(const PreparedProjection&) = delete;

  Result<std::vector<ArrayPtr>> Project(std::span<const ArrayPtr> columns, int64_t length,
                                        EvalReport* report = nullptr);
  Result<std::vector<ArrayPtr>> ProjectInto(std::span<const ArrayPtr> columns, int64_t length,
                                            std::span<const OutputBuffers> outs, EvalReport* report = nullptr);
  Result<std::vector<ArrayPtr>> Project(std::span<const ArrayPtr> columns, int64_t length,
                                        const SelectionVector& selection, EvalReport* report = nullptr);
  std::span<const ir::ExprPtr> exprs() const;
  size_t layouts() const;

 private:
  friend class internal::EngineImpl;
  PreparedProjection();  // made by the engine, which sets state_
  std::unique_ptr<internal::PreparedProjectionState> state_;
};

// An aggregate prepared for repeated folding (Engine::PrepareAggregate): results, errors and
// reports are those of Engine::Aggregate with the same options, call for call. A layout (per
// column the argument reads: encoding, type, whether it holds nulls; and whether a column is all
// null) is planned on its first batch and its optimized fold kernel kept, so that a later batch
// of that layout costs its input checks and the fold: no planning, no cache lookup. Folds that
// are not one kernel over the columns as they are (16-byte decimals, strings, arguments computed
// in stages, integer sums longer than EngineOptions::fold_slice_rows, inputs that must be
// decoded) and the fast tier while the optimized kernel compiles take Engine::Aggregate's path.
// Thread-safe; at most PreparedExpression::kMaxLayouts layouts are kept.
class PreparedAggregate {
 public:
  ~PreparedAggregate();
  PreparedAggregate(const PreparedAggregate&) = delete;
  PreparedAggregate& operator=(const PreparedAggregate&) = delete;

  Result<ir::AggregateResult> Aggregate(std::span<const ArrayPtr> columns, int64_t length,
                                        EvalReport* report = nullptr);
  const ir::Aggregate& aggregate() const;
  size_t layouts() const;  // layouts planned and held so far

 private:
  friend class internal::EngineImpl;
  PreparedAggregate();  // made by the engine, which sets state_
  std::unique_ptr<internal::PreparedAggregateState> state_;
};

}  // namespace rowjit::jit
