// Row evaluation: one small function per strategy of the planner (jit layer, exec room). As in
// DuckDB's executors, each input case is its own named function and the case is chosen once, by the
// planner; none of these re-derives it.
#include <algorithm>
#include <cassert>
#include <cstring>
#include <optional>

#include "jit/exec/executor_internal.h"

#include "ir/reference.h"
#include "kernels/bytebool.h"
#include "kernels/filter.h"
#include "runtime/builder.h"
#include "runtime/deep_stack.h"

namespace rowjit::jit::internal {
namespace {

// Valid-only reruns for evidence walk the batch in blocks of this many rows: compacted inputs
// and outputs stay small and in cache, and the first block with evidence ends the rerun.
constexpr int64_t kRetryBlock = 4096;

struct KernelRun {
  BufferPtr values;
  BufferPtr validity;  // when the kernel writes it
  bool evidence = false;
};

// Bytes a row of the kernel's output takes, or 0 for bits packed in 64-bit words: row loops
// write bool results a byte a row (packed by the executor), word loops write bits.
int OutputRowBytes(const KernelShape& shape, TypeId type) {
  if (type != TypeId::kBool) return ByteWidth(type);
  return shape.loop == KernelLoop::kRows ? 1 : 0;
}

int64_t OutputBytes(int row_bytes, int64_t n) {
  return row_bytes == 0 ? kernels::NumWords(n) * 8 : n * row_bytes;
}

// Bool results written a byte a row, packed into bits.
Result<BufferPtr> PackBytes(const BufferPtr& bytes, int64_t n, const std::shared_ptr<MemoryPool>& pool) {
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr bits, Buffer::Allocate(kernels::NumWords(n) * 8, pool));
  kernels::PackByteBools(bytes->data(), n, bits->mutable_data());
  return bits;
}

// Bool results a row loop writes a byte a row, packed into bits afterwards.
bool PackedLater(const ir::Expr& e, int row_bytes) { return e.type().id == TypeId::kBool && row_bytes == 1; }

// Where a kernel's values go: the caller's memory when the run covers the whole output (`direct`)
// and writes it in its final form (not bytes to pack), else a fresh buffer.
Result<BufferPtr> ValuesOut(const Execution& run, int row_bytes, int64_t n, bool direct) {
  const bool zeroed = run.kernel->shape().skip_empty_words;  // skipped words must read as zeros
  if (direct && !PackedLater(run.expr, row_bytes)) {
    BufferPtr lent = Buffer::Lend(run.targets[0].values, OutputBytes(row_bytes, n));
    if (zeroed && n > 0) std::memset(lent->mutable_data(), 0, static_cast<size_t>(lent->size()));
    return lent;
  }
  // Other kernels write every row, so their outputs need no zeroing.
  return zeroed ? Buffer::Allocate(OutputBytes(row_bytes, n), run.pool)
                : Buffer::AllocateForOverwrite(OutputBytes(row_bytes, n), run.pool);
}

// Runs the plan's kernel over `n` rows of `p`: into the caller's memory when `n` is the whole
// output and the caller lent it, else into fresh outputs.
Result<KernelRun> RunKernel(const Execution& run, const PreparedInputs& p, int64_t n) {
  const KernelShape& shape = run.kernel->shape();
  const int row_bytes = OutputRowBytes(shape, run.expr.type().id);
  const bool direct = !run.targets.empty() && n == run.batch.facts.length;
  KernelRun out;
  ROWJIT_ASSIGN_OR_RETURN(out.values, ValuesOut(run, row_bytes, n, direct));
  uint64_t* valid_words = nullptr;
  if (shape.writes_validity) {
    // Not over the batch's row validity, should it lie in the caller's validity buffer.
    const void* target = direct ? run.targets[0].validity : nullptr;
    if (target != nullptr && !(run.batch.rows.has_bitmap() && run.batch.rows.bitmap()->data() == target)) {
      out.validity = Buffer::Lend(run.targets[0].validity, OutputValidityBytes(n));
    } else {
      ROWJIT_ASSIGN_OR_RETURN(out.validity, Buffer::Allocate(kernels::NumWords(n) * 8, run.pool));
    }
    valid_words = reinterpret_cast<uint64_t*>(out.validity->mutable_data());
  }
  out.evidence = RunRows(run.kernel->row_fn(), shape, p, run.expr.facts().columns, n, row_bytes,
                         out.values->mutable_data(), valid_words) != 0;
  if (PackedLater(run.expr, row_bytes)) {
    if (direct) {
      kernels::PackByteBools(out.values->data(), n, static_cast<uint8_t*>(run.targets[0].values));
      out.values = Buffer::Lend(run.targets[0].values, OutputValuesBytes(TypeId::kBool, n));
    } else {
      ROWJIT_ASSIGN_OR_RETURN(out.values, PackBytes(out.values, n, run.pool));
    }
  }
  return out;
}

// Runs the plan's kernel over every row of the batch.
Result<KernelRun> RunKernelOverBatch(const Execution& run) {
  const int64_t n = run.batch.facts.length;
  ROWJIT_ASSIGN_OR_RETURN(PreparedInputs p,
                          PrepareInputs(run.batch.columns, run.expr.facts().columns, n, *run.key));
  return RunKernel(run, p, n);
}

Result<ArrayPtr> MakeResult(const ir::Expr& expr, int64_t length, BufferPtr values, Validity validity) {
  const DataType type = expr.type();
  if (!type.nullable) validity = Validity::AllValid();
  if (type.id == TypeId::kBool) return BoolArray::Make(length, std::move(values), validity, 0, type.nullable);
  return PrimitiveArray::Make(type, length, std::move(values), validity);
}

}  // namespace

bool RunsDirect(const ir::Expr& expr, const KernelShape& shape) {
  return !shape.reads_lane_validity() && !shape.fold && shape.grouped_slots == 0 && !shape.stream_output &&
         !PackedLater(expr, OutputRowBytes(shape, expr.type().id));
}

std::optional<Result<DirectRun>> RunDirect(const ir::Expr& expr, const CompiledKernel& kernel, const InputsView& inputs,
                                           int64_t n, const Validity& rows, const OutputBuffers* into,
                                           const std::shared_ptr<MemoryPool>& pool) {
  assert(RunsDirect(expr, kernel.shape()) && "a direct call runs a dense kernel");
  DirectRun run;
  if (into != nullptr) {  // delivered as Deliver leaves a kernel's result in place
    if (!RunDirectInto(expr, kernel, inputs, n, into->values)) return std::nullopt;
    Result<bool> in_place = DeliverValidity(rows, *into, n);
    if (!in_place.ok()) return Result<DirectRun>(std::move(in_place).TakeError());
    run.validity_moved = !*in_place;
    return Result<DirectRun>(std::move(run));
  }
  const int row_bytes = OutputRowBytes(kernel.shape(), expr.type().id);
  Result<BufferPtr> fresh = Buffer::AllocateForOverwrite(OutputBytes(row_bytes, n), pool);
  if (!fresh.ok()) return Result<DirectRun>(std::move(fresh).TakeError());
  run.values = *std::move(fresh);
  if (RunRows(kernel.row_fn(), kernel.shape(), inputs, expr.facts().columns, n, row_bytes,
              run.values->mutable_data(), nullptr) != 0) {
    return std::nullopt;
  }
  return Result<DirectRun>(std::move(run));
}

bool RunDirectInto(const ir::Expr& expr, const CompiledKernel& kernel, const InputsView& inputs, int64_t n,
                   void* values) {
  assert(RunsDirect(expr, kernel.shape()) && "a direct call runs a dense kernel");
  const int row_bytes = OutputRowBytes(kernel.shape(), expr.type().id);
  if (RunRows(kernel.row_fn(), kernel.shape(), inputs, expr.facts().columns, n, row_bytes,
              static_cast<uint8_t*>(values), nullptr) != 0) {
    return false;
  }
  if (row_bytes == 0) ClearBitsPastEnd(values, n);
  return true;
}

Result<ArrayPtr> DirectResult(const ir::Expr& expr, int64_t n, DirectRun run, Validity rows, const OutputBuffers* into) {
  if (run.values == nullptr) {
    assert(into != nullptr && "a direct run's values lie in fresh memory or the caller's");
    run.values = Buffer::Lend(into->values, OutputValuesBytes(expr.type().id, n));  // bits, for bool
  }
  if (run.validity_moved) {
    ROWJIT_ASSIGN_OR_RETURN(rows, Validity::FromBitmap(Buffer::Lend(into->validity, OutputValidityBytes(n)), 0, n));
  }
  return MakeResult(expr, n, std::move(run.values), std::move(rows));
}

bool SameDirectResult(const Array& r, const ir::Expr& expr, int64_t n, const DirectRun& run, const Validity& rows,
                      const OutputBuffers& into) {
  if (run.values != nullptr || r.length() != n) return false;
  const uint8_t* values = nullptr;
  const Validity* validity = nullptr;
  if (r.encoding() == Encoding::kPrimitive) {
    const auto& p = static_cast<const PrimitiveArray&>(r);
    if (p.offset() == 0) values = p.values_buffer()->data(), validity = &p.validity();
  } else if (r.encoding() == Encoding::kBool) {
    const auto& b = static_cast<const BoolArray&>(r);
    if (b.offset() == 0) values = b.bits_buffer()->data(), validity = &b.validity();
  }
  if (values == nullptr || values != into.values) return false;
  // DirectResult's validity: a bitmap over the caller's (copied there, or the rows' own bitmap
  // already in place there), or none.
  const bool bitmap = expr.type().nullable && (run.validity_moved || !rows.all_valid());
  if (!bitmap) return validity->all_valid();
  return validity->has_bitmap() && validity->bit_offset() == 0 && validity->bitmap()->data() == into.validity;
}

namespace {

// Evidence that no valid row explains: a scalar pass names the first failing row.
Error ColdPass(const Execution& run) {
  run.report.cold_pass = true;
  return Locate(run.expr, run.batch.columns, run.batch.facts.length);
}

Result<ArrayPtr> RunNullConstant(const Execution& run) {
  ROWJIT_ASSIGN_OR_RETURN(auto c, ConstantArray::Make(Scalar::Null(run.expr.type().id).As(run.expr.type()),
                                                      run.batch.facts.length, true));
  return ArrayPtr(std::move(c));
}

// Every input constant: one row evaluated with the reference semantics, broadcast.
Result<ArrayPtr> RunConstant(const Execution& run) {
  ROWJIT_ASSIGN_OR_RETURN(Scalar s, ir::EvaluateRow(run.expr, run.batch.columns, 0));
  // The expression's type, whatever the scalar says (a null computed on the storage).
  if (s.type_id() == run.expr.type().id) s = s.As(run.expr.type().WithNullable(false));
  ROWJIT_ASSIGN_OR_RETURN(auto c, ConstantArray::Make(s, run.batch.facts.length, run.expr.type().nullable));
  return ArrayPtr(std::move(c));
}

// Null-aware expressions: the kernel computes validity row by row, and a failing call yields
// null where its error is not raised. Evidence is exact.
Result<ArrayPtr> RunValidity(const Execution& run) {
  ROWJIT_ASSIGN_OR_RETURN(KernelRun r, RunKernelOverBatch(run));
  if (r.evidence) return ColdPass(run);
  const int64_t n = run.batch.facts.length;
  ROWJIT_ASSIGN_OR_RETURN(Validity v, Validity::FromBitmap(r.validity, 0, n));
  return MakeResult(run.expr, n, r.values, v);
}

Result<ArrayPtr> RunDense(const Execution& run);

// A speculative kernel's evidence: an operand was wide, and a row may or may not fail. The batch
// runs again through the exact twin, whose evidence is exact; so do the next batches, without
// the speculative pass, for a while (CompiledKernel::MarkWideOperands).
Result<ArrayPtr> RunExactTwin(const Execution& run) {
  if (run.exact_twin == nullptr) {
    return MakeError(ErrorCode::kInternal, "a speculative kernel ran without its exact twin");
  }
  ROWJIT_ASSIGN_OR_RETURN(ExactTwin twin, (*run.exact_twin)());
  if (twin.kernel->shape().speculative_mul) {
    return MakeError(ErrorCode::kInternal, "the exact twin of a speculative kernel speculates");
  }
  return RunDense(Execution{run.expr, run.batch, twin.key, twin.kernel, run.pool, run.report, run.targets});
}

// Every row computed; validity is the AND of the inputs'. Also branch-and-skip, whose kernel
// skips words without a valid row and takes evidence from valid rows only.
Result<ArrayPtr> RunDense(const Execution& run) {
  const bool speculates = run.kernel->shape().speculative_mul;
  if (speculates && run.kernel->TakeExactBatch()) return RunExactTwin(run);
  ROWJIT_ASSIGN_OR_RETURN(KernelRun r, RunKernelOverBatch(run));
  if (r.evidence && speculates) {
    run.report.rechecked = true;
    run.kernel->MarkWideOperands();
    return RunExactTwin(run);
  }
  if (r.evidence) return ColdPass(run);
  return MakeResult(run.expr, run.batch.facts.length, r.values, run.batch.rows);
}

// Whether the dense kernel raises evidence over the valid rows alone: the valid rows of each
// block compacted and run into scratch, nothing allocated per row of the batch, nothing
// scattered. Stops at the first block with evidence.
Result<bool> EvidenceInValidRows(const Execution& run) {
  const std::vector<int>& refs = run.expr.facts().columns;
  const int64_t length = run.batch.facts.length;
  ROWJIT_ASSIGN_OR_RETURN(PreparedInputs p, PrepareInputs(run.batch.columns, refs, length, *run.key));
  const int row_bytes = OutputRowBytes(run.kernel->shape(), run.expr.type().id);
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr out, Buffer::AllocateForOverwrite(OutputBytes(std::max(row_bytes, 1), kRetryBlock)));
  std::vector<BufferPtr> scratch;
  PreparedInputs block{.specs = p.specs, .repeat_last_string = p.repeat_last_string};
  for (int64_t start = 0; start < length; start += kRetryBlock) {
    const kernels::BitSpan mask = run.batch.rows.Slice(start).Span(std::min(kRetryBlock, length - start));
    const int64_t kept = kernels::CountSetBits(mask);
    if (kept == 0) continue;
    ROWJIT_ASSIGN_OR_RETURN(block.inputs, CompactInputs(p, refs, start, mask, kept, scratch));
    if (RunRows(run.kernel->row_fn(), run.kernel->shape(), block, refs, kept, row_bytes, out->mutable_data(),
                nullptr) != 0) {
      return true;
    }
  }
  return false;
}

// Dense, and when evidence appears on a batch with nulls it may come from rows behind them: the
// valid rows are rerun for evidence only; evidence there is a real error.
Result<ArrayPtr> RunDenseWithRetry(const Execution& run) {
  ROWJIT_ASSIGN_OR_RETURN(KernelRun r, RunKernelOverBatch(run));
  if (r.evidence && run.batch.facts.rows == BatchFacts::Rows::kSomeNull) {
    run.report.retried = true;
    ROWJIT_ASSIGN_OR_RETURN(const bool real, EvidenceInValidRows(run));
    r.evidence = real;
  }
  if (r.evidence) return ColdPass(run);
  return MakeResult(run.expr, run.batch.facts.length, r.values, run.batch.rows);
}

// The kernel sees only the valid rows: compacted, computed, scattered back.
Result<ArrayPtr> RunFilterScatter(const Execution& run) {
  const std::vector<int>& refs = run.expr.facts().columns;
  const int64_t length = run.batch.facts.length;
  const kernels::BitSpan mask = run.batch.rows.Span(length);
  const int64_t kept = run.batch.rows.CountValid(length);
  ROWJIT_ASSIGN_OR_RETURN(PreparedInputs p, PrepareInputs(run.batch.columns, refs, length, *run.key));
  std::vector<BufferPtr> scratch;
  PreparedInputs compact{.specs = p.specs, .repeat_last_string = p.repeat_last_string};
  ROWJIT_ASSIGN_OR_RETURN(compact.inputs, CompactInputs(p, refs, 0, mask, kept, scratch));
  ROWJIT_ASSIGN_OR_RETURN(KernelRun r, RunKernel(run, compact, kept));
  if (r.evidence) return ColdPass(run);
  const TypeId type = run.expr.type().id;
  const int w = type == TypeId::kBool ? 0 : ByteWidth(type);
  BufferPtr values;
  if (!run.targets.empty()) {  // rows the scatter skips read as zeros, as in a fresh buffer
    values = Buffer::Lend(run.targets[0].values, OutputBytes(w, length));
    if (length > 0) std::memset(values->mutable_data(), 0, static_cast<size_t>(values->size()));
  } else {
    ROWJIT_ASSIGN_OR_RETURN(values, Buffer::Allocate(OutputBytes(w, length), run.pool));
  }
  if (w == 0) {
    kernels::ScatterBits({r.values->data(), 0, kept}, mask, values->mutable_data());
  } else if (w == 16) {  // decimal128: no scatter kernel has 16-byte rows; each kept row copied
    std::vector<uint32_t> rows(static_cast<size_t>(kept + kernels::kIndexSlack));
    kernels::SetBitIndices(mask, 0, rows.data());
    for (int64_t i = 0; i < kept; ++i) {
      std::memcpy(values->mutable_data() + 16 * int64_t{rows[static_cast<size_t>(i)]}, r.values->data() + 16 * i, 16);
    }
  } else {
    kernels::Scatter(r.values->data(), mask, w, values->mutable_data());
  }
  return MakeResult(run.expr, length, std::move(values), run.batch.rows);
}

// A projection's first failing row by a scalar pass with the reference semantics: the lowest
// row where some output fails, and at it the first such output, named in the message.
Error LocateProjection(const ir::Expr& root, std::span<const ArrayPtr> columns, int64_t length) {
  std::optional<Error> first;
  Status scanned = WithStackForDepth(root.facts().depth, [&]() -> Status {
    for (int64_t r = 0; r < length && !first; ++r) {
      for (size_t k = 0; k < root.args().size() && !first; ++k) {
        auto s = ir::EvaluateRow(*root.args()[k], columns, r);
        if (!s.ok()) first = ProjectionError(std::move(s).TakeError(), k);
      }
    }
    return Status::OK();
  });
  if (!scanned.ok()) return std::move(scanned).TakeError();
  if (first) return std::move(*first);
  return MakeError(ErrorCode::kInternal, "kernel reported failure evidence but no row of {} fails", root.ToString());
}

// The projection's outputs: their buffers, and the arrays of pointers its kernel takes.
struct ProjectionOutputs {
  std::vector<int> row_bytes;
  std::vector<BufferPtr> values, validity;
  std::vector<void*> value_ptrs, valid_ptrs;
};

// Output i's buffers: the caller's memory when it lent it (bool results of a row loop excepted,
// whose bytes are packed into it afterwards), else fresh ones.
Result<ProjectionOutputs> AllocateProjection(const Execution& run, int64_t n) {
  const KernelShape& shape = run.kernel->shape();
  ProjectionOutputs o;
  for (size_t i = 0; i < run.expr.args().size(); ++i) {
    const int rb = OutputRowBytes(shape, run.expr.args()[i]->type().id);
    const OutputBuffers* target = run.targets.empty() ? nullptr : &run.targets[i];
    o.row_bytes.push_back(rb);
    if (target != nullptr && !PackedLater(*run.expr.args()[i], rb)) {
      o.values.push_back(Buffer::Lend(target->values, OutputBytes(rb, n)));
    } else {
      ROWJIT_ASSIGN_OR_RETURN(o.values.emplace_back(), Buffer::AllocateForOverwrite(OutputBytes(rb, n), run.pool));
    }
    o.value_ptrs.push_back(o.values.back()->mutable_data());
    if (!shape.writes_validity) {
      o.valid_ptrs.push_back(nullptr);
      continue;
    }
    if (target != nullptr && target->validity != nullptr) {
      o.validity.push_back(Buffer::Lend(target->validity, OutputValidityBytes(n)));
    } else {
      ROWJIT_ASSIGN_OR_RETURN(o.validity.emplace_back(), Buffer::Allocate(kernels::NumWords(n) * 8, run.pool));
    }
    o.valid_ptrs.push_back(o.validity.back()->mutable_data());
  }
  return o;
}

// The last partial word of every output through scratch rows, copied into place.
uint64_t RunProjectionTail(RowKernelFn fn, const PreparedInputs& p, const ir::Expr& root, int64_t n,
                           ProjectionOutputs& o) {
  const int64_t full = n / 64, tail = n % 64;
  const size_t k = o.values.size();
  TailInputs last(p, root.facts().columns, n);
  constexpr size_t kRowWords = 2;  // the widest row: 16 bytes (decimal128)
  std::vector<uint64_t> scratch(k * 64 * kRowWords + k, 0);  // 64 rows per output, then its validity word
  std::vector<void*> values(k), valid(k);
  for (size_t i = 0; i < k; ++i) {
    values[i] = &scratch[i * 64 * kRowWords];
    valid[i] = o.validity.empty() ? nullptr : &scratch[k * 64 * kRowWords + i];
  }
  const uint64_t evidence = fn(last.data(), values.data(), reinterpret_cast<uint64_t*>(valid.data()), 1, 0);
  for (size_t i = 0; i < k; ++i) {
    uint8_t* out = o.values[i]->mutable_data();
    if (o.row_bytes[i] == 0) {
      const uint64_t bits = scratch[i * 64 * kRowWords] & kernels::LowBits(tail);
      std::memcpy(out + full * 8, &bits, 8);
    } else {
      std::memcpy(out + full * 64 * o.row_bytes[i], values[i], static_cast<size_t>(tail * o.row_bytes[i]));
    }
    if (!o.validity.empty()) {
      reinterpret_cast<uint64_t*>(o.validity[i]->mutable_data())[full] = scratch[k * 64 * kRowWords + i] & kernels::LowBits(tail);
    }
  }
  return evidence;
}

}  // namespace

Error ProjectionError(Error e, size_t output) {
  std::string function = e.function();
  const std::optional<int64_t> row = e.row();
  Error named(e.code(), fmt::format("expression {}: {}", output, e.message()));
  return row ? std::move(named).WithRow(std::move(function), *row) : named;
}

Result<std::optional<std::vector<ArrayPtr>>> ExecuteProjection(const Execution& run,
                                                               std::span<const Validity> validity) {
  const ir::Expr& root = run.expr;
  const int64_t n = run.batch.facts.length;
  ROWJIT_ASSIGN_OR_RETURN(PreparedInputs p, PrepareInputs(run.batch.columns, root.facts().columns, n, *run.key));
  ROWJIT_ASSIGN_OR_RETURN(ProjectionOutputs o, AllocateProjection(run, n));
  const RowKernelFn fn = run.kernel->row_fn();
  const int64_t full = n / 64;
  // Like RunRows: a short batch's kernel runs every row in place.
  const int64_t tail = run.kernel->shape().short_batch ? n : 0;
  uint64_t evidence = full > 0 || tail > 0
                          ? fn(p.inputs.data(), o.value_ptrs.data(), reinterpret_cast<uint64_t*>(o.valid_ptrs.data()),
                               full, tail)
                          : 0;
  if (n % 64 != 0 && tail == 0) evidence |= RunProjectionTail(fn, p, root, n, o);
  if (evidence != 0 && !validity.empty()) return std::nullopt;  // rows behind nulls may have raised it
  if (evidence != 0) {
    run.report.cold_pass = true;
    return LocateProjection(root, run.batch.columns, n);
  }
  std::vector<ArrayPtr> out;
  for (size_t i = 0; i < o.values.size(); ++i) {
    const ir::Expr& e = *root.args()[i];
    BufferPtr values = o.values[i];
    if (PackedLater(e, o.row_bytes[i]) && !run.targets.empty()) {
      kernels::PackByteBools(values->data(), n, static_cast<uint8_t*>(run.targets[i].values));
      values = Buffer::Lend(run.targets[i].values, OutputValuesBytes(TypeId::kBool, n));
    } else if (PackedLater(e, o.row_bytes[i])) {
      ROWJIT_ASSIGN_OR_RETURN(values, PackBytes(values, n, run.pool));
    }
    Validity v = validity.empty() ? Validity::AllValid() : validity[i];
    if (!o.validity.empty()) {
      ROWJIT_ASSIGN_OR_RETURN(v, Validity::FromBitmap(o.validity[i], 0, n));
    }
    ROWJIT_ASSIGN_OR_RETURN(out.emplace_back(), MakeResult(e, n, std::move(values), std::move(v)));
  }
  return std::optional<std::vector<ArrayPtr>>(std::move(out));
}

Result<ArrayPtr> ExecuteRows(Strategy strategy, const Execution& run) {
  switch (strategy) {
    case Strategy::kEmpty: return MakeArray(run.expr.type(), {});
    case Strategy::kNullConstant: return RunNullConstant(run);
    case Strategy::kConstant: return RunConstant(run);
    case Strategy::kValidity: return RunValidity(run);
    case Strategy::kDense:
    case Strategy::kBranchSkip: return RunDense(run);
    case Strategy::kDenseRetry: return RunDenseWithRetry(run);
    case Strategy::kFilterScatter: return RunFilterScatter(run);
    case Strategy::kFold: break;
  }
  return MakeError(ErrorCode::kInternal, "strategy {} is not a row evaluation", StrategyName(strategy));
}

}  // namespace rowjit::jit::internal
