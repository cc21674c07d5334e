// Reduction templates on the executor side: run the fold kernel over whole words and the padded
// last word, then combine its lane accumulators in a fixed order (jit layer).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "ir/reference.h"
#include "jit/engine.h"
#include "jit/executor_internal.h"
#include "kernels/bytebool.h"
#include "runtime/builder.h"

namespace rowjit::jit {

using ir::AggKind;

namespace {

// Accumulator slots start at the fold's identity.
void InitState(FoldState& s, AggKind kind, TypeId t) {
  std::memset(&s, 0, sizeof(s));
  const bool is_float = IsFloat(t);
  const int w = BitWidth(t);
  const bool signed_order = is_float || IsSignedInt(t);
  const uint64_t smax = w == 64 ? uint64_t(INT64_MAX) : (uint64_t{1} << (w - 1)) - 1;
  const uint64_t smin = ~smax;  // sign-extended
  const uint64_t umax = w == 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1;
  for (int l = 0; l < kFoldLanes; ++l) {
    if (kind == AggKind::kMin || kind == AggKind::kMinMax) s.a[l] = signed_order ? smax : umax;
    if (kind == AggKind::kMax || kind == AggKind::kMinMax) s.b[l] = signed_order ? smin : 0;
    if (kind == AggKind::kAll) s.a[l] = 1;
  }
}

Scalar FromKeyOrValue(uint64_t slot, TypeId t) {
  if (IsFloat(t)) {
    const int w = BitWidth(t);
    const uint64_t key = w == 32 ? (slot & 0xffffffffULL) : slot;
    const int64_t k = w == 32 ? int64_t(int32_t(uint32_t(key))) : int64_t(key);
    const int64_t bits = k ^ int64_t(uint64_t(k >> 63) >> 1);
    return Scalar::FromBits(t, w == 32 ? uint64_t(uint32_t(int32_t(k) ^ int32_t(uint32_t(int32_t(k) >> 31) >> 1)))
                                        : uint64_t(bits));
  }
  return Scalar::FromBits(t, slot);
}

Result<ir::AggregateResult> Finish(const FoldState& s, const ir::Aggregate& agg) {
  const TypeId t = agg.arg->type().id;
  const bool is_float = IsFloat(t);
  const int64_t count = static_cast<int64_t>(s.count[0]);
  ir::AggregateResult r;
  r.value = Scalar::Null(agg.result.id);
  r.max = Scalar::Null(agg.result.id);
  switch (agg.kind) {
    case AggKind::kCount:
      r.value = Scalar::Of<int64_t>(count);
      return r;
    case AggKind::kNanCount:
      r.value = Scalar::Of<int64_t>(static_cast<int64_t>(s.a[0]));
      return r;
    default:
      break;
  }
  if (count == 0) return r;
  switch (agg.kind) {
    case AggKind::kSum:
      if (is_float) {
        double lanes[16];
        for (int l = 0; l < 16; ++l) std::memcpy(&lanes[l], &s.a[l], 8);
        for (int h = 8; h >= 1; h /= 2) {
          for (int l = 0; l < h; ++l) lanes[l] = lanes[l] + lanes[l + h];
        }
        r.value = std::isnan(lanes[0]) ? Scalar::FromBits(TypeId::kF64, 0x7ff8000000000000ULL)
                                       : Scalar::Of<double>(lanes[0]);
      } else {
        // Narrow values: one 64-bit sum that cannot overflow below 2^31 rows. 64-bit values:
        // the sums of their low and high 32-bit halves, combined exactly here.
        __int128 total;
        if (BitWidth(t) == 64) {
          const __int128 high = IsSignedInt(t) ? static_cast<__int128>(int64_t(s.b[0]))
                                               : static_cast<__int128>(s.b[0]);
          total = static_cast<__int128>(s.a[0]) + high * (static_cast<__int128>(1) << 32);
        } else {
          total = IsSignedInt(t) ? static_cast<__int128>(int64_t(s.a[0])) : static_cast<__int128>(s.a[0]);
        }
        if (IsSignedInt(t)) {
          if (total > INT64_MAX || total < INT64_MIN) {
            return Error(ErrorCode::kOverflow, "sum: the sum of the non-null rows does not fit i64");
          }
          r.value = Scalar::Of<int64_t>(static_cast<int64_t>(total));
        } else {
          if (total < 0 || total > static_cast<__int128>(UINT64_MAX)) {
            return Error(ErrorCode::kOverflow, "sum: the sum of the non-null rows does not fit u64");
          }
          r.value = Scalar::Of<uint64_t>(static_cast<uint64_t>(total));
        }
      }
      return r;
    case AggKind::kMin:
    case AggKind::kMax:
    case AggKind::kMinMax: {
      const uint64_t lo = s.a[0], hi = s.b[0];
      if (agg.kind == AggKind::kMax) {
        r.value = FromKeyOrValue(hi, t);
      } else {
        r.value = FromKeyOrValue(lo, t);
        if (agg.kind == AggKind::kMinMax) r.max = FromKeyOrValue(hi, t);
      }
      return r;
    }
    case AggKind::kAny:
    case AggKind::kAll: {
      r.value = Scalar::Of<bool>(s.a[0] & 1);
      return r;
    }
    default:
      return r;
  }
}

// A flat fold kernel over the batch: one call when no input has nulls; otherwise blocks of
// kFoldBlock rows, each with the AND of the inputs' validity unpacked to a byte a row (in L1),
// blocks with no row to fold skipped.
constexpr int64_t kFoldBlock = 4096;

Result<uint64_t> RunFlatFold(const CompiledKernel& kernel, bool kernel_counts,
                             const internal::PreparedInputs& p, std::span<const ArrayPtr> cols,
                             const std::vector<int>& refs, int64_t length, FoldState* state) {
  bool masked = false;
  for (int c : refs) masked = masked || p.specs[c].has_nulls;
  if (!masked) {
    if (!kernel_counts) state->count[0] += static_cast<uint64_t>(length);
    return kernel.fn()(p.inputs.data(), state, nullptr, length, 0);
  }
  ROWJIT_ASSIGN_OR_RETURN(Validity rows, internal::AndOfInputs(cols, refs, length));
  if (rows.all_null()) return uint64_t{0};
  alignas(64) uint8_t mask[kFoldBlock];
  std::vector<KernelInput> block = p.inputs;
  uint64_t evidence = 0;
  for (int64_t start = 0; start < length; start += kFoldBlock) {
    const int64_t n = std::min(kFoldBlock, length - start);
    int64_t kept = n;
    if (rows.all_valid()) {
      std::memset(mask, 0xff, static_cast<size_t>(n));
    } else {
      kept = kernels::UnpackBits(rows.Slice(start).Span(n), mask);
    }
    if (kept == 0) continue;
    if (!kernel_counts) state->count[0] += static_cast<uint64_t>(kept);
    for (int c : refs) block[c] = internal::OffsetInput(p.inputs[c], p.specs[c], start);
    evidence |= kernel.fn()(block.data(), state, reinterpret_cast<uint64_t*>(mask), n, 0);
  }
  return evidence;
}

}  // namespace

CacheKey PlanFold(const ir::Aggregate& agg, std::vector<ir::InputSpec> specs, const std::string& target) {
  const KernelShape shape{true, true, false, static_cast<int8_t>(agg.kind), agg.keep_nan};
  return CacheKey{ir::SpecializationKey{agg.arg, std::move(specs), ir::Policy::kDense, target}, shape};
}

Result<ir::AggregateResult> Engine::Aggregate(const ir::Aggregate& agg,
                                              std::span<const ArrayPtr> columns, int64_t length,
                                              EvalReport* report) {
  EvalReport local;
  EvalReport& rep = report ? *report : local;
  rep = EvalReport{};
  rep.strategy = "fold";
  if (agg.arg == nullptr) return MakeError(ErrorCode::kInvalidInput, "aggregate without argument");
  const ir::Expr& expr = *agg.arg;
  ROWJIT_RETURN_NOT_OK(ir::CheckInputs(expr, columns, length));
  const internal::Analysis an = internal::Analyze(expr);
  ROWJIT_ASSIGN_OR_RETURN(std::vector<ArrayPtr> cols, internal::Normalize(columns, an.refs));
  // Flat folds read no validity words (the executor hands them a byte mask): prepare without
  // them, keeping which inputs have nulls in the key.
  std::vector<ir::InputSpec> described(cols.size());
  for (int c : an.refs) described[c] = ir::DescribeInput(*cols[c]);
  // As BuildFold decides: strict means no null-aware function and no null literal.
  const bool strict = an.strict_only && !an.has_null_literal;
  const bool flat = UsesFlatFold(PlanFold(agg, {}).shape, strict, expr.type().id, described, an.refs);
  ROWJIT_ASSIGN_OR_RETURN(internal::PreparedInputs p, internal::Prepare(cols, an.refs, length, !flat));
  if (flat) {
    for (int c : an.refs) p.specs[c].has_nulls = described[c].has_nulls;
  }
  const CacheKey key = PlanFold(agg, p.specs);
  const KernelShape& shape = key.shape;
  const CacheStats before = cache_stats();
  ROWJIT_ASSIGN_OR_RETURN(auto kernel, KernelFor(key));
  if (cache_stats().compiles != before.compiles) rep.compile_ms = kernel->compile_ms();

  FoldState state;
  InitState(state, agg.kind, expr.type().id);
  uint64_t evidence = 0;
  if (flat) {
    ROWJIT_ASSIGN_OR_RETURN(evidence, RunFlatFold(*kernel, FlatFoldCountsRows(shape, expr.type().id), p,
                                                  cols, an.refs, length, &state));
  } else {
    const int64_t full = length / 64, tail = length % 64;
    if (full > 0) evidence = kernel->fn()(p.inputs.data(), &state, nullptr, full, ~uint64_t{0});
    if (tail > 0) {
      internal::TailInputs last(p, an.refs, length);
      evidence |= kernel->fn()(last.inputs.data(), &state, nullptr, 1, kernels::LowBits(tail));
    }
  }
  if (evidence != 0) {
    rep.cold_pass = true;
    return internal::Locate(expr, cols, length);
  }
  return Finish(state, agg);
}

}  // namespace rowjit::jit
