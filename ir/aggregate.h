// Aggregates: a fold over the non-null rows of a bound expression — sum, min, max, min_max,
// count, nan_count, any, all — and their reference evaluation (ir layer).
//   sum(a * b)      i64 for signed integers of up to 32 bits, u64 for unsigned ones, f64 for
//                   floats; decimal(38,0) for i64 and u64 (exact wide sums) and decimal(38,S) for
//                   a decimal of scale S; exact or an overflow error, never wrapped; float sums in
//                   the fixed order of kernels/fold.h
//   sum(interval)   part by part, interval_month_day_nano; an overflow error when a part's
//                   total does not fit its storage
//   min(x) max(x) min_max(x)            NaN rows skipped; strings in bytewise order; intervals
//                   in PostgreSQL's order (ir/temporal.h IntervalLength), the last of equal ones
//                   (PostgreSQL's interval_smaller/interval_larger)
//   min_nan(x) max_nan(x) min_max_nan(x) NaN kept in the IEEE totalOrder reduction
//   count(x)        non-null rows (i64); nan_count(x): non-null NaN rows (i64, float x)
//   any(b) all(b)   over the non-null rows of a bool
// With no row to fold, count and nan_count are 0 and every other fold is null.
#pragma once

#include <array>
#include <span>
#include <string>

#include "ir/binder.h"
#include "ir/expr.h"
#include "ir/limits.h"
#include "runtime/array.h"

namespace rowjit::ir {

enum class AggKind : uint8_t { kSum, kMin, kMax, kMinMax, kCount, kNanCount, kAny, kAll };

struct Aggregate {
  AggKind kind = AggKind::kSum;
  bool keep_nan = false;  // min/max/min_max: totalOrder with NaN (the *_nan names)
  ExprPtr arg;            // bound
  DataType result;        // of min/max each; min_max gives two of it

  std::string name() const;
  std::string ToString() const;  // "sum((a * b))" style canonical text
  uint64_t hash() const;
  bool Equals(const Aggregate& o) const;
};

// The result: `value` (min for min_max), and `max` for min_max.
struct AggregateResult {
  Scalar value;
  Scalar max;
  std::string ToString(AggKind kind) const;
  bool operator==(const AggregateResult&) const = default;
};

// What a fold has seen: every aggregate kind's accumulators, so one row loop serves them all.
// The reference folds rows into one; grouped aggregates keep one per group and aggregate, and
// partial results of batches, blocks or threads merge into one.
struct FoldAccumulator {
  int64_t count = 0;  // non-null rows folded (NaNs that min/max skip are not)
  int64_t nan_count = 0;
  __int128 int_sum = 0;   // wide enough that no i64/u64 sum overflows before the final check
  int64_t sum_carry = 0;  // decimal128 sums: the total is sum_carry * 2^128 + int_sum
  __int128 months = 0, days = 0, nanos = 0;  // interval sums, part by part
  std::array<double, 16> lanes = {};  // float sums: row i adds to lane i % 16 (kernels/fold.h)
  bool any = false, all = true;
  Scalar lo, hi;  // min and max so far (valid when count > 0)

  // Folds one non-null row (`row`: its position in the fold, which picks a float sum's lane).
  void Fold(const Aggregate& agg, const Scalar& value, int64_t row);
  // Adds what `other` folded, as if its rows had followed these (float sums lane by lane).
  void Merge(const Aggregate& agg, const FoldAccumulator& other);
  // Merge of a fold of `rows` integer or decimal rows whose exact sum is `sum` (a count: sum 0),
  // without building its accumulator.
  void MergeSum(__int128 sum, int64_t rows);
  // The result: counts are never null, every other fold of no rows is.
  Result<AggregateResult> Finish(const Aggregate& agg) const;
};

// Ordering of values of one type, as min and max fold them: integers by value, floats by the
// IEEE totalOrder, strings bytewise, 16-byte values by their signed value.
bool FoldLess(const Scalar& x, const Scalar& y);

// An exact integer sum as `result` (i64, u64 or decimal(38,S)), or an overflow error when it does
// not fit: shared by the reference and the kernels' executor.
Result<Scalar> IntegerSumResult(__int128 total, DataType result);

// The sum of intervals from its parts' exact totals: an interval_month_day_nano, or an overflow
// error when a part does not fit its storage (months and days 32-bit, nanoseconds 64-bit).
Result<Scalar> IntervalSumResult(__int128 months, __int128 days, __int128 nanos);

// Whether `text` is an aggregate call (sum(x), min(x) with one argument, ...).
bool IsAggregateText(std::string_view text);
// Whether `name` names an aggregate (sum, count, min_max, ...; avg, which queries take).
bool IsAggregateName(std::string_view name);

// Parses and binds "sum(a * b)" against `schema` (its argument as ir::Bind binds, `options`
// deciding implicit casts and limits).
Result<Aggregate> ParseAndBindAggregate(std::string_view text, const Schema& schema, const BindOptions& options);
Result<Aggregate> ParseAndBindAggregate(std::string_view text, const Schema& schema,
                                        const Limits& limits = {});

// Binds a parsed aggregate call `e` (parsed from `text`, which errors quote).
Result<Aggregate> BindAggregate(const ExprPtr& e, std::string_view text, const Schema& schema,
                                const BindOptions& options);

// Row at a time: evaluates the argument with the reference evaluator (its errors are the
// aggregate's), then folds the non-null rows.
Result<AggregateResult> EvaluateAggregateReference(const Aggregate& agg,
                                                   std::span<const ArrayPtr> columns,
                                                   int64_t length);

}  // namespace rowjit::ir
