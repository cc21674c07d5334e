// The Engine and its executor: lifts a compiled kernel over a batch (jit layer).
//  1. a null constant under a strict-only expression: all-null result, no kernel;
//  2. every input constant: evaluate once, return a constant array;
//  3. inputs decoded once; constants read at stride 0; dictionaries read through their codes;
//  4. strict validity: AND of the inputs' validity with the static bitmap kernels;
//  5. policy per batch (dense, dense with retry, branch-and-skip, filter-and-scatter);
//  6. evidence → a retry over valid rows or a cold scalar pass naming the first failing row.
// Batches run in one kernel call, not split into blocks.
#include "jit/engine.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>

#include "jit/executor_internal.h"

#include "ir/function.h"
#include "ir/reference.h"
#include "kernels/bytebool.h"
#include "kernels/filter.h"
#include "runtime/builder.h"

namespace rowjit::jit {

using namespace internal;

// Valid-only strategies: branch-and-skip while at least this fraction of the rows survives,
// filter-and-scatter below, by the summed decode cost of the inputs. Calibrated on this project's
// benchmark (`strategy` family, two runs on Zen 3): filter-and-scatter won only at the lowest
// survival (1 % for flat and one-dictionary inputs, up to 10-25 % with two dictionaries, whose
// decode it compacts); the starting rule (always / 50 % / 85 %) chose filter-and-scatter
// where branch-and-skip measured up to 1.3x faster, and branch-and-skip at 1 %, 3x slower.
constexpr double BranchSkipFrom(int decode_cost) {
  return decode_cost <= 0 ? 0.05 : decode_cost == 1 ? 0.10 : 0.25;
}

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

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kRecycleOutputs = false;  // ASan must see every free
#else
constexpr bool kRecycleOutputs = true;
#endif

struct Engine::Impl {
  std::unique_ptr<JitCompiler> compiler;
  KernelCache cache;
  RetryPressure retry_pressure;
  std::shared_ptr<MemoryPool> outputs;  // null: the system allocator
  Impl(std::unique_ptr<JitCompiler> c, const EngineOptions& o) : compiler(std::move(c)), cache(o.cache_capacity) {
    if (kRecycleOutputs && o.retained_output_bytes > 0) {
      outputs = std::make_shared<RecyclingPool>(o.retained_output_bytes);
    }
  }
};

Engine::Engine(std::unique_ptr<JitCompiler> compiler, EngineOptions options)
    : impl_(std::make_unique<Impl>(std::move(compiler), options)) {}
Engine::~Engine() = default;

Result<std::unique_ptr<Engine>> Engine::Make(EngineOptions options) {
  ROWJIT_ASSIGN_OR_RETURN(auto compiler, JitCompiler::Make());
  return std::unique_ptr<Engine>(new Engine(std::move(compiler), options));
}

CacheStats Engine::cache_stats() const { return impl_->cache.stats(); }

Result<std::shared_ptr<const CompiledKernel>> Engine::KernelFor(const CacheKey& key) {
  return impl_->cache.GetOrCompile(key, [&] { return impl_->compiler->Compile(key.spec, key.shape, false); });
}

namespace internal {

void Walk(const ir::Expr& e, Analysis& a) {
  if (e.is_literal() && e.value().is_null()) a.has_null_literal = true;
  if (e.is_call()) {
    a.strict_only = a.strict_only && e.function()->strict();
    a.fallible = a.fallible || e.CanFail();
    a.function_cost += e.function()->decode_cost;
  }
  for (const auto& c : e.args()) Walk(*c, a);
}

Analysis Analyze(const ir::Expr& e) {
  Analysis a;
  Walk(e, a);
  a.refs = ir::ReferencedColumns(e);
  return a;
}

// Whole 64-bit words of bits starting at a bit offset: shared when byte-aligned and readable to
// the last word, copied to offset 0 otherwise.
Result<const uint64_t*> WordBits(const BufferPtr& buf, int64_t bit_offset, int64_t length,
                                 std::vector<BufferPtr>& keep) {
  const int64_t words = kernels::NumWords(length);
  if (bit_offset % 8 == 0 && buf->readable_size() >= bit_offset / 8 + words * 8) {
    return reinterpret_cast<const uint64_t*>(buf->data() + bit_offset / 8);
  }
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr copy, Buffer::Allocate(words * 8));
  kernels::BitmapCopy({buf->data(), bit_offset, length}, copy->mutable_data());
  keep.push_back(copy);
  return reinterpret_cast<const uint64_t*>(copy->data());
}

// Row by row through GetScalar: for the rare inputs the kernels do not read directly
// (dictionaries of bools or of values with nulls).
Result<ArrayPtr> DecodeToFlat(const Array& a) {
  std::vector<Scalar> rows;
  rows.reserve(static_cast<size_t>(a.length()));
  for (int64_t i = 0; i < a.length(); ++i) rows.push_back(a.GetScalar(i));
  return MakeArray(a.type(), rows);
}

bool ReadThroughCodes(const DictionaryArray& d) {
  return d.type().id != TypeId::kBool && d.values()->encoding() == Encoding::kPrimitive &&
         d.values()->NullCount() == 0;
}

// Inputs decoded once per batch: dictionaries the kernel cannot read become flat, and value
// buffers not aligned to their element width are copied (an Arrow producer may hand us any).
Result<std::vector<ArrayPtr>> Normalize(std::span<const ArrayPtr> columns, const std::vector<int>& refs) {
  std::vector<ArrayPtr> out(columns.begin(), columns.end());
  for (int c : refs) {
    const Array& a = *out[c];
    if (a.encoding() == Encoding::kDictionary &&
        !ReadThroughCodes(static_cast<const DictionaryArray&>(a))) {
      ROWJIT_ASSIGN_OR_RETURN(out[c], DecodeToFlat(a));
    } else if (a.encoding() == Encoding::kPrimitive) {
      const auto& p = static_cast<const PrimitiveArray&>(a);
      if (reinterpret_cast<uintptr_t>(p.raw_values()) % ByteWidth(p.type().id) != 0) {
        ROWJIT_ASSIGN_OR_RETURN(out[c], DecodeToFlat(a));
      }
    }
  }
  return out;
}

// Kernel inputs for one run. `use_validity`: the kernel reads validity words (else validity is
// left to the executor and does not enter the specialization key).
Result<PreparedInputs> Prepare(std::span<const ArrayPtr> columns, const std::vector<int>& refs,
                               int64_t length, bool use_validity) {
  PreparedInputs p;
  p.inputs.resize(columns.size());
  p.specs.resize(columns.size());
  for (int c : refs) {
    const Array& a = *columns[c];
    KernelInput& in = p.inputs[c];
    ir::InputSpec spec = ir::DescribeInput(a);
    switch (a.encoding()) {
      case Encoding::kPrimitive:
        in.values = static_cast<const PrimitiveArray&>(a).raw_values();
        break;
      case Encoding::kBool: {
        const auto& b = static_cast<const BoolArray&>(a);
        ROWJIT_ASSIGN_OR_RETURN(in.values, WordBits(b.bits_buffer(), b.offset(), length, p.keep));
        break;
      }
      case Encoding::kByteBool:
        in.values = static_cast<const ByteBoolArray&>(a).bytes();
        break;
      case Encoding::kConstant:
        in.scalar = static_cast<const ConstantArray&>(a).value().bits();
        break;
      case Encoding::kDictionary: {
        const auto& d = static_cast<const DictionaryArray&>(a);
        in.values = static_cast<const PrimitiveArray&>(*d.values()).raw_values();
        in.codes = d.codes()->raw_values();
        in.scalar = static_cast<uint64_t>(d.values()->length());
        break;
      }
    }
    const Validity v = ValidityOf(a);
    if (use_validity && spec.has_nulls && v.has_bitmap()) {
      ROWJIT_ASSIGN_OR_RETURN(in.valid, WordBits(v.bitmap(), v.bit_offset(), length, p.keep));
    } else if (use_validity && spec.has_nulls && v.all_null() && a.encoding() != Encoding::kConstant) {
      ROWJIT_ASSIGN_OR_RETURN(BufferPtr zeros, Buffer::Allocate(kernels::NumWords(length) * 8));
      p.keep.push_back(zeros);
      in.valid = reinterpret_cast<const uint64_t*>(zeros->data());
    }
    if (!use_validity && spec.shape != ir::InputShape::kNullConstant) spec.has_nulls = false;
    p.specs[c] = spec;
  }
  return p;
}

// Repeats bit `tail - 1` of `word` into the bits above it.
uint64_t PadWord(uint64_t word, int64_t tail) {
  const uint64_t keep = kernels::LowBits(tail);
  return (word & keep) | (((word >> (tail - 1)) & 1) ? ~keep : 0);
}

// 64 rows of `width` bytes: rows [base, base + tail) of `src`, then the last of them repeated.
const void* PadRows(const void* src, int width, int64_t base, int64_t tail, std::vector<uint8_t>& scratch) {
  scratch.resize(static_cast<size_t>(64 * width));
  const auto* from = static_cast<const uint8_t*>(src) + base * width;
  std::memcpy(scratch.data(), from, static_cast<size_t>(tail * width));
  for (int64_t r = tail; r < 64; ++r) {
    std::memcpy(scratch.data() + r * width, from + (tail - 1) * width, static_cast<size_t>(width));
  }
  return scratch.data();
}

TailInputs::TailInputs(const PreparedInputs& p, const std::vector<int>& refs, int64_t n)
    : inputs(p.inputs), scratch(p.inputs.size()), words(p.inputs.size() * 2) {
  const int64_t full = n / 64, tail = n % 64, base = full * 64;
  for (int c : refs) {
    KernelInput& in = inputs[c];
    const ir::InputSpec& spec = p.specs[c];
    switch (spec.shape) {
      case ir::InputShape::kFlat:
        if (spec.type == TypeId::kBool) {
          // Word pointers may sit at any byte (Arrow bitmaps): load them as bytes.
          words[2 * c] = PadWord(kernels::LoadU64(static_cast<const uint8_t*>(in.values) + full * 8), tail);
          in.values = &words[2 * c];
        } else {
          in.values = PadRows(in.values, ByteWidth(spec.type), base, tail, scratch[c]);
        }
        break;
      case ir::InputShape::kByteBool:
        in.values = PadRows(in.values, 1, base, tail, scratch[c]);
        break;
      case ir::InputShape::kDictionary:
        in.codes = PadRows(in.codes, ByteWidth(spec.code_type), base, tail, scratch[c]);
        break;
      default:
        break;
    }
    if (in.valid != nullptr) {
      words[2 * c + 1] = PadWord(kernels::LoadU64(reinterpret_cast<const uint8_t*>(in.valid) + full * 8), tail);
      in.valid = &words[2 * c + 1];
    }
  }
}

Result<Validity> AndOfInputs(std::span<const ArrayPtr> columns, const std::vector<int>& refs, int64_t length) {
  std::vector<Validity> vs;
  for (int c : refs) vs.push_back(ValidityOf(*columns[c]));
  return AndValidity(vs, length);
}

KernelInput OffsetInput(const KernelInput& in, const ir::InputSpec& spec, int64_t start) {
  KernelInput out = in;
  switch (spec.shape) {
    case ir::InputShape::kFlat:
      out.values = static_cast<const uint8_t*>(in.values) + start * ByteWidth(spec.type);
      break;
    case ir::InputShape::kByteBool:
      out.values = static_cast<const uint8_t*>(in.values) + start;
      break;
    case ir::InputShape::kDictionary:
      out.codes = static_cast<const uint8_t*>(in.codes) + start * ByteWidth(spec.code_type);
      break;
    default:
      break;
  }
  return out;
}

}  // namespace internal

namespace {

using internal::TailInputs;

// Runs a kernel over `n` rows: whole words in place, then the last partial word through
// scratch copies padded with its last row, so that padding neither reads out of bounds nor
// fails where the real rows do not.
// `row_bytes`: bytes a row of output takes, or 0 for bits packed in 64-bit words.
uint64_t RunRows(KernelFn fn, const PreparedInputs& p, const std::vector<int>& refs, int64_t n,
                 int row_bytes, uint8_t* out_values, uint64_t* out_valid) {
  const int64_t full = n / 64, tail = n % 64;
  uint64_t evidence = full > 0 ? fn(p.inputs.data(), out_values, out_valid, full, ~uint64_t{0}) : 0;
  if (tail == 0) return evidence;
  TailInputs last(p, refs, n);
  alignas(64) uint8_t values[64 * 8];
  uint64_t valid = 0;
  evidence |= fn(last.inputs.data(), values, out_valid ? &valid : nullptr, 1, ~uint64_t{0});
  if (row_bytes == 0) {
    uint64_t bits;
    std::memcpy(&bits, values, 8);
    bits &= kernels::LowBits(tail);
    std::memcpy(out_values + full * 8, &bits, 8);
  } else {
    std::memcpy(out_values + full * 64 * row_bytes, values, static_cast<size_t>(tail * row_bytes));
  }
  if (out_valid != nullptr) out_valid[full] = valid & kernels::LowBits(tail);
  return evidence;
}

struct KernelRun {
  BufferPtr values;
  BufferPtr validity;  // when the kernel writes it
  bool evidence = false;
  double compile_ms = 0;
};

Result<ArrayPtr> MakeResult(const ir::Expr& expr, int64_t length, BufferPtr values, Validity validity) {
  const DataType type = expr.type();
  if (!type.nullable) validity = Validity::AllValid();
  if (type.id == TypeId::kBool) return BoolArray::Make(length, std::move(values), validity, 0, type.nullable);
  return PrimitiveArray::Make(type, length, std::move(values), validity);
}

// The rows whose mask bit is set, of every referenced column.
Result<std::vector<ArrayPtr>> FilterColumns(std::span<const ArrayPtr> columns, const std::vector<int>& refs,
                                            kernels::BitSpan mask, int64_t kept) {
  std::vector<ArrayPtr> out(columns.begin(), columns.end());
  for (int c : refs) {
    const Array& a = *columns[c];
    switch (a.encoding()) {
      case Encoding::kPrimitive: {
        const auto& p = static_cast<const PrimitiveArray&>(a);
        const int w = ByteWidth(p.type().id);
        ROWJIT_ASSIGN_OR_RETURN(BufferPtr buf, Buffer::Allocate(kept * w));
        kernels::Filter(p.raw_values(), mask, w, buf->mutable_data());
        ROWJIT_ASSIGN_OR_RETURN(out[c], PrimitiveArray::Make(p.type().WithNullable(false), kept, buf, Validity::AllValid()));
        break;
      }
      case Encoding::kBool: {
        const auto& b = static_cast<const BoolArray&>(a);
        ROWJIT_ASSIGN_OR_RETURN(BufferPtr buf, AllocateBitmap(kept));
        kernels::FilterBits(b.bits(), mask, buf->mutable_data());
        ROWJIT_ASSIGN_OR_RETURN(out[c], BoolArray::Make(kept, buf, Validity::AllValid()));
        break;
      }
      case Encoding::kByteBool: {
        const auto& b = static_cast<const ByteBoolArray&>(a);
        ROWJIT_ASSIGN_OR_RETURN(BufferPtr buf, Buffer::Allocate(kept));
        kernels::Filter(b.bytes(), mask, 1, buf->mutable_data());
        ROWJIT_ASSIGN_OR_RETURN(out[c], ByteBoolArray::Make(kept, buf, Validity::AllValid()));
        break;
      }
      case Encoding::kConstant: {
        ROWJIT_ASSIGN_OR_RETURN(out[c], ConstantArray::Make(static_cast<const ConstantArray&>(a).value(), kept));
        break;
      }
      case Encoding::kDictionary: {
        const auto& d = static_cast<const DictionaryArray&>(a);
        const auto& codes = *d.codes();
        const int w = ByteWidth(codes.type().id);
        ROWJIT_ASSIGN_OR_RETURN(BufferPtr buf, Buffer::Allocate(kept * w));
        kernels::Filter(codes.raw_values(), mask, w, buf->mutable_data());
        ROWJIT_ASSIGN_OR_RETURN(auto new_codes, PrimitiveArray::Make(codes.type().WithNullable(false), kept, buf,
                                                                     Validity::AllValid()));
        ROWJIT_ASSIGN_OR_RETURN(out[c], DictionaryArray::Make(new_codes, d.values()));
        break;
      }
    }
  }
  return out;
}

}  // namespace

// The first failing row, by a scalar pass with the reference semantics.
Error internal::Locate(const ir::Expr& expr, std::span<const ArrayPtr> columns, int64_t length) {
  for (int64_t r = 0; r < length; ++r) {
    auto s = ir::EvaluateRow(expr, columns, r);
    if (!s.ok()) return std::move(s).TakeError();
  }
  return MakeError(ErrorCode::kInternal, "kernel reported failure evidence but no row of {} fails",
                   expr.ToString());
}

CacheKey PlanKernel(const ir::ExprPtr& expr, std::vector<ir::InputSpec> specs, ir::Policy policy,
                    const std::string& target) {
  const Analysis an = Analyze(*expr);
  bool any_nulls = false;
  for (int c : an.refs) {
    if (static_cast<size_t>(c) < specs.size()) any_nulls = any_nulls || specs[c].has_nulls;
  }
  KernelShape shape;
  ir::Policy tag = ir::Policy::kDense;
  if (!an.strict_only || an.has_null_literal) {
    shape = KernelShape{true, true, false};
  } else if (any_nulls && policy == ir::Policy::kBranchSkip) {
    shape = KernelShape{false, true, true};
    tag = ir::Policy::kBranchSkip;
  }
  if (!shape.writes_validity && !shape.mask_evidence) {
    for (auto& s : specs) {
      if (s.shape != ir::InputShape::kNullConstant) s.has_nulls = false;
    }
  }
  return CacheKey{ir::SpecializationKey{expr, std::move(specs), tag, target}, shape};
}

Result<ArrayPtr> Engine::Evaluate(const ir::ExprPtr& expr, const RecordBatch& batch,
                                  const EvalOptions& options, EvalReport* report) {
  return Evaluate(expr, batch.columns, batch.length, options, report);
}

Result<ArrayPtr> Engine::Evaluate(const ir::ExprPtr& expr_ptr, std::span<const ArrayPtr> columns,
                                  int64_t length, const EvalOptions& options, EvalReport* report) {
  EvalReport local;
  EvalReport& rep = report ? *report : local;
  rep = EvalReport{};
  if (expr_ptr == nullptr) return MakeError(ErrorCode::kInvalidInput, "null expression");
  const ir::Expr& expr = *expr_ptr;
  ROWJIT_RETURN_NOT_OK(ir::CheckInputs(expr, columns, length));
  const DataType type = expr.type();
  if (length == 0) {
    rep.strategy = "empty";
    return MakeArray(type, {});
  }
  const Analysis an = Analyze(expr);

  // 1 and 2: constants.
  bool all_constant = true, null_constant = false;
  for (int c : an.refs) {
    all_constant = all_constant && columns[c]->encoding() == Encoding::kConstant;
    null_constant = null_constant || (columns[c]->encoding() == Encoding::kConstant && columns[c]->IsNull(0));
  }
  if (an.strict_only && null_constant) {
    rep.strategy = "null-constant";
    ROWJIT_ASSIGN_OR_RETURN(auto c, ConstantArray::Make(Scalar::Null(type.id), length, true));
    return ArrayPtr(c);
  }
  if (all_constant) {
    rep.strategy = "constant";
    ROWJIT_ASSIGN_OR_RETURN(Scalar s, ir::EvaluateRow(expr, columns, 0));
    ROWJIT_ASSIGN_OR_RETURN(auto c, ConstantArray::Make(s, length, type.nullable));
    return ArrayPtr(c);
  }

  // 3: decode once.
  ROWJIT_ASSIGN_OR_RETURN(std::vector<ArrayPtr> cols, Normalize(columns, an.refs));
  bool any_nulls = false;
  int input_cost = an.function_cost;
  for (int c : an.refs) {
    any_nulls = any_nulls || (cols[c]->type().nullable && cols[c]->NullCount() > 0);
    if (cols[c]->encoding() == Encoding::kDictionary) input_cost += 1;
  }

  const std::shared_ptr<MemoryPool>& pool = impl_->outputs;
  // Runs the kernel for `shape` over `in` (`n` rows).
  auto run = [&](std::span<const ArrayPtr> in, int64_t n, KernelShape shape,
                 ir::Policy tag) -> Result<KernelRun> {
    const bool use_validity = shape.writes_validity || shape.mask_evidence || shape.skip_empty_words;
    ROWJIT_ASSIGN_OR_RETURN(PreparedInputs prepared, Prepare(in, an.refs, n, use_validity));
    CacheKey key{ir::SpecializationKey{expr_ptr, prepared.specs, tag, "native"}, shape};
    const CacheStats before = impl_->cache.stats();
    ROWJIT_ASSIGN_OR_RETURN(auto kernel, KernelFor(key));
    KernelRun out;
    if (impl_->cache.stats().compiles != before.compiles) out.compile_ms = kernel->compile_ms();
    // Flat kernels write bool results a byte a row, packed below; the others write bits.
    const bool bytes_out = type.id == TypeId::kBool && UsesFlatLoop(shape, prepared.specs, an.refs);
    const int row_bytes = type.id == TypeId::kBool ? (bytes_out ? 1 : 0) : ByteWidth(type.id);
    const int64_t value_bytes = row_bytes == 0 ? kernels::NumWords(n) * 8 : n * row_bytes;
    // Dense kernels write every row: no need to zero what they overwrite. Skipped words must
    // read as zeros rather than old heap contents.
    ROWJIT_ASSIGN_OR_RETURN(out.values, shape.skip_empty_words ? Buffer::Allocate(value_bytes, pool)
                                                               : Buffer::AllocateForOverwrite(value_bytes, pool));
    uint64_t* valid_words = nullptr;
    if (shape.writes_validity) {
      ROWJIT_ASSIGN_OR_RETURN(out.validity, Buffer::Allocate(kernels::NumWords(n) * 8, pool));
      valid_words = reinterpret_cast<uint64_t*>(out.validity->mutable_data());
    }
    out.evidence = RunRows(kernel->fn(), prepared, an.refs, n, row_bytes, out.values->mutable_data(),
                           valid_words) != 0;
    if (bytes_out) {
      ROWJIT_ASSIGN_OR_RETURN(BufferPtr bits, Buffer::Allocate(kernels::NumWords(n) * 8, pool));
      kernels::PackByteBools(out.values->data(), n, bits->mutable_data());
      out.values = std::move(bits);
    }
    return out;
  };

  // Null-aware expressions (and null literals): the kernel computes validity row by row, and a
  // failing call yields null where its error is not raised. Evidence is exact.
  if (!an.strict_only || an.has_null_literal) {
    rep.strategy = "validity";
    ROWJIT_ASSIGN_OR_RETURN(KernelRun r, run(cols, length, KernelShape{true, true, false}, ir::Policy::kDense));
    rep.compile_ms = r.compile_ms;
    if (r.evidence) {
      rep.cold_pass = true;
      return Locate(expr, cols, length);
    }
    ROWJIT_ASSIGN_OR_RETURN(Validity v, Validity::FromBitmap(r.validity, 0, length));
    return MakeResult(expr, length, r.values, v);
  }

  // 4: strict validity.
  ROWJIT_ASSIGN_OR_RETURN(Validity validity, internal::AndOfInputs(cols, an.refs, length));
  if (validity.all_null()) {
    rep.strategy = "null-constant";
    ROWJIT_ASSIGN_OR_RETURN(auto c, ConstantArray::Make(Scalar::Null(type.id), length, true));
    return ArrayPtr(c);
  }

  // 5: the policy for this batch.
  ir::Policy policy = options.policy;
  if (!any_nulls || validity.all_valid()) {
    policy = ir::Policy::kDense;
  } else if (policy == ir::Policy::kAuto) {
    if (!an.fallible || !impl_->retry_pressure.PreferValidOnly(expr)) {
      policy = ir::Policy::kDense;  // dense with retry for a fallible expression
    } else {
      const double surviving = static_cast<double>(validity.CountValid(length)) / static_cast<double>(length);
      policy = surviving >= BranchSkipFrom(input_cost) ? ir::Policy::kBranchSkip : ir::Policy::kFilterScatter;
    }
  }

  // Filter-and-scatter: the kernel sees only the valid rows.
  auto filter_scatter = [&]() -> Result<KernelRun> {
    const kernels::BitSpan mask = validity.Span(length);
    const int64_t kept = validity.CountValid(length);
    ROWJIT_ASSIGN_OR_RETURN(std::vector<ArrayPtr> compact, FilterColumns(cols, an.refs, mask, kept));
    ROWJIT_ASSIGN_OR_RETURN(KernelRun r, run(compact, kept, KernelShape{}, ir::Policy::kDense));
    KernelRun out;
    out.evidence = r.evidence;
    out.compile_ms = r.compile_ms;
    if (type.id == TypeId::kBool) {
      ROWJIT_ASSIGN_OR_RETURN(out.values, Buffer::Allocate(kernels::NumWords(length) * 8, pool));
      kernels::ScatterBits({r.values->data(), 0, kept}, mask, out.values->mutable_data());
    } else {
      const int w = ByteWidth(type.id);
      ROWJIT_ASSIGN_OR_RETURN(out.values, Buffer::Allocate(length * w, pool));
      kernels::Scatter(r.values->data(), mask, w, out.values->mutable_data());
    }
    return out;
  };

  KernelRun result;
  switch (policy) {
    case ir::Policy::kFilterScatter: {
      rep.strategy = "filter-scatter";
      ROWJIT_ASSIGN_OR_RETURN(result, filter_scatter());
      if (result.evidence) {
        rep.cold_pass = true;
        return Locate(expr, cols, length);
      }
      break;
    }
    case ir::Policy::kBranchSkip: {
      rep.strategy = "branch-skip";
      ROWJIT_ASSIGN_OR_RETURN(result, run(cols, length, KernelShape{false, true, true}, ir::Policy::kBranchSkip));
      if (result.evidence) {
        rep.cold_pass = true;
        return Locate(expr, cols, length);
      }
      break;
    }
    default: {  // dense and dense-retry
      rep.strategy = an.fallible ? "dense-retry" : "dense";
      ROWJIT_ASSIGN_OR_RETURN(result, run(cols, length, KernelShape{}, ir::Policy::kDense));
      if (result.evidence) {
        // Evidence may come from rows behind nulls: rerun over the valid rows only; an error
        // there is real.
        if (any_nulls) {
          rep.retried = true;
          ROWJIT_ASSIGN_OR_RETURN(KernelRun retry, filter_scatter());
          if (!retry.evidence) {
            if (options.policy == ir::Policy::kAuto) impl_->retry_pressure.Retried(expr);
            break;
          }
        }
        rep.cold_pass = true;
        return Locate(expr, cols, length);
      }
      break;
    }
  }
  rep.compile_ms = result.compile_ms;
  return MakeResult(expr, length, result.values, validity);
}

}  // namespace rowjit::jit
