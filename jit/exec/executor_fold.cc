// Reduction templates on the executor side (jit layer, exec room): run the fold kernel over the
// batch (row folds in one call without nulls; row folds with nulls and word folds over whole words,
// then the padded last word), then finish the fold from its accumulators.
#include <algorithm>
#include <cassert>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "ir/decimal.h"
#include "ir/reference.h"
#include "ir/temporal.h"
#include "jit/exec/executor_internal.h"
#include "kernels/total_order.h"
#include "runtime/builder.h"

namespace rowjit::jit::internal {
namespace {

using ir::AggKind;

// Accumulator slots start at the fold's identity.
void InitState(FoldState& s, AggKind kind, TypeId t) {
  std::memset(&s, 0, sizeof(s));
  const bool is_float = IsFloat(t);
  // count(s) and count over 16-byte storage: the slots are never read.
  const int w = IsString(t) || t == TypeId::kI128 ? 64 : BitWidth(t);
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

// A min/max slot back to a value: integers as they are, floats from their total-order key.
Scalar FromKeyOrValue(uint64_t slot, TypeId t) {
  if (t == TypeId::kF64) {
    const double x = kernels::FromTotalOrderKey(static_cast<int64_t>(slot));
    return Scalar::FromBits(t, std::bit_cast<uint64_t>(x));
  }
  if (t == TypeId::kF32) {
    const float x = kernels::FromTotalOrderKey(static_cast<int32_t>(static_cast<uint32_t>(slot)));
    return Scalar::FromBits(t, std::bit_cast<uint32_t>(x));
  }
  return Scalar::FromBits(t, slot);
}

// Float sums: the 16 lane sums added pairwise in the fixed order of kernels/fold.h.
Scalar FinishFloatSum(const FoldState& s) {
  double lanes[16];
  for (int l = 0; l < 16; ++l) std::memcpy(&lanes[l], &s.a[l], 8);
  for (int h = 8; h >= 1; h /= 2) {
    for (int l = 0; l < h; ++l) lanes[l] = lanes[l] + lanes[l + h];
  }
  return std::isnan(lanes[0]) ? Scalar::FromBits(TypeId::kF64, 0x7ff8000000000000ULL)
                              : Scalar::Of<double>(lanes[0]);
}

// Integer sums, exact: narrow values in one 64-bit sum that cannot overflow below 2^31 rows;
// 64-bit values as their sum modulo 2^64 (A) and the sum of their high 32-bit halves (B), whose
// total ExactSumOfHalves recovers. A total outside the result type is an overflow error.
Result<Scalar> FinishIntegerSum(const FoldState& s, TypeId t, DataType result) {
  __int128 total;
  if (BitWidth(t) == 64) {
    total = ExactSumOfHalves(s.a[0], s.b[0], IsSignedInt(t));
  } else {
    total = IsSignedInt(t) ? static_cast<__int128>(int64_t(s.a[0])) : static_cast<__int128>(s.a[0]);
  }
  return ir::IntegerSumResult(total, result);
}

// The fold's result from its lane-0 slots (the kernel reduced its lanes into them).
Result<ir::AggregateResult> Finish(const FoldState& s, const ir::Aggregate& agg) {
  const TypeId t = agg.arg->type().id;
  const int64_t count = static_cast<int64_t>(s.count[0]);
  const Scalar none = Scalar::Null(agg.result.id).As(agg.result);
  ir::AggregateResult r{.value = none, .max = none};
  if (agg.kind == AggKind::kCount) r.value = Scalar::Of<int64_t>(count);
  if (agg.kind == AggKind::kNanCount) r.value = Scalar::Of<int64_t>(static_cast<int64_t>(s.a[0]));
  if (count == 0 || agg.kind == AggKind::kCount || agg.kind == AggKind::kNanCount) return r;
  switch (agg.kind) {
    case AggKind::kSum:
      if (IsFloat(t)) {
        r.value = FinishFloatSum(s);
      } else {
        ROWJIT_ASSIGN_OR_RETURN(r.value, FinishIntegerSum(s, t, agg.result));
      }
      break;
    case AggKind::kMin: r.value = FromKeyOrValue(s.a[0], t).As(agg.result); break;
    case AggKind::kMax: r.value = FromKeyOrValue(s.b[0], t).As(agg.result); break;
    case AggKind::kMinMax:
      r.value = FromKeyOrValue(s.a[0], t).As(agg.result);
      r.max = FromKeyOrValue(s.b[0], t).As(agg.result);
      break;
    case AggKind::kAny:
    case AggKind::kAll: r.value = Scalar::Of<bool>(s.a[0] & 1); break;
    default: break;
  }
  return r;
}

// A flat fold kernel over the batch: one call when no input has nulls (the rows counted here);
// otherwise whole words in place, then the last partial word through padded scratch copies with
// its padding masked out: the kernel reads the inputs' validity words and counts what it folds.
uint64_t RunRowFold(const Execution& run, const PreparedInputs& p, FoldState* state) {
  const RowFoldFn fn = run.kernel->row_fold_fn();
  const std::vector<int>& refs = run.expr.facts().columns;
  const int64_t length = run.batch.facts.length;
  bool masked = false;
  for (int c : refs) masked = masked || p.specs[c].has_nulls;
  if (!masked) {
    if (!run.kernel->shape().fold_counts_rows) state->count[0] += static_cast<uint64_t>(length);
    return fn(p.inputs.data(), state, nullptr, length, 0);
  }
  const int64_t whole = length / 64 * 64, tail = length % 64;
  uint64_t evidence = whole > 0 ? fn(p.inputs.data(), state, nullptr, whole, ~uint64_t{0}) : 0;
  if (tail > 0) {
    TailInputs last(p, refs, length);
    evidence |= fn(last.data(), state, nullptr, 64, kernels::LowBits(tail));
  }
  return evidence;
}

// A word fold: whole words in place, then the last partial word through padded scratch copies
// with the padding rows masked out of the fold.
uint64_t RunWordFold(const Execution& run, const PreparedInputs& p, FoldState* state) {
  const WordFoldFn fn = run.kernel->word_fold_fn();
  const int64_t length = run.batch.facts.length;
  const int64_t full = length / 64, tail = length % 64;
  uint64_t evidence = full > 0 ? fn(p.inputs.data(), state, nullptr, full, ~uint64_t{0}) : 0;
  if (tail > 0) {
    TailInputs last(p, run.expr.facts().columns, length);
    evidence |= fn(last.data(), state, nullptr, 1, kernels::LowBits(tail));
  }
  return evidence;
}

}  // namespace

Result<ir::AggregateResult> ExecuteFold(const ir::Aggregate& agg, const Execution& run) {
  // 64-bit sums are exact below 2^32 rows a fold state (FinishIntegerSum); the engine slices
  // longer integer sums at EngineOptions::fold_slice_rows (at most 2^31).
  assert(run.batch.facts.length < (int64_t{1} << 32) && "a fold state takes fewer than 2^32 rows");
  FoldState state;
  InitState(state, agg.kind, run.expr.type().id);
  // A strict expression over an input whose every row is null folds nothing and fails nowhere.
  if (run.batch.facts.rows == BatchFacts::Rows::kAllNull) return Finish(state, agg);
  ROWJIT_ASSIGN_OR_RETURN(PreparedInputs p, PrepareInputs(run.batch.columns, run.expr.facts().columns,
                                                          run.batch.facts.length, *run.key));
  uint64_t evidence = 0;
  if (run.kernel->shape().loop == KernelLoop::kRows) {
    evidence = RunRowFold(run, p, &state);
  } else {
    evidence = RunWordFold(run, p, &state);
  }
  if (evidence != 0) {
    run.report.cold_pass = true;
    return Locate(run.expr, run.batch.columns, run.batch.facts.length);
  }
  return Finish(state, agg);
}

namespace {

using U128 = unsigned __int128;

// A total of 16-byte values: high * 2^128 + low, exact for any count of rows.
struct WideTotal {
  int64_t high = 0;
  U128 low = 0;
  void Add(U128 v, int64_t v_high) {  // v_high * 2^128 + v
    const U128 sum = low + v;
    high += v_high + (sum < low ? 1 : 0);
    low = sum;
  }
  void AddSigned(__int128 v) { Add(static_cast<U128>(v), v < 0 ? -1 : 0); }
};

// Rows [start, start + n) (n <= 2^16) of 16-byte values, their null rows masked to zero: the
// four 32-bit limbs of each summed in 64-bit lanes (the top one signed; no 128-bit addition in
// the loop, so the compiler vectorizes it), then joined exactly into `total`.
void SumBlock(const uint64_t* halves, const Validity& valid, int64_t start, int64_t n, WideTotal& total) {
  uint64_t s0 = 0, s1 = 0, s2 = 0;
  int64_t s3 = 0;
  for (int64_t i = start; i < start + n; ++i) {
    const uint64_t keep = valid.all_valid() ? ~uint64_t{0} : uint64_t{0} - (valid.IsValid(i) ? 1 : 0);
    const uint64_t lo = halves[2 * i] & keep, hi = halves[2 * i + 1] & keep;
    s0 += lo & 0xffffffff;
    s1 += lo >> 32;
    s2 += hi & 0xffffffff;
    s3 += static_cast<int64_t>(hi) >> 32;
  }
  total.Add(s0, 0);
  total.Add(static_cast<U128>(s1) << 32, 0);
  total.Add(static_cast<U128>(s2) << 64, 0);
  // s3 * 2^96 = (s3 >> 32) * 2^128 + (s3 mod 2^32) * 2^96
  total.Add(static_cast<U128>(static_cast<uint64_t>(s3) & 0xffffffff) << 96, s3 >> 32);
}

}  // namespace

namespace {

// `given` as a flat array of its type (a constant or dictionary: its rows, copied into `owner`).
Result<const PrimitiveArray*> FlatRows(const Array& given, DataType t, ArrayPtr& owner) {
  if (given.encoding() == Encoding::kPrimitive) return static_cast<const PrimitiveArray*>(&given);
  std::vector<Scalar> values;
  for (int64_t i = 0; i < given.length(); ++i) values.push_back(given.GetScalar(i));
  ROWJIT_ASSIGN_OR_RETURN(owner, MakeArray(t.WithNullable(true), values));
  return static_cast<const PrimitiveArray*>(owner.get());
}

}  // namespace

Result<ir::AggregateResult> FoldSixteenByte(const ir::Aggregate& agg, const Array& given) {
  const DataType t = agg.arg->type().WithNullable(true);
  ir::AggregateResult out{.value = Scalar::Null(agg.result.id).As(agg.result), .max = Scalar::Null(agg.result.id).As(agg.result)};
  ArrayPtr flat_owner;
  ROWJIT_ASSIGN_OR_RETURN(const PrimitiveArray* rows, FlatRows(given, t, flat_owner));
  const PrimitiveArray& flat = *rows;
  const auto* halves = reinterpret_cast<const uint64_t*>(flat.raw_values());
  const Validity& valid = flat.validity();
  const int64_t n = flat.length();
  if (valid.all_null() || valid.CountValid(n) == 0) return out;
  if (agg.kind == ir::AggKind::kSum) {
    WideTotal total;
    for (int64_t start = 0; start < n; start += int64_t{1} << 16) SumBlock(halves, valid, start, std::min<int64_t>(n - start, int64_t{1} << 16), total);
    // In 128 bits when the high word is the sign of the low one; past them, past 38 digits.
    const auto low = static_cast<__int128>(total.low);
    const bool fits = total.high == (low < 0 ? -1 : 0);
    ROWJIT_ASSIGN_OR_RETURN(out.value, ir::IntegerSumResult(fits ? low : (total.high < 0 ? -ir::Pow10Wide(38) : ir::Pow10Wide(38)), agg.result));
    return out;
  }
  std::optional<__int128> lo, hi;
  for (int64_t i = 0; i < n; ++i) {
    if (!valid.IsValid(i)) continue;
    const auto v = static_cast<__int128>((static_cast<U128>(halves[2 * i + 1]) << 64) | halves[2 * i]);
    if (!lo || v < *lo) lo = v;
    if (!hi || *hi < v) hi = v;
  }
  out.value = Scalar::Int128(agg.kind == ir::AggKind::kMax ? *hi : *lo, agg.result);
  if (agg.kind == ir::AggKind::kMinMax) out.max = Scalar::Int128(*hi, agg.result);
  return out;
}

Result<ir::AggregateResult> FoldIntervals(const ir::Aggregate& agg, const Array& given) {
  const DataType t = agg.arg->type();
  ir::AggregateResult out{.value = Scalar::Null(agg.result.id).As(agg.result), .max = Scalar::Null(agg.result.id).As(agg.result)};
  ArrayPtr flat_owner;
  ROWJIT_ASSIGN_OR_RETURN(const PrimitiveArray* rows, FlatRows(given, t, flat_owner));
  const Validity& valid = rows->validity();
  const int64_t n = rows->length();
  if (valid.all_null() || valid.CountValid(n) == 0) return out;
  // Arrow's layouts: months an i32; day_time days (low) and milliseconds (high) in an i64;
  // month_day_nano months and days in the low 8 bytes, nanoseconds in the high.
  const auto unit = static_cast<IntervalUnit>(t.unit);
  const auto* words = reinterpret_cast<const uint64_t*>(rows->raw_values());
  const auto* months32 = reinterpret_cast<const int32_t*>(rows->raw_values());
  auto parts = [&](int64_t i) -> ir::IntervalParts {
    switch (unit) {
      case IntervalUnit::kMonths: return {months32[i], 0, 0};
      case IntervalUnit::kDayTime:
        return {0, static_cast<int32_t>(words[i]), int64_t{static_cast<int32_t>(words[i] >> 32)} * 1'000'000};
      case IntervalUnit::kMonthDayNano: break;
    }
    return {static_cast<int32_t>(words[2 * i]), static_cast<int32_t>(words[2 * i] >> 32), static_cast<int64_t>(words[2 * i + 1])};
  };
  if (agg.kind == ir::AggKind::kSum) {  // exact part totals (2^64 rows of 64-bit parts fit 128 bits)
    __int128 months = 0, days = 0, nanos = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (!valid.IsValid(i)) continue;
      const ir::IntervalParts p = parts(i);
      months += p.months, days += p.days, nanos += p.nanos;
    }
    ROWJIT_ASSIGN_OR_RETURN(out.value, ir::IntervalSumResult(months, days, nanos));
    return out;
  }
  // PostgreSQL's order; of equal lengths the last row, as interval_smaller and interval_larger keep.
  int64_t lo = -1, hi = -1;
  __int128 lo_length = 0, hi_length = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!valid.IsValid(i)) continue;
    const __int128 length = ir::IntervalLength(parts(i));
    if (lo < 0 || length <= lo_length) lo = i, lo_length = length;
    if (hi < 0 || length >= hi_length) hi = i, hi_length = length;
  }
  out.value = rows->GetScalar(agg.kind == ir::AggKind::kMax ? hi : lo).As(agg.result);
  if (agg.kind == ir::AggKind::kMinMax) out.max = rows->GetScalar(hi).As(agg.result);
  return out;
}

}  // namespace rowjit::jit::internal
