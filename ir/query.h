// Aggregate queries (ir layer): several aggregates folded in one pass, optionally per group and
// under a predicate, and their partial states (fold batches, merge, serialize, finish).
//
//   sum(x), avg(y), count(*), max(z) filter (where z > 0) group by g, h where p
//
// - Aggregates: every ir::Aggregate name (sum, min, max, count, nan_count, any, all, min_nan,
//   max_nan; min_max is two aggregates here: write min(x), max(x)), plus avg(x) (f64: the exact
//   sum divided by the count; a decimal's sum scaled first) and count(*) (rows, nulls included).
// - FILTER (WHERE p) after an aggregate folds only the rows where p is true.
// - GROUP BY names columns (any type; nulls form one group; -0.0 and 0.0, and every NaN, are one
//   group). One result row per group that has a row passing WHERE, in ascending key order (the
//   first key first; nulls last). Without GROUP BY: one row, even over no rows (SQL).
// - WHERE p drops the rows where p is not true before any aggregate sees them; an aggregate's
//   argument is not evaluated (and cannot fail) on a dropped row.
// Results per group follow the single aggregate's rules (ir/aggregate.h): sum of no rows null,
// count 0, exact integer and decimal sums or an overflow error, float sums in the lane order of
// kernels/fold.h with row i of the batch (of the selection, under one) in lane i % 16.
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ir/aggregate.h"

namespace rowjit::ir {

struct QueryAggregate {
  Aggregate fold;       // count(*): count of the literal true; avg: the sum
  bool avg = false;     // finished as sum / count, f64
  bool count_star = false;
  ExprPtr filter;       // FILTER (WHERE ...): bound bool, or null
  ExprPtr arg;          // the argument alone, bound (null for count(*)); fold.arg guards it
  std::string text;     // as written: the result column's name
  DataType result;      // the result column's type
};

struct Query {
  std::vector<QueryAggregate> aggregates;
  std::vector<ExprPtr> keys;  // GROUP BY: bound columns
  ExprPtr where;              // bound bool, or null
  std::string ToString() const;  // canonical text, parsed back to an equal query
  uint64_t hash() const;
};

// "agg, agg ... [group by col, ...] [where pred]" (keywords in any case, GROUP BY and WHERE in
// either order) bound against `schema`. Errors carry the span of the text they are about.
Result<Query> ParseAndBindQuery(std::string_view text, const Schema& schema, const BindOptions& options = {});

// Whether `text` needs the query form: more than one aggregate, or GROUP BY, WHERE, FILTER,
// avg or count(*). A single plain aggregate is not (ir/aggregate.h handles it).
bool IsQueryText(std::string_view text);

// A query's answer: the key columns (one per GROUP BY column), then one column per aggregate;
// one row per group.
struct QueryResult {
  std::vector<std::string> names;
  std::vector<ArrayPtr> columns;
  int64_t groups = 0;
  std::string ToString() const;  // a small table: a header of names, then " | "-separated rows
};

// What a query has folded so far: per group, its key values and one accumulator per aggregate.
// States of the same query merge (threads, batches, machines) and serialize to bytes.
// Not thread-safe: one state per thread, merged after.
class QueryState {
 public:
  explicit QueryState(std::shared_ptr<const Query> query);
  const Query& query() const { return *query_; }
  const std::shared_ptr<const Query>& shared_query() const { return query_; }

  // The accumulators of the group with these key values (made on first use). `key` holds one
  // value per GROUP BY column, of its type (null scalars for nulls); floats are normalized.
  std::span<FoldAccumulator> Group(std::vector<Scalar> key);
  int64_t groups() const { return static_cast<int64_t>(groups_.size()); }

  // Adds what `other` (a state of an equal query) folded.
  Status Merge(const QueryState& other);
  // Adds a batch folded into a state of its own (taken over whole when this one is empty).
  Status AddBatch(QueryState&& batch);
  // Bytes that Deserialize turns back into an equal state (for an equal query).
  std::string Serialize() const;
  static Result<QueryState> Deserialize(std::shared_ptr<const Query> query, std::string_view bytes);
  // The result columns; an aggregate's error (an overflowing sum) is the result's.
  Result<QueryResult> Finish() const;

 private:
  struct KeyLess {
    bool operator()(const std::vector<Scalar>& a, const std::vector<Scalar>& b) const;
  };
  std::shared_ptr<const Query> query_;
  std::map<std::vector<Scalar>, std::vector<FoldAccumulator>, KeyLess> groups_;
};

// A key value as groups compare it: -0.0 as 0.0, every NaN as the canonical quiet NaN.
Scalar NormalizeKey(Scalar key);

// Row at a time: the reference for every engine path. Folds `columns` (length rows) into a
// state of their own and merges it into `state` (a batch's float lanes add to the state's lane
// by lane, as Merge does); on an error, naming its row, `state` is left as it was.
Status FoldQueryReference(QueryState& state, std::span<const ArrayPtr> columns, int64_t length);
Result<QueryResult> EvaluateQueryReference(const Query& query, std::span<const ArrayPtr> columns, int64_t length);

}  // namespace rowjit::ir
