// Prepared expressions (jit layer, api room): the host's handle for one expression evaluated
// batch after batch. Engine::Evaluate routes and plans every call and finds its kernel through
// the cache (hashing and comparing the whole expression tree); a prepared expression does that
// once per batch layout and keeps the plan and the kernel, so that a call on a known layout costs
// its input checks, one read of the batch and the kernel run. Calls whose route is not one kernel
// over the batch as it is take the engine's path.
#include <array>
#include <cassert>
#include <cstring>
#include <limits>
#include <new>
#include <utility>

#include "jit/api/prepared_internal.h"
#include "kernels/bitmap.h"

namespace rowjit::jit::internal {

// What a direct call reads of one referenced column.
struct DirectColumn {
  TypeId type = TypeId::kI32;
  bool nulls = false;
  bool constant = false;
};

// What a direct call leaves: its run and the result's validity.
struct DirectCall {
  DirectRun run;
  Validity rows;
};

struct PreparedExpressionState {
  EngineImpl* engine;
  ir::ExprPtr expr;
  EvalOptions options;
  LayoutTable layouts;
  // A handle the engine holds for its one-shot calls: its runs on a held kernel, counted
  // (CacheStats::held); null for a host's own handle.
  std::atomic<int64_t>* held_runs = nullptr;

  // `full_report`: the caller asked for a report, so that the kernel key is copied into it.
  // `into`: the caller's output, when it lent one (checked by CheckOutputs).
  Result<ArrayPtr> Run(std::span<const ArrayPtr> columns, int64_t length, EvalReport& rep, bool full_report,
                       std::span<const OutputBuffers> into) {
    if (std::optional<Result<DirectCall>> direct = RunDirect(columns, length, rep, full_report, into)) {
      return ResultOf(*std::move(direct), length, into);
    }
    return RunRouted(columns, length, rep, full_report, into);
  }
  // The direct call of a batch a direct layout matches, or nullopt (RunRouted's path). With
  // `into` (at most one output, not checked yet), the call checks it first and leaves the result
  // there, delivered: nullopt when a check fails, for CheckOutputs to name.
  std::optional<Result<DirectCall>> RunDirect(std::span<const ArrayPtr> columns, int64_t length, EvalReport& rep,
                                              bool full_report, std::span<const OutputBuffers> into);
  // A call into the caller's memory that the direct call did not take: the output checked, the
  // batch run on RunRouted's path, the result delivered into that memory.
  Result<ArrayPtr> RoutedInto(std::span<const ArrayPtr> columns, int64_t length, const OutputBuffers& out,
                              EvalReport& rep, bool full_report) {
    const std::span<const OutputBuffers> into(&out, 1);
    ROWJIT_RETURN_NOT_OK(CheckOutputs(std::span(&expr, 1), into, length, columns));
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr result, RunRouted(columns, length, rep, full_report, into));
    return Deliver(result, out, &rep.output_copied);
  }
  // The held layout a direct call of these columns runs, or null (Run's path): matched, and not
  // owed to a streamed output, the byte limit, a speculative kernel's twin or retry pressure.
  const PreparedLayout* DirectLayout(std::span<const DirectColumn> seen, BatchFacts::Rows rows, int64_t length,
                                     std::span<const OutputBuffers> into) const;
  // What a direct call reports, and counts as a run on a held kernel.
  void ReportDirect(const PreparedLayout& layout, EvalReport& rep, bool full_report) const;
  // WriteBuffers' direct call (the caller's output not checked yet), or nullopt: its result's
  // null count.
  std::optional<Result<int64_t>> RunBuffersDirect(std::span<const ColumnBuffers> columns, int64_t length,
                                                  const OutputBuffers& out, EvalReport& rep, bool full_report);
  // EvaluateInto's direct result as an array over the caller's memory: the last one again when
  // it is the same array and only this handle holds it (the host dropped it), as Velox reuses a
  // vector nobody else references. A batch loop that writes into the same buffers and drops each
  // result then builds one result object, not one a call: the object and its buffer are two
  // allocations, a third of a short call (bench: `compile/ops3/prepared_into_8_rows` against
  // `prepared_write_into_8_rows`). The handle keeps one such array, which owns nothing.
  // The lock is only tried: where threads share a handle (the engine's own, for its one-shot
  // calls), a busy slot means building the array, not waiting.
  Result<ArrayPtr> IntoResult(Result<DirectCall> call, int64_t length, const OutputBuffers& out) {
    if (!call.ok()) return std::move(call).TakeError();
    if (std::unique_lock lock(reuse_mu, std::try_to_lock); lock.owns_lock()) {
      // use_count 1: no other shared_ptr holds it, and none is made without this lock (a weak_ptr
      // a host kept would see it again: docs/embedding.md says so). The fence orders the last
      // holder's release (its reads of the array) before this rewrite of its null count.
      if (reusable != nullptr && reusable.use_count() == 1 &&
          SameDirectResult(*reusable, *expr, length, call->run, call->rows, out)) {
        std::atomic_thread_fence(std::memory_order_acquire);
        reusable->ForgetNullCount();
        return reusable;
      }
    }
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr r, DirectResult(*expr, length, std::move(call->run), std::move(call->rows), &out));
    if (std::unique_lock lock(reuse_mu, std::try_to_lock); lock.owns_lock()) reusable = r;
    return r;
  }
  std::mutex reuse_mu;
  ArrayPtr reusable;  // IntoResult's last array (over memory a caller lent; never read through)
  // A direct call's result as an array (over the caller's memory when it lent some).
  Result<ArrayPtr> ResultOf(Result<DirectCall> call, int64_t length, std::span<const OutputBuffers> into) const {
    if (!call.ok()) return std::move(call).TakeError();
    return DirectResult(*expr, length, std::move(call->run), std::move(call->rows), into.empty() ? nullptr : &into[0]);
  }
  // Run's path for a batch the direct call does not take: as Engine::Evaluate routes it, through
  // the layout held for the batch's description (planned and kept the first time).
  Result<ArrayPtr> RunRouted(std::span<const ArrayPtr> columns, int64_t length, EvalReport& rep, bool full_report,
                             std::span<const OutputBuffers> into);
  Result<ArrayPtr> PlanAndRun(std::span<const ArrayPtr> columns, int64_t length, EvalReport& rep,
                              std::span<const OutputBuffers> into);
  // Per referenced column (ExprFacts::columns order), the type it was bound to.
  std::vector<DataType> bound_types;
  // The exact twin of a layout's speculative kernel, compiled (in the tier the layout holds) the
  // first time a batch needs it and held by the layout from then on (no cache lookup when the
  // kernel sends it later batches).
  Result<ExactTwin> TwinOf(const PreparedLayout& layout, EvalReport& rep);
};

Result<ExactTwin> PreparedExpressionState::TwinOf(const PreparedLayout& layout, EvalReport& rep) {
  if (!layout.has_twin.load(std::memory_order_acquire)) {  // set once, never changed after
    std::lock_guard lock(layout.twin_mu);
    if (!layout.has_twin.load(std::memory_order_relaxed)) {
      Plan exact{layout.strategy, *layout.key};
      exact.kernel->shape.speculative_mul = false;
      const TierWant want = options.tier == Tier::kFast ? TierWant::kFast : TierWant::kOptimized;
      ROWJIT_ASSIGN_OR_RETURN(layout.twin_kernel, engine->KernelOf(exact, want, rep));
      layout.twin_key = rep.kernel;
      layout.has_twin.store(true, std::memory_order_release);
    }
  }
  rep.kernel = layout.twin_key;
  rep.tier = layout.twin_kernel->tier();
  return ExactTwin{layout.twin_kernel.get(), &*layout.twin_key};
}

namespace {

// The columns a direct call reads: fixed-width values, each input one pointer (not bits or
// strings), or a constant's bits (up to 8 bytes: a 16-byte constant's kernel input is a buffer of
// its two halves).
bool DirectType(TypeId type, bool constant) {
  return !IsString(type) && !IsNested(type) && type != TypeId::kBool && !(constant && type == TypeId::kI128);
}

// The column as a direct call may read it (a primitive array whose values are aligned to their
// width, or a constant that is not null), checked as ir::CheckInputs checks it, into `in` and
// `seen`; false otherwise (Run's path then reports the error, or decodes the column). The facts
// are written field by field: a small struct returned by value was assembled from byte stores
// and reloaded whole, a store-forwarding stall a column (bench: `compile/ops3/prepared_8_rows`).
// The buffers a primitive column reads are added to `reads` (at reads[n], two at most), as the
// output checks' overlap test would find them (whole buffers), so that it need not walk the
// arrays again.
bool ReadDirectColumn(std::span<const ArrayPtr> columns, int c, const DataType& bound, int64_t length,
                      KernelInput& in, DirectColumn& seen, ByteRange* reads, size_t& n) {
  if (static_cast<size_t>(c) >= columns.size() || columns[c] == nullptr) return false;
  const Array& a = *columns[c];
  const bool constant = a.encoding() == Encoding::kConstant;
  // Primitive and constant arrays are valid as made (Array::Validate checks only what a
  // dictionary's codes may break), so the virtual call is skipped.
  if ((!constant && a.encoding() != Encoding::kPrimitive) || a.length() != length || !a.type().SameType(bound) ||
      !DirectType(a.type().id, constant)) {
    return false;
  }
  seen.type = a.type().id;
  if (constant) {
    const Scalar& value = static_cast<const ConstantArray&>(a).value();
    if (value.is_null()) return false;
    in.scalar = value.bits();
    seen.nulls = false;
    seen.constant = true;
    return true;
  }
  const auto& p = static_cast<const PrimitiveArray&>(a);
  if (p.validity().all_null()) return false;  // no row to compute: Run's path answers
  const bool nulls = p.NullCount() > 0;
  const auto width = static_cast<uintptr_t>(ByteWidth(p.type().id));
  if ((nulls && !bound.nullable) || (reinterpret_cast<uintptr_t>(p.raw_values()) & (width - 1)) != 0) {
    return false;
  }
  in.values = p.raw_values();
  seen.nulls = nulls;
  seen.constant = false;
  auto add = [&](const BufferPtr& b) {
    if (b != nullptr && b->size() > 0) reads[n++] = {b->data(), b->size()};
  };
  add(p.values_buffer());
  if (p.validity().has_bitmap()) add(p.validity().bitmap());
  return true;
}

bool Matches(const PreparedLayout& layout, std::span<const DirectColumn> seen, BatchFacts::Rows rows, bool short_batch) {
  if (!layout.direct || layout.rows != rows || layout.short_batch != short_batch) return false;
  for (size_t k = 0; k < seen.size(); ++k) {
    const ir::InputSpec& spec = layout.inputs[k];
    const ir::InputShape shape = seen[k].constant ? ir::InputShape::kConstant : ir::InputShape::kFlat;
    if (spec.shape != shape || spec.type != seen[k].type || spec.has_nulls != seen[k].nulls) return false;
  }
  return true;
}

// The AND of the referenced columns' validity, as ReadRows computes it (AndValidity): shared
// when one column has nulls, else combined into `into` (the caller's validity buffer) or a fresh
// bitmap.
// The direct call reads at most this many columns: its per-column state stays on the stack.
constexpr size_t kDirectColumns = 16;

Result<Validity> RowsOf(std::span<const ArrayPtr> columns, const std::vector<int>& refs, int64_t length,
                        void* into) {
  assert(refs.size() <= kDirectColumns && "RunDirect takes at most kDirectColumns columns");
  // On the stack (a nullable batch's direct call makes no allocation for it).
  std::array<Validity, kDirectColumns> validity = []<size_t... I>(std::index_sequence<I...>) {
    return std::array<Validity, kDirectColumns>{((void)I, Validity::AllValid())...};
  }(std::make_index_sequence<kDirectColumns>());
  size_t n = 0;
  for (int c : refs) {
    if (columns[c]->encoding() == Encoding::kPrimitive) {
      validity[n++] = static_cast<const PrimitiveArray&>(*columns[c]).validity();
    }
  }
  BufferPtr out = into != nullptr ? Buffer::Lend(into, kernels::NumWords(length) * 8) : nullptr;
  return AndValidity(std::span(validity.data(), n), length, std::move(out));
}

}  // namespace

// A layout seen for the first time: read, planned and run as Engine::Evaluate's kernel route
// does it, and kept when the run succeeded with one plain kernel (or none) that may be held.
Result<ArrayPtr> PreparedExpressionState::PlanAndRun(std::span<const ArrayPtr> columns, int64_t length,
                                                     EvalReport& rep, std::span<const OutputBuffers> into) {
  void* rows_into = into.empty() ? nullptr : into[0].validity;
  ROWJIT_ASSIGN_OR_RETURN(Batch batch, ReadBatch(*expr, columns, length, rows_into));
  batch.facts.stream_output = engine->StreamsOutput(*expr, batch.facts, into);
  Plan plan = PlanEvaluation(expr, batch.facts, options.policy);
  rep.strategy = plan.strategy;
  auto layout = std::make_unique<PreparedLayout>();
  layout->rows = batch.facts.rows;
  layout->stream_output = batch.facts.stream_output;
  layout->short_batch = IsShortBatch(length);
  layout->route = rep.route;
  layout->strategy = plan.strategy;
  for (int c : expr->facts().columns) layout->inputs.push_back(batch.facts.inputs[c]);
  const bool needs_kernel = plan.kernel.has_value();
  // The layout holds the planned key and kernel: RunPlan moves the key into the report, which
  // names the exact twin instead when a speculative kernel handed it the batch.
  std::optional<CacheKey> planned = plan.kernel;
  Result<ArrayPtr> out = engine->RunPlan(*expr, batch, plan, options, rep, &layout->kernel, into);
  // Not kept: a failed run (its compile may succeed next time), a length-0 batch (planned by its
  // length, not its layout), and a kernel of a tier the options do not want held.
  const bool keep = out.ok() && plan.strategy != Strategy::kEmpty &&
                    (needs_kernel ? layout->kernel != nullptr && rep.kernel.has_value() &&
                                        Holdable(*layout->kernel, options)
                                  : layout->kernel == nullptr);
  if (keep) {
    layout->direct = (plan.strategy == Strategy::kDense || plan.strategy == Strategy::kDenseRetry) &&
                     layout->kernel != nullptr && RunsDirect(*expr, layout->kernel->shape()) &&
                     (layout->rows == BatchFacts::Rows::kAllValid || layout->rows == BatchFacts::Rows::kSomeNull);
    for (int c : expr->facts().columns) {
      const Encoding e = columns[c]->encoding();
      const ir::InputSpec& spec = batch.facts.inputs[c];
      // Nulls only under an expression whose rows are null exactly where an input's are (the
      // AND of their validity is the result's).
      layout->direct = layout->direct && (e == Encoding::kPrimitive || e == Encoding::kConstant) &&
                       DirectType(spec.type, e == Encoding::kConstant) &&
                       (!spec.has_nulls || expr->facts().StrictRows());
      layout->input_row_bytes += std::max(ByteWidth(spec.type), 1);
    }
    layout->evaluation_bytes_per_row = EngineImpl::EvaluationBytesPerRow(*expr, columns);
    layout->key = std::move(planned);
    layouts.Keep(std::move(layout));
  }
  return out;
}

// The kernel inputs of a direct call: one KernelInput per column up to the last referenced one
// (kernels read input c at inputs[c]), on the stack for up to kDirectColumns of them. Only those
// slots are set: zeroing the whole inline array is a visible part of a 2,048-row call (bench:
// `ordinary/i32_mul_add/jit_prepared_chunks2048`).
class DirectInputs {
 public:
  explicit DirectInputs(size_t slots) : slots_(slots) {
    if (slots > kDirectColumns) {
      more_.resize(slots);
      inputs_ = more_.data();
    } else {
      inputs_ = reinterpret_cast<KernelInput*>(inline_);
      for (size_t i = 0; i < slots; ++i) new (&inputs_[i]) KernelInput{};
    }
  }
  KernelInput& operator[](size_t c) { return inputs_[c]; }
  std::span<const KernelInput> span() const { return {inputs_, slots_}; }

 private:
  size_t slots_;
  alignas(KernelInput) unsigned char inline_[kDirectColumns * sizeof(KernelInput)];
  std::vector<KernelInput> more_;
  KernelInput* inputs_ = nullptr;
};

const PreparedLayout* PreparedExpressionState::DirectLayout(std::span<const DirectColumn> seen,
                                                            BatchFacts::Rows rows, int64_t length,
                                                            std::span<const OutputBuffers> into) const {
  const PreparedLayout* layout = nullptr;
  for (size_t i = 0; i < layouts.size() && layout == nullptr; ++i) {
    if (Matches(layouts[i], seen, rows, IsShortBatch(length))) layout = &layouts[i];
  }
  if (layout == nullptr || engine->StreamsOutput(*expr, length, layout->input_row_bytes, into) ||
      !engine->WithinEvaluationBytes(static_cast<double>(length) * layout->evaluation_bytes_per_row)) {
    return nullptr;
  }
  // Valid-only runs owed to retry pressure, and batches owed to a speculative kernel's twin: Run's.
  const CompiledKernel& kernel = *layout->kernel;
  if (kernel.shape().speculative_mul && kernel.OwesExactBatches()) return nullptr;
  if (options.policy == ir::Policy::kAuto && expr->facts().can_fail && rows == BatchFacts::Rows::kSomeNull &&
      engine->retry_pressure().Pressured(*expr)) {
    return nullptr;
  }
  return layout;
}

void PreparedExpressionState::ReportDirect(const PreparedLayout& layout, EvalReport& rep, bool full_report) const {
  rep.route = layout.route;  // the kernel route's, on which it was planned
  rep.direct = true;
  rep.strategy = layout.strategy;
  rep.tier = layout.kernel->tier();
  if (full_report) rep.kernel = *layout.key;
  if (held_runs != nullptr) held_runs->fetch_add(1, std::memory_order_relaxed);
}

// The direct call: a batch of primitive or constant columns whose layout holds a dense kernel
// runs it with no routing, planning, input description or cache: per call only what depends on
// the batch (Admit's checks of the columns and the byte limit, the layout's match, the AND of
// the validity, the output) and the kernel. Anything else (a column to decode or to report, a
// layout not met, evidence) takes Run's path, which decides it as Engine::Evaluate does.
std::optional<Result<DirectCall>> PreparedExpressionState::RunDirect(std::span<const ArrayPtr> columns,
                                                                    int64_t length, EvalReport& rep, bool full_report,
                                                                    std::span<const OutputBuffers> into) {
  const ir::ExprFacts& f = expr->facts();
  const std::vector<int>& refs = f.columns;
  if (length <= 0 || layouts.size() == 0 || refs.size() > kDirectColumns || refs.empty() ||
      static_cast<int64_t>(columns.size()) > engine->options().limits.max_columns) {
    return std::nullopt;
  }
  DirectInputs inputs(static_cast<size_t>(refs.back()) + 1);
  DirectColumn seen[kDirectColumns];
  ByteRange reads[2 * kDirectColumns];
  size_t n_reads = 0;
  bool any_nulls = false;
  for (size_t k = 0; k < refs.size(); ++k) {
    if (!ReadDirectColumn(columns, refs[k], bound_types[k], length, inputs[refs[k]], seen[k], reads, n_reads)) {
      return std::nullopt;
    }
    any_nulls = any_nulls || seen[k].nulls;
  }
  const BatchFacts::Rows rows =
      any_nulls && f.StrictRows() ? BatchFacts::Rows::kSomeNull : BatchFacts::Rows::kAllValid;
  const PreparedLayout* layout = DirectLayout(std::span(seen, refs.size()), rows, length, into);
  if (layout == nullptr) return std::nullopt;
  const OutputBuffers* out = into.empty() ? nullptr : &into[0];
  if (out != nullptr && !OutputFits(*expr, *out, length, std::span<const ByteRange>(reads, n_reads))) {
    return std::nullopt;
  }
  Validity valid = Validity::AllValid();
  if (rows == BatchFacts::Rows::kSomeNull) {
    Result<Validity> anded = RowsOf(columns, refs, length, out != nullptr ? out->validity : nullptr);
    if (!anded.ok()) return Result<DirectCall>(std::move(anded).TakeError());
    valid = *std::move(anded);
  }
  const InputsView view{inputs.span(), layout->key->spec.inputs, f.string_evidence};
  std::optional<Result<DirectRun>> run =
      internal::RunDirect(*expr, *layout->kernel, view, length, valid, out, engine->outputs());
  if (!run) return std::nullopt;
  ReportDirect(*layout, rep, full_report);
  if (!run->ok()) return Result<DirectCall>(std::move(*run).TakeError());
  return Result<DirectCall>(DirectCall{**std::move(run), std::move(valid)});
}

// The raw-buffer call on a held direct layout: as RunDirect, each column's nulls found by a
// count of its validity bits, the validity's AND written into the caller's buffer before the
// kernel runs, the null count read back from it.
std::optional<Result<int64_t>> PreparedExpressionState::RunBuffersDirect(std::span<const ColumnBuffers> columns,
                                                                        int64_t length, const OutputBuffers& out,
                                                                        EvalReport& rep, bool full_report) {
  const ir::ExprFacts& f = expr->facts();
  const std::vector<int>& refs = f.columns;
  if (length <= 0 || layouts.size() == 0 || refs.size() > kDirectColumns || refs.empty() ||
      static_cast<size_t>(refs.back()) >= columns.size() ||
      static_cast<int64_t>(columns.size()) > engine->options().limits.max_columns) {
    return std::nullopt;
  }
  DirectInputs inputs(static_cast<size_t>(refs.back()) + 1);
  DirectColumn seen[kDirectColumns];
  ByteRange reads[2 * kDirectColumns];
  const uint64_t* validity[kDirectColumns];
  size_t n_reads = 0, n_validity = 0;
  const int64_t words = kernels::NumWords(length);
  for (size_t k = 0; k < refs.size(); ++k) {
    const ColumnBuffers& c = columns[static_cast<size_t>(refs[k])];
    const DataType& bound = bound_types[k];
    const auto width = static_cast<uintptr_t>(ByteWidth(bound.id));
    if (!DirectType(bound.id, false) || c.values == nullptr ||
        (reinterpret_cast<uintptr_t>(c.values) & (width - 1)) != 0 || (c.validity != nullptr && !bound.nullable)) {
      return std::nullopt;
    }
    reads[n_reads++] = {c.values, length * ByteWidth(bound.id)};
    seen[k] = {bound.id, false, false};
    if (c.validity != nullptr) {
      reads[n_reads++] = {c.validity, words * 8};
      const int64_t valid = kernels::CountSetBits({reinterpret_cast<const uint8_t*>(c.validity), 0, length});
      if (valid == 0) return std::nullopt;  // no row to compute: Run's path answers
      seen[k].nulls = valid < length;
      if (seen[k].nulls) validity[n_validity++] = c.validity;
    }
    inputs[static_cast<size_t>(refs[k])].values = c.values;
  }
  const BatchFacts::Rows rows =
      n_validity > 0 && f.StrictRows() ? BatchFacts::Rows::kSomeNull : BatchFacts::Rows::kAllValid;
  const std::span<const OutputBuffers> into(&out, 1);
  const PreparedLayout* layout = DirectLayout(std::span(seen, refs.size()), rows, length, into);
  if (layout == nullptr || !OutputFits(*expr, out, length, std::span<const ByteRange>(reads, n_reads))) {
    return std::nullopt;
  }
  if (out.validity != nullptr) {
    auto* dst = static_cast<uint8_t*>(out.validity);
    if (rows == BatchFacts::Rows::kSomeNull) {
      kernels::BitmapCopy({reinterpret_cast<const uint8_t*>(validity[0]), 0, length}, dst);
      for (size_t i = 1; i < n_validity; ++i) {
        kernels::BitmapAndInPlace(dst, {reinterpret_cast<const uint8_t*>(validity[i]), 0, length});
      }
    } else {
      std::memset(dst, 0xff, static_cast<size_t>(kernels::NumBytes(length)));
    }
    ClearBitsPastEnd(dst, length);
  }
  const InputsView view{inputs.span(), layout->key->spec.inputs, f.string_evidence};
  if (!RunDirectInto(*expr, *layout->kernel, view, length, out.values)) return std::nullopt;
  ReportDirect(*layout, rep, full_report);
  if (rows == BatchFacts::Rows::kAllValid) return Result<int64_t>(int64_t{0});
  return Result<int64_t>(length - kernels::CountSetBits({static_cast<const uint8_t*>(out.validity), 0, length}));
}

Result<ArrayPtr> PreparedExpressionState::RunRouted(std::span<const ArrayPtr> columns, int64_t length,
                                                    EvalReport& rep, bool full_report,
                                                    std::span<const OutputBuffers> into) {
  const ir::ExprFacts& f = expr->facts();
  // The route, as Engine::Evaluate's: only the kernel route's layouts are held (the others take
  // the engine's path, which checks the inputs first).
  const Route route = RouteEvaluation(*expr, engine->Call(columns, length, options, !into.empty()));
  if (route != Route::kKernel) return engine->EvaluateRouted(expr, columns, length, options, rep, into);
  ROWJIT_RETURN_NOT_OK(engine->Admit(*expr, columns, length));
  rep.route = route;
  const BatchInputs inputs(f.columns, columns);
  // Inputs the kernels cannot read as they are: Evaluate's path decodes them (once).
  if (length == 0 || inputs.decode) return engine->EvaluateRouted(expr, columns, length, options, rep, into);
  Batch batch;
  batch.columns = columns;
  batch.facts.length = length;
  ROWJIT_RETURN_NOT_OK(ReadRows(*expr, inputs.any_nulls, batch, into.empty() ? nullptr : into[0].validity));
  // Valid-only runs owed to retry pressure: planned per batch by Evaluate's path.
  if (options.policy == ir::Policy::kAuto && f.can_fail && batch.facts.rows == BatchFacts::Rows::kSomeNull &&
      engine->retry_pressure().Pressured(*expr)) {
    return engine->EvaluateRouted(expr, columns, length, options, rep, into);
  }
  int64_t input_row_bytes = 0;
  for (size_t k = 0; k < f.columns.size(); ++k) input_row_bytes += std::max(ByteWidth(inputs[k].type), 1);
  const bool stream = engine->StreamsOutput(*expr, length, input_row_bytes, into);
  const PreparedLayout* layout = layouts.Find(inputs, f.columns.size(), batch.facts.rows, stream, IsShortBatch(length));
  if (layout == nullptr) return PlanAndRun(columns, length, rep, into);
  rep.strategy = layout->strategy;
  const CompiledKernel* kernel = layout->kernel.get();
  const CacheKey* key = layout->key ? &*layout->key : nullptr;
  if (kernel != nullptr) rep.tier = kernel->tier();
  if (full_report && key != nullptr) rep.kernel = *key;
  if (held_runs != nullptr && kernel != nullptr) held_runs->fetch_add(1, std::memory_order_relaxed);
  auto find_twin = [&] { return TwinOf(*layout, rep); };
  const FindExactTwin exact_twin(find_twin);
  const bool speculates = kernel != nullptr && kernel->shape().speculative_mul;
  const Execution run{*expr, batch, key, kernel, engine->outputs(), rep, into, speculates ? &exact_twin : nullptr};
  Result<ArrayPtr> out = ExecuteRows(layout->strategy, run);
  if (out.ok() && rep.retried && options.policy == ir::Policy::kAuto) {
    engine->RaiseRetryPressure(expr, batch, options, rep);
  }
  return out;
}

Result<std::unique_ptr<PreparedExpression>> EngineImpl::PrepareExpression(const ir::ExprPtr& expr,
                                                                          const EvalOptions& options,
                                                                          std::atomic<int64_t>* held_runs) {
  if (expr == nullptr) return MakeError(ErrorCode::kInvalidInput, "null expression");
  return NoThrow([&]() -> Result<std::unique_ptr<PreparedExpression>> {
    if (!expr->bound()) return MakeError(ErrorCode::kInvalidInput, "expression is not bound");
    ROWJIT_RETURN_NOT_OK(ir::CheckLimits(expr->facts(), options_.limits));
    auto state = std::make_unique<PreparedExpressionState>();
    state->engine = this;
    state->expr = expr;
    state->options = options;
    state->held_runs = held_runs;
    for (int c : expr->facts().columns) {
      for (const ir::Expr* node : expr->facts().column_nodes) {
        if (node->column_index() == c) {
          state->bound_types.push_back(node->type());
          break;
        }
      }
    }
    std::unique_ptr<PreparedExpression> handle(new PreparedExpression());
    handle->state_ = std::move(state);
    return handle;
  });
}

// The handle Engine::Evaluate and EvaluateInto hold for `expr` under `options`: keyed by the
// expression and the options' tag.
std::shared_ptr<PreparedExpression> EngineImpl::HeldExpression(const ir::ExprPtr& expr, const EvalOptions& options) {
  if (!expr->bound()) return nullptr;
  return held_exprs_.Find(expr, OptionsTag(options), [&]() { return PrepareExpression(expr, options, &held_runs_); });
}

}  // namespace rowjit::jit::internal

namespace rowjit::jit {

using internal::ReportOf;

PreparedExpression::PreparedExpression() = default;
PreparedExpression::~PreparedExpression() = default;

const ir::ExprPtr& PreparedExpression::expr() const { return state_->expr; }

size_t PreparedExpression::layouts() const { return state_->layouts.size(); }

Result<ArrayPtr> PreparedExpression::Evaluate(std::span<const ArrayPtr> columns, int64_t length,
                                              EvalReport* report) {
  EvalReport local;
  EvalReport& rep = ReportOf(report, local);
  return NoThrow([&] { return state_->Run(columns, length, rep, report != nullptr, {}); });
}

Result<ArrayPtr> PreparedExpression::EvaluateInto(std::span<const ArrayPtr> columns, int64_t length,
                                                  const OutputBuffers& out, EvalReport* report) {
  EvalReport local;
  EvalReport& rep = ReportOf(report, local);
  return NoThrow([&]() -> Result<ArrayPtr> {
    const std::span<const OutputBuffers> into(&out, 1);
    // The direct call checks the output itself and leaves its result delivered.
    if (auto direct = state_->RunDirect(columns, length, rep, report != nullptr, into)) {
      return state_->IntoResult(*std::move(direct), length, out);
    }
    return state_->RoutedInto(columns, length, out, rep, report != nullptr);
  });
}

Result<int64_t> PreparedExpression::WriteInto(std::span<const ArrayPtr> columns, int64_t length,
                                              const OutputBuffers& out, EvalReport* report) {
  EvalReport local;
  EvalReport& rep = ReportOf(report, local);
  return NoThrow([&]() -> Result<int64_t> {
    const std::span<const OutputBuffers> into(&out, 1);
    // The direct call builds no array: the null count is its validity's.
    if (auto direct = state_->RunDirect(columns, length, rep, report != nullptr, into)) {
      if (!direct->ok()) return std::move(*direct).TakeError();
      const Validity& rows = (*direct)->rows;
      return rows.all_valid() ? int64_t{0} : length - rows.CountValid(length);
    }
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr result, state_->RoutedInto(columns, length, out, rep, report != nullptr));
    return result->NullCount();
  });
}

namespace {

// A referenced column's raw buffers as the array WriteInto reads (borrowed, never written), or
// the error that names what is wrong with them.
Result<ArrayPtr> ArrayOfBuffers(const ColumnBuffers& c, const DataType& type, int64_t length, int index) {
  if (IsString(type.id) || (IsNested(type.id) && type.id != TypeId::kFixedList)) {
    return MakeError(ErrorCode::kInvalidInput, "column {}: a {} column has no raw-buffer form (pass arrays)", index,
                     type.ToString());
  }
  if (c.validity != nullptr && !type.nullable) {
    return MakeError(ErrorCode::kInvalidInput, "column {}: a validity bitmap for a column bound not nullable ({})",
                     index, type.ToString());
  }
  const int64_t words = kernels::NumWords(length);
  if (c.values == nullptr && length > 0) return MakeError(ErrorCode::kInvalidInput, "column {}: no values", index);
  Validity validity = Validity::AllValid();
  if (c.validity != nullptr) {
    ROWJIT_ASSIGN_OR_RETURN(validity, Validity::FromBitmap(Buffer::Borrow(c.validity, words * 8, nullptr), 0, length));
  }
  if (type.id == TypeId::kBool) {
    ROWJIT_ASSIGN_OR_RETURN(auto bits, BoolArray::Make(length, Buffer::Borrow(c.values, words * 8, nullptr), validity, 0,
                                                      type.nullable));
    return ArrayPtr(std::move(bits));
  }
  if (type.id == TypeId::kFixedList) {  // a vector column: its rows' elements, one after another
    if (length > std::numeric_limits<int64_t>::max() / type.ListRowBytes()) {
      return MakeError(ErrorCode::kInvalidInput, "column {}: {} rows of {} are more bytes than a buffer holds", index,
                       length, type.ToString());
    }
    const int64_t bytes = length * type.ListRowBytes();
    BufferPtr values = Buffer::Borrow(c.values, bytes, nullptr);
    if (reinterpret_cast<uintptr_t>(c.values) % static_cast<uintptr_t>(ByteWidth(type.elem)) != 0) {  // copied aligned
      ROWJIT_ASSIGN_OR_RETURN(BufferPtr copy, Buffer::AllocateForOverwrite(bytes));
      std::memcpy(copy->mutable_data(), c.values, static_cast<size_t>(bytes));
      values = std::move(copy);
    }
    ROWJIT_ASSIGN_OR_RETURN(auto vectors, FixedListArray::Make(type, length, std::move(values), validity));
    return ArrayPtr(std::move(vectors));
  }
  const int64_t bytes = length * ByteWidth(type.id);
  ROWJIT_ASSIGN_OR_RETURN(auto values, PrimitiveArray::Make(type, length, Buffer::Borrow(c.values, bytes, nullptr),
                                                           validity));
  return ArrayPtr(std::move(values));
}

}  // namespace

Result<int64_t> PreparedExpression::WriteBuffers(std::span<const ColumnBuffers> columns, int64_t length,
                                                 const OutputBuffers& out, EvalReport* report) {
  EvalReport local;
  EvalReport& rep = ReportOf(report, local);
  return NoThrow([&]() -> Result<int64_t> {
    // Lengths arrays may have (CheckExtent): the byte counts below cannot overflow.
    if (length < 0 || length > std::numeric_limits<int64_t>::max() / 16) {
      return MakeError(ErrorCode::kInvalidInput, "length {} is negative or too large", length);
    }
    if (auto direct = state_->RunBuffersDirect(columns, length, out, rep, report != nullptr)) return *std::move(direct);
    // Any other batch: the buffers as arrays, through WriteInto (which checks and reports them).
    const std::vector<int>& refs = state_->expr->facts().columns;
    if (!refs.empty() && static_cast<size_t>(refs.back()) >= columns.size()) {
      return MakeError(ErrorCode::kInvalidInput, "{} column buffer{} given; the expression reads column {} (from 0)",
                       columns.size(), columns.size() == 1 ? "" : "s", refs.back());
    }
    std::vector<ArrayPtr> arrays(columns.size());
    for (size_t k = 0; k < refs.size(); ++k) {
      const auto c = static_cast<size_t>(refs[k]);
      ROWJIT_ASSIGN_OR_RETURN(arrays[c], ArrayOfBuffers(columns[c], state_->bound_types[k], length, refs[k]));
    }
    return WriteInto(arrays, length, out, report);
  });
}

Result<ArrayPtr> PreparedExpression::Evaluate(std::span<const ArrayPtr> columns, int64_t length,
                                              const SelectionVector& selection, EvalReport* report) {
  return internal::RunSelected(state_->expr, columns, length, selection, state_->engine->outputs(),
                               [&](std::span<const ArrayPtr> cols, int64_t n, bool) { return Evaluate(cols, n, report); });
}

Result<SelectionVector> PreparedExpression::Filter(std::span<const ArrayPtr> columns, int64_t length,
                                                   EvalReport* report) {
  if (state_->expr->type().id != TypeId::kBool) {
    return MakeError(ErrorCode::kTypeError, "a filter's predicate is bool, not {}", state_->expr->type().ToString());
  }
  ROWJIT_ASSIGN_OR_RETURN(ArrayPtr result, Evaluate(columns, length, report));
  return internal::TrueRows(*result, state_->engine->outputs());
}

Result<SelectionVector> PreparedExpression::Filter(std::span<const ArrayPtr> columns, int64_t length,
                                                   const SelectionVector& selection, EvalReport* report) {
  if (state_->expr->type().id != TypeId::kBool) {
    return MakeError(ErrorCode::kTypeError, "a filter's predicate is bool, not {}", state_->expr->type().ToString());
  }
  ROWJIT_ASSIGN_OR_RETURN(ArrayPtr result, Evaluate(columns, length, selection, report));
  ROWJIT_ASSIGN_OR_RETURN(SelectionVector inner, internal::TrueRows(*result, state_->engine->outputs()));
  return selection.Compose(inner, state_->engine->outputs());
}

}  // namespace rowjit::jit
