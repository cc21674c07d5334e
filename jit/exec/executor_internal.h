// The executor (jit layer, exec room, internal). The exec room, above plan and under api, runs
// what the planner decided: kernel inputs prepared from the batch and one small function per
// strategy, dictionaries, string-valued calls, caller outputs and the static chain. Row
// evaluation is jit/exec/executor.cc, reduction templates jit/exec/executor_fold.cc; the Engine
// (jit/api/engine.cc) plans and calls them.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "ir/aggregate.h"
#include "ir/expr.h"
#include "ir/spec_key.h"
#include "jit/compile/compiler.h"
#include "jit/exec/call.h"
#include "jit/base/kernel_abi.h"
#include "jit/plan/batch.h"
#include "jit/plan/planner.h"
#include "runtime/array.h"

namespace rowjit::jit::internal {

// The kernel inputs of one run as a kernel call reads them: one KernelInput per column of the
// batch (the referenced ones set), the kernel key's input specs, and how string padding repeats.
struct InputsView {
  std::span<const KernelInput> inputs;
  std::span<const ir::InputSpec> specs;
  bool repeat_last_string = false;
};

// Kernel inputs for one run of a kernel over `columns` (`length` rows): raw pointers, constants'
// bits, validity words when the kernel's shape reads them. `specs` are the kernel key's.
struct PreparedInputs {
  std::vector<KernelInput> inputs = {};
  std::span<const ir::InputSpec> specs = {};  // the kernel key's, which outlives the run
  std::vector<BufferPtr> keep = {};  // copies the pointers refer to
  // Padding rows of strings repeat the last row (ir::ExprFacts::string_evidence); otherwise they
  // are empty strings, which read no bytes.
  bool repeat_last_string = false;
  operator InputsView() const { return {inputs, specs, repeat_last_string}; }  // NOLINT: a view of it
};
Result<PreparedInputs> PrepareInputs(std::span<const ArrayPtr> columns, const std::vector<int>& refs,
                                     int64_t length, const CacheKey& key);

// The inputs of the last partial word of `n` rows as 64-row scratch copies padded with the last
// row (values, codes, bool and validity words). Kernels of up to kInline inputs (the common case)
// take their copies from storage inside the object: a short batch allocates nothing here.
struct TailInputs {
  TailInputs(const InputsView& p, const std::vector<int>& refs, int64_t n);
  TailInputs(const TailInputs&) = delete;  // its inputs point into itself
  TailInputs& operator=(const TailInputs&) = delete;
  const KernelInput* data() const { return inputs_.empty() ? inline_inputs_ : inputs_.data(); }

 private:
  static constexpr size_t kInline = 8;
  static constexpr size_t kRowBytes = 64 * 16;  // 64 string views (16 bytes), the widest rows
  uint8_t* RowsOf(size_t k);                   // the scratch rows of the k-th referenced input
  uint64_t* WordsOf(size_t k);                 // its value and validity words
  KernelInput inline_inputs_[kInline];
  alignas(64) uint8_t inline_rows_[kInline * kRowBytes];
  uint64_t inline_words_[kInline * 2];
  std::vector<KernelInput> inputs_;            // more inputs than kInline
  std::vector<uint8_t> rows_;
  std::vector<uint64_t> words_;
  std::vector<std::vector<uint8_t>> bytes_;    // string inputs' tail bytes, when repeated
};

// The rows [start, start + mask.length) whose mask bit is set, of every referenced input of a
// dense kernel, compacted into `scratch` (one buffer per input, grown here and reused): inputs
// for running the same kernel over the `kept` rows only.
Result<std::vector<KernelInput>> CompactInputs(const PreparedInputs& p, const std::vector<int>& refs,
                                               int64_t start, kernels::BitSpan mask, int64_t kept,
                                               std::vector<BufferPtr>& scratch);

// Runs a row kernel over `n` rows: whole words in place, then the last partial word through
// padded scratch copies; a short batch's kernel (`shape.short_batch`, n < 64) all rows in place.
// `row_bytes`: bytes a row of output takes, or 0 for bits packed in 64-bit words. Returns the OR
// of the evidence.
uint64_t RunRows(RowKernelFn fn, const KernelShape& shape, const InputsView& p, const std::vector<int>& refs,
                 int64_t n, int row_bytes, uint8_t* out_values, uint64_t* out_valid);

// A held dense kernel run straight over a batch (a prepared expression's direct call,
// jit/api/prepared.cc), its kernel inputs set by the caller, its result's validity `rows` (the
// AND of the inputs'): the values into `into` (the caller's memory, already checked; the result
// is left there as Deliver leaves it, validity included) or a fresh buffer from `pool`. Nullopt
// when the kernel raised evidence: the caller takes the engine's path, which locates the failing
// row or reruns a speculative kernel's batch through its twin.
struct DirectRun {
  BufferPtr values;             // the fresh values; null when they lie in the caller's memory
  bool validity_moved = false;  // `rows` was copied into the caller's validity buffer
};
std::optional<Result<DirectRun>> RunDirect(const ir::Expr& expr, const CompiledKernel& kernel, const InputsView& inputs,
                                           int64_t n, const Validity& rows, const OutputBuffers* into,
                                           const std::shared_ptr<MemoryPool>& pool);
// The kernel part of a direct run into the caller's values (already checked; its validity is the
// caller's to write): the bits of a bool result past row n cleared. False when the kernel raised
// evidence.
bool RunDirectInto(const ir::Expr& expr, const CompiledKernel& kernel, const InputsView& inputs, int64_t n,
                   void* values);
// The array a direct run leaves: over its fresh values, or over the caller's memory.
Result<ArrayPtr> DirectResult(const ir::Expr& expr, int64_t n, DirectRun run, Validity rows, const OutputBuffers* into);
// Whether `r`, an array DirectResult built over `into` before, is the one it would build now for
// this run of n rows into `into`: the same values and validity memory, the same validity form.
bool SameDirectResult(const Array& r, const ir::Expr& expr, int64_t n, const DirectRun& run, const Validity& rows,
                      const OutputBuffers& into);
// Whether RunDirect runs a kernel of this shape for `expr`: one that reads no lane validity,
// writes none, skips no word and writes its result in its final form (no bytes to pack).
bool RunsDirect(const ir::Expr& expr, const KernelShape& shape);

// The first failing row, by a scalar pass with the reference semantics.
Error Locate(const ir::Expr& expr, std::span<const ArrayPtr> columns, int64_t length);

// String-valued calls (jit/exec/strings_materialize.cc): whether `expr` holds a call returning a
// string that no kernel computes (lower, substr, concat, ...; or a string-valued root), and
// the expression with each such call read from a new column holding its rows (computed a column
// at a time by the catalog's column forms, exactly sized; calls without one, and those that can
// fail, row by row by the reference). A string-valued root becomes a column reference.
// `evaluate` computes the non-string arguments of those calls (substr's positions, if's
// condition) with kernels; without it they run through the reference. Results' buffers come
// from `pool` (the engine's output pool; null: the system allocator).
struct StringColumns {
  ir::ExprPtr expr;
  std::vector<ArrayPtr> columns;  // the batch's, then the new ones
  int reference_nodes = 0;        // subexpressions computed row by row by the reference
  // Rows where a string-valued subexpression that can fail raised an error when computed on its
  // own (ascending): the whole expression decides them (FirstFailingRow).
  std::vector<int64_t> failed_rows;
};
// The first of the rows `failed` (ascending; the rows where a string-valued call failed on its
// own) up to `limit` where the whole expression raises an error (`whole_row`: ir::EvaluateRow,
// whose guards and nulls decide), or OK. `limit`: the first failing row of the rest of the
// expression, or INT64_MAX.
Status FirstFailingRow(std::span<const int64_t> failed, int64_t limit,
                       const std::function<Status(int64_t)>& whole_row);
using EvaluateFn = std::function<Result<ArrayPtr>(const ir::ExprPtr&, std::span<const ArrayPtr>, int64_t)>;
// The pool an evaluation's string results come from: the engine's output pool, and with a byte
// limit (EngineOptions::max_evaluation_bytes > 0) one that refuses allocations past it.
std::shared_ptr<MemoryPool> StringResultPool(std::shared_ptr<MemoryPool> outputs, int64_t limit);
// `vectors` computes a vector function's scores (the engine's vector kernels); without it the
// reference does.
Result<StringColumns> MaterializeStrings(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns,
                                         int64_t length, const EvaluateFn& evaluate = nullptr,
                                         std::shared_ptr<MemoryPool> pool = nullptr,
                                         const EvaluateFn& vectors = nullptr);

// min, max or min_max of a string-valued aggregate argument over its rows (bytewise order).
ir::AggregateResult FoldStrings(const ir::Aggregate& agg, const Array& rows);

// sum, min, max or min_max of a 16-byte decimal argument (more than 18 digits) over its rows
// (jit/exec/executor_fold.cc): a static loop, not a kernel; the sum exact (an error past 38 digits).
Result<ir::AggregateResult> FoldSixteenByte(const ir::Aggregate& agg, const Array& rows);

// sum, min, max or min_max of an interval argument (any of the three types) over its rows
// (jit/exec/executor_fold.cc): a static loop; sums part by part, min and max in PostgreSQL's order
// (ir/aggregate.h).
Result<ir::AggregateResult> FoldIntervals(const ir::Aggregate& agg, const Array& rows);

// Route::kOverDictionary (jit/exec/dictionary.cc): the expression over the dictionary's values
// of its one column (the route's OverDictionaryColumn), gathered through the codes.
// The rows of a dictionary-encoded batch from `over_values` (the expression over the dictionary's
// values) through the codes; rows with a null code take `null_row`.
Result<ArrayPtr> GatherThroughCodes(const Array& over_values, const Scalar& null_row, const DictionaryArray& d,
                                    const std::shared_ptr<MemoryPool>& pool);

// A speculative kernel's exact twin (KernelShape::speculative_mul): the kernel and its key, found
// (compiled if need be) when the speculative kernel's evidence asks for it. The caller that
// provides it keeps both alive for the run.
struct ExactTwin {
  const CompiledKernel* kernel;
  const CacheKey* key;
};
// Finds the twin: a reference to the caller's callable (no allocation on the per-call path; the
// callable outlives the run).
class FindExactTwin {
 public:
  template <typename F>
  explicit FindExactTwin(F& find)
      : find_(&find), call_([](void* f) -> Result<ExactTwin> { return (*static_cast<F*>(f))(); }) {}
  Result<ExactTwin> operator()() const { return call_(find_); }

 private:
  void* find_;
  Result<ExactTwin> (*call_)(void*);
};

// What a strategy runs with: the expression, the batch, the plan's compiled kernel (null when
// the plan has none), where outputs come from, and the report it fills.
struct Execution {
  const ir::Expr& expr;
  const Batch& batch;
  const CacheKey* key;             // the plan's kernel key (null when the plan has none)
  const CompiledKernel* kernel;
  const std::shared_ptr<MemoryPool>& pool;
  EvalReport& report;
  // Caller memory for the outputs (one per output; checked by CheckOutputs), which kernels run
  // over the whole batch write directly. Empty: outputs come from `pool`.
  std::span<const OutputBuffers> targets = {};
  // The exact twin of a speculative kernel (null when `kernel` does not speculate).
  const FindExactTwin* exact_twin = nullptr;
};

// Runs the planned strategy (jit/exec/executor.cc).
Result<ArrayPtr> ExecuteRows(Strategy strategy, const Execution& run);

// Runs a projection's kernel (run.expr is the ir::MakeProjection root; the plan's strategy is
// dense or validity): every output in one pass, or the first failing row and output. With
// `validity` (one per output), the kernel is a dense one over inputs with nulls, whose outputs
// take that validity, and whose evidence may come from rows behind nulls: then nullopt, and the
// caller runs the exact kernel.
Result<std::optional<std::vector<ArrayPtr>>> ExecuteProjection(const Execution& run,
                                                               std::span<const Validity> validity = {});
// `e` as an error of output `output` of a projection: the message names it, the row stays.
Error ProjectionError(Error e, size_t output);

// Caller outputs (jit/exec/output.cc). Bytes an output of `length` rows takes in the caller's memory:
// values (bool: bits in whole 64-bit words) and validity (whole 64-bit words).
int64_t OutputValuesBytes(TypeId type, int64_t length);
int64_t OutputValidityBytes(int64_t length);
// Checks the memory a caller lends for the results of `exprs` (one OutputBuffers each) over
// `length` rows: sizes, alignment, a validity buffer for every nullable result, and no overlap
// with each other or with any buffer of `columns`.
Status CheckOutputs(std::span<const ir::ExprPtr> exprs, std::span<const OutputBuffers> outs, int64_t length,
                    std::span<const ArrayPtr> columns);
// CheckOutputs' checks of one output as a predicate: true when they all pass (the direct call's
// fast check; a false sends the call to CheckOutputs for its message). The second form takes the
// inputs as the byte ranges they read.
bool OutputFits(const ir::Expr& expr, const OutputBuffers& out, int64_t length, std::span<const ArrayPtr> columns);
struct ByteRange {
  const void* data;
  int64_t bytes;
};
bool OutputFits(const ir::Expr& expr, const OutputBuffers& out, int64_t length, std::span<const ByteRange> inputs);
// Leaves the validity `v` of `n` rows in out.validity (in place already, copied, or set for every
// row; the bits past row n cleared): whether it was in place (or, with no buffer, needs none).
// An error when `v` has nulls and the caller lent no buffer for them.
Result<bool> DeliverValidity(const Validity& v, const OutputBuffers& out, int64_t n);
// Zeroes the bits of a bitmap of `n` rows from row n to the end of its last 64-bit word.
void ClearBitsPastEnd(void* bits, int64_t n);
// Leaves `result` in the caller's memory (copied unless a kernel wrote it there) and returns an
// array over that memory: flat, offset 0, validity written in full when a buffer was given.
// `copied`, when given, is set if the values had to be copied.
Result<ArrayPtr> Deliver(const ArrayPtr& result, const OutputBuffers& out, bool* copied = nullptr);

// Runs a reduction template's fold kernel over the batch and finishes the fold
// (jit/exec/executor_fold.cc).
Result<ir::AggregateResult> ExecuteFold(const ir::Aggregate& aggregate, const Execution& run);

}  // namespace rowjit::jit::internal
