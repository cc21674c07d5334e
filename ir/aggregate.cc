// Aggregate parsing, binding and the reference fold (ir layer).
#include "ir/aggregate.h"

#include <array>
#include <cmath>
#include <cstring>
#include <limits>

#include "ir/binder.h"
#include "ir/decimal.h"
#include "ir/parser.h"
#include "ir/reference.h"
#include "ir/temporal.h"

namespace rowjit::ir {
namespace {

struct AggName {
  std::string_view name;
  AggKind kind;
  bool keep_nan;
};
constexpr AggName kNames[] = {
    {"sum", AggKind::kSum, false},         {"min", AggKind::kMin, false},
    {"max", AggKind::kMax, false},         {"min_max", AggKind::kMinMax, false},
    {"min_nan", AggKind::kMin, true},      {"max_nan", AggKind::kMax, true},
    {"min_max_nan", AggKind::kMinMax, true}, {"count", AggKind::kCount, false},
    {"nan_count", AggKind::kNanCount, false}, {"any", AggKind::kAny, false},
    {"all", AggKind::kAll, false},
};

const AggName* FindAgg(std::string_view name) {
  for (const AggName& a : kNames) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

// Total-order key of a float's bits (as kernels/total_order.h), kept here so ir/ needs no kernel.
int64_t Key(const Scalar& s) {
  if (s.type_id() == TypeId::kF32) {
    const int32_t b = static_cast<int32_t>(static_cast<uint32_t>(s.bits()));
    return b ^ static_cast<int32_t>(static_cast<uint32_t>(b >> 31) >> 1);
  }
  const int64_t b = static_cast<int64_t>(s.bits());
  return b ^ static_cast<int64_t>(static_cast<uint64_t>(b >> 63) >> 1);
}

bool IsMinMax(AggKind k) { return k == AggKind::kMin || k == AggKind::kMax || k == AggKind::kMinMax; }

bool IsNan(const Scalar& s) {
  return s.type_id() == TypeId::kF32 ? std::isnan(s.value<float>()) : std::isnan(s.value<double>());
}

}  // namespace

bool FoldLess(const Scalar& x, const Scalar& y) {
  if (IsString(x.type_id())) return x.str() < y.str();
  if (IsFloat(x.type_id())) return Key(x) < Key(y);
  if (x.type_id() == TypeId::kI128) return x.int128() < y.int128();
  return VisitType(x.type_id(), [&]<typename T>(std::type_identity<T>) { return x.value<T>() < y.value<T>(); });
}

std::string Aggregate::name() const {
  for (const AggName& a : kNames) {
    if (a.kind == kind && a.keep_nan == keep_nan) return std::string(a.name);
  }
  return "?";
}

std::string Aggregate::ToString() const { return name() + "(" + arg->ToString() + ")"; }

uint64_t Aggregate::hash() const {
  return arg->hash() * 31 + static_cast<uint64_t>(kind) * 2 + keep_nan;
}

bool Aggregate::Equals(const Aggregate& o) const {
  return kind == o.kind && keep_nan == o.keep_nan && arg->Equals(*o.arg);
}

std::string AggregateResult::ToString(AggKind kind) const {
  auto text = [](const Scalar& s) { return s.is_null() ? std::string("null") : s.ToString(); };
  if (kind == AggKind::kMinMax) return "min " + text(value) + ", max " + text(max);
  return text(value);
}

Result<Scalar> IntervalSumResult(__int128 months, __int128 days, __int128 nanos) {
  if (months > INT32_MAX || months < INT32_MIN || days > INT32_MAX || days < INT32_MIN || nanos > INT64_MAX ||
      nanos < INT64_MIN) {
    return Error(ErrorCode::kOverflow,
                 "sum: the sum of the non-null rows does not fit interval_month_day_nano (32-bit months and days, "
                 "64-bit nanoseconds)");
  }
  return MonthDayNano(static_cast<int32_t>(months), static_cast<int32_t>(days), static_cast<int64_t>(nanos));
}

Result<Scalar> IntegerSumResult(__int128 total, DataType result) {
  if (result.logical == LogicalKind::kDecimal) {
    static constexpr __int128 kMax = (static_cast<__int128>(10'000'000'000'000'000'000ULL) * 10'000'000'000'000'000'000ULL) - 1;
    if (total > kMax || total < -kMax) {
      return Error(ErrorCode::kOverflow, fmt::format("sum: the sum of the non-null rows does not fit {}", result.WithNullable(false).ToString()));
    }
    return Scalar::Int128(total, result);
  }
  if (IsSignedInt(result.id)) {
    if (total > std::numeric_limits<int64_t>::max() || total < std::numeric_limits<int64_t>::min()) {
      return Error(ErrorCode::kOverflow, fmt::format("sum: the sum of the non-null rows does not fit {}",
                                                     result.WithNullable(false).ToString()));
    }
    return Scalar::Of<int64_t>(static_cast<int64_t>(total)).As(result.WithNullable(false));  // a duration keeps its type
  }
  if (total < 0 || total > static_cast<__int128>(std::numeric_limits<uint64_t>::max())) {
    return Error(ErrorCode::kOverflow, "sum: the sum of the non-null rows does not fit u64");
  }
  return Scalar::Of<uint64_t>(static_cast<uint64_t>(total));
}

namespace {

// Folds over logical types: sum over decimals, durations and intervals; min and max over
// decimals, dates, times, timestamps, durations and intervals; count over anything.
Status CheckLogicalFold(AggKind kind, const DataType& arg, std::string_view name) {
  const std::string type = arg.WithNullable(false).ToString();
  const bool ok = kind == AggKind::kSum ? arg.logical == LogicalKind::kDecimal || arg.logical == LogicalKind::kInterval ||
                                              arg.logical == LogicalKind::kDuration
                                        : kind == AggKind::kMin || kind == AggKind::kMax || kind == AggKind::kMinMax;
  if (!ok) return MakeError(ErrorCode::kTypeError, "{} does not take {}", name, type);
  return Status::OK();
}

}  // namespace

bool IsAggregateName(std::string_view name) { return name == "avg" || FindAgg(name) != nullptr; }

bool IsAggregateText(std::string_view text) {
  auto e = Parse(text);
  return e.ok() && (*e)->is_call() && (*e)->args().size() == 1 && FindAgg((*e)->name()) != nullptr;
}

Result<Aggregate> ParseAndBindAggregate(std::string_view text, const Schema& schema,
                                        const Limits& limits) {
  return ParseAndBindAggregate(text, schema, BindOptions{.limits = limits});
}

Result<Aggregate> ParseAndBindAggregate(std::string_view text, const Schema& schema, const BindOptions& options) {
  ROWJIT_ASSIGN_OR_RETURN(ExprPtr e, Parse(text, options.limits));
  return BindAggregate(e, text, schema, options);
}

Result<Aggregate> BindAggregate(const ExprPtr& e, std::string_view text, const Schema& schema,
                                const BindOptions& options) {
  const AggName* a = e->is_call() && e->args().size() == 1 ? FindAgg(e->name()) : nullptr;
  if (a == nullptr) {
    return MakeError(ErrorCode::kInvalidInput,
                     "'{}' is not an aggregate (sum, min, max, min_max, min_nan, max_nan, "
                     "min_max_nan, count, nan_count, any, all of one argument)",
                     text);
  }
  Aggregate agg;
  agg.kind = a->kind;
  agg.keep_nan = a->keep_nan;
  ROWJIT_ASSIGN_OR_RETURN(agg.arg, Bind(e->args()[0], schema, options));
  // A decimal128 of at most 18 digits folds as decimal64 (narrowed by row; count reads nullness).
  if (agg.kind != AggKind::kCount) agg.arg = NarrowDecimal128(agg.arg, [](const ExprPtr& call) { return call; });
  const DataType arg = agg.arg->type();
  const TypeId t = arg.id;
  auto type_error = [&](std::string_view want) {
    return MakeError(ErrorCode::kTypeError, "{}({}): {}", a->name, arg.WithNullable(false).ToString(), want);
  };
  if (arg.is_logical() && agg.kind != AggKind::kCount) {
    ROWJIT_RETURN_NOT_OK(CheckLogicalFold(agg.kind, arg, a->name));
  }
  switch (agg.kind) {
    case AggKind::kSum:
      if (arg.logical == LogicalKind::kInterval) {
        agg.result = DataType::Interval(IntervalUnit::kMonthDayNano).WithNullable(true);
        break;
      }
      if (arg.logical == LogicalKind::kDuration) {  // exact, an overflow error past i64
        agg.result = arg.WithNullable(true);
        break;
      }
      if (!IsNumeric(t) && !IsDecimal128(arg)) return type_error("expects a numeric argument");
      agg.result = DataType(IsFloat(t) ? TypeId::kF64 : IsSignedInt(t) ? TypeId::kI64 : TypeId::kU64, true);
      // Exact wide sums: 64-bit integers and decimals sum to decimal(38, scale).
      if (BitWidth(t) == 64 || arg.logical == LogicalKind::kDecimal) {
        if (!IsFloat(t)) agg.result = DataType::Decimal(38, arg.scale)->WithNullable(true);
      }
      break;
    case AggKind::kMin:
    case AggKind::kMax:
    case AggKind::kMinMax:
      if (!IsNumeric(t) && !IsDecimal128(arg) && !(IsString(t) && !agg.keep_nan) && arg.logical != LogicalKind::kInterval) {
        return type_error("expects a numeric or string argument");
      }
      if (agg.keep_nan && !IsFloat(t)) return type_error("keeps NaN: expects f32 or f64");
      agg.result = arg.WithNullable(true);
      break;
    case AggKind::kCount:
      agg.result = DataType(TypeId::kI64, false);
      break;
    case AggKind::kNanCount:
      if (!IsFloat(t)) return type_error("expects f32 or f64");
      agg.result = DataType(TypeId::kI64, false);
      break;
    case AggKind::kAny:
    case AggKind::kAll:
      if (t != TypeId::kBool) return type_error("expects a bool argument");
      agg.result = DataType(TypeId::kBool, true);
      break;
  }
  return agg;
}

namespace {

// NaNs computed by arithmetic have no fixed sign or payload: a fold over an expression reads
// them all as the canonical quiet NaN; a plain column keeps its NaNs bit for bit.
Scalar CanonicalNan(TypeId t) {
  return t == TypeId::kF32 ? Scalar::FromBits(t, 0x7fc00000u)
                           : Scalar::FromBits(t, 0x7ff8000000000000ULL);
}

void AddToSum(FoldAccumulator& fold, const Scalar& s, TypeId t, int64_t row) {
  if (t == TypeId::kI128) {  // 16-byte decimals: carries past 128 bits counted apart
    __int128 sum;
    if (__builtin_add_overflow(fold.int_sum, s.int128(), &sum)) fold.sum_carry += s.int128() < 0 ? -1 : 1;
    fold.int_sum = sum;
  } else if (IsFloat(t)) {
    fold.lanes[row % 16] +=
        t == TypeId::kF32 ? static_cast<double>(s.value<float>()) : s.value<double>();
  } else if (IsSignedInt(t)) {
    fold.int_sum += VisitType(t, [&]<typename T>(std::type_identity<T>) -> int64_t {
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        return static_cast<int64_t>(s.value<T>());
      }
      return 0;
    });
  } else {
    fold.int_sum += static_cast<__int128>(s.bits());
  }
}

// Folds one non-null interval: sums by part, min and max by length, the last of equal ones.
void FoldInterval(FoldAccumulator& fold, const Aggregate& agg, const Scalar& s) {
  const IntervalParts p = PartsOf(s);
  if (agg.kind == AggKind::kSum) {
    fold.months += p.months;
    fold.days += p.days;
    fold.nanos += p.nanos;
  } else {
    const __int128 length = IntervalLength(p);
    if (fold.count == 0 || length <= IntervalLength(PartsOf(fold.lo))) fold.lo = s;
    if (fold.count == 0 || length >= IntervalLength(PartsOf(fold.hi))) fold.hi = s;
  }
  ++fold.count;
}

}  // namespace

void FoldAccumulator::Fold(const Aggregate& agg, const Scalar& s, int64_t row) {
  FoldAccumulator& fold = *this;
  const TypeId t = agg.arg->type().id;
  if (agg.arg->type().logical == LogicalKind::kInterval && agg.kind != AggKind::kCount) return FoldInterval(fold, agg, s);
  const bool nan = IsFloat(t) && IsNan(s);
  fold.nan_count += nan;
  switch (agg.kind) {
    case AggKind::kSum: AddToSum(fold, s, t, row); break;
    case AggKind::kMin:
    case AggKind::kMax:
    case AggKind::kMinMax:
      if (nan && !agg.keep_nan) return;
      if (fold.count == 0 || FoldLess(s, fold.lo)) fold.lo = s;
      if (fold.count == 0 || FoldLess(fold.hi, s)) fold.hi = s;
      break;
    case AggKind::kAny: fold.any = fold.any || s.value<bool>(); break;
    case AggKind::kAll: fold.all = fold.all && s.value<bool>(); break;
    default: break;
  }
  ++fold.count;
}

namespace {

// The sum of at least one row: floats reduce their lanes pairwise in the fixed order of
// kernels/fold.h (which every fold reproduces bit for bit); an integer sum that does not fit
// the result type is an error, never wrapped.
Result<Scalar> FinishSum(const FoldAccumulator& fold, TypeId t, DataType result) {
  if (IsFloat(t)) {
    std::array<double, 16> lanes = fold.lanes;
    for (int h = 8; h >= 1; h /= 2) {
      for (int l = 0; l < h; ++l) lanes[l] = lanes[l] + lanes[l + h];
    }
    return std::isnan(lanes[0]) ? Scalar::FromBits(TypeId::kF64, 0x7ff8000000000000ULL)
                                : Scalar::Of<double>(lanes[0]);
  }
  if (fold.sum_carry != 0) return IntegerSumResult(fold.sum_carry < 0 ? -Pow10Wide(38) : Pow10Wide(38), result);
  return IntegerSumResult(fold.int_sum, result);
}

}  // namespace

void FoldAccumulator::Merge(const Aggregate& agg, const FoldAccumulator& o) {
  if (o.count == 0 && o.nan_count == 0) return;
  if (o.count > 0 && IsMinMax(agg.kind)) {
    if (agg.arg->type().logical == LogicalKind::kInterval) {  // the last of equal ones
      if (count == 0 || IntervalLength(PartsOf(o.lo)) <= IntervalLength(PartsOf(lo))) lo = o.lo;
      if (count == 0 || IntervalLength(PartsOf(o.hi)) >= IntervalLength(PartsOf(hi))) hi = o.hi;
    } else {
      if (count == 0 || FoldLess(o.lo, lo)) lo = o.lo;
      if (count == 0 || FoldLess(hi, o.hi)) hi = o.hi;
    }
  }
  __int128 sum;
  if (__builtin_add_overflow(int_sum, o.int_sum, &sum)) sum_carry += o.int_sum < 0 ? -1 : 1;
  int_sum = sum;
  sum_carry += o.sum_carry;
  months += o.months;
  days += o.days;
  nanos += o.nanos;
  for (size_t l = 0; l < lanes.size(); ++l) lanes[l] += o.lanes[l];
  any = any || o.any;
  all = all && o.all;
  count += o.count;
  nan_count += o.nan_count;
}

void FoldAccumulator::MergeSum(__int128 sum, int64_t rows) {
  if (rows == 0) return;
  __int128 total;
  if (__builtin_add_overflow(int_sum, sum, &total)) sum_carry += sum < 0 ? -1 : 1;
  int_sum = total;
  count += rows;
}

Result<AggregateResult> FoldAccumulator::Finish(const Aggregate& agg) const {
  const FoldAccumulator& fold = *this;
  AggregateResult out;
  out.value = Scalar::Null(agg.result.id).As(agg.result);
  out.max = out.value;
  if (agg.kind == AggKind::kCount) out.value = Scalar::Of<int64_t>(fold.count);
  if (agg.kind == AggKind::kNanCount) out.value = Scalar::Of<int64_t>(fold.nan_count);
  if (fold.count == 0) return out;
  switch (agg.kind) {
    case AggKind::kCount:
    case AggKind::kNanCount: break;
    case AggKind::kSum: {
      if (agg.arg->type().logical == LogicalKind::kInterval) {
        ROWJIT_ASSIGN_OR_RETURN(out.value, IntervalSumResult(fold.months, fold.days, fold.nanos));
        break;
      }
      ROWJIT_ASSIGN_OR_RETURN(out.value, FinishSum(fold, agg.arg->type().id, agg.result));
      break;
    }
    case AggKind::kMin: out.value = fold.lo.As(agg.result); break;
    case AggKind::kMax: out.value = fold.hi.As(agg.result); break;
    case AggKind::kMinMax:
      out.value = fold.lo.As(agg.result);
      out.max = fold.hi.As(agg.result);
      break;
    case AggKind::kAny: out.value = Scalar::Of(fold.any); break;
    case AggKind::kAll: out.value = Scalar::Of(fold.all); break;
  }
  return out;
}

Result<AggregateResult> EvaluateAggregateReference(const Aggregate& agg,
                                                   std::span<const ArrayPtr> columns,
                                                   int64_t length) {
  ROWJIT_ASSIGN_OR_RETURN(ArrayPtr values, EvaluateReference(*agg.arg, columns, length));
  const TypeId t = agg.arg->type().id;
  FoldAccumulator fold;
  for (int64_t i = 0; i < length; ++i) {
    Scalar s = values->GetScalar(i);
    if (s.is_null()) continue;
    if (IsFloat(t) && !agg.arg->is_column() && IsNan(s)) s = CanonicalNan(t);
    fold.Fold(agg, s, i);
  }
  return fold.Finish(agg);
}

}  // namespace rowjit::ir
