// Top-k selection (ir layer): the k rows of the largest (top_k) or smallest (bottom_k) scores of a
// numeric expression, over the rows a predicate keeps, across any number of batches and threads.
// `top_k(l2_distance(v, [...]), 10)`, `bottom_k(a * b, 5) where c > 0`.
//
// Order: SQL's (CompareTotalSql): NaN is greater than every number, -0.0 equals 0.0; between equal
// scores the earlier row (the smaller row number) comes first. Null scores (and rows the predicate
// does not keep) are never selected. So the selection is one answer, whatever the batches, their
// order or the threads that folded them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/binder.h"
#include "ir/expr.h"
#include "runtime/array.h"

namespace rowjit::ir {

inline constexpr int64_t kMaxTopK = int64_t{1} << 20;

struct TopK {
  ExprPtr score;     // bound, numeric (any integer or float type)
  ExprPtr where;     // bound bool, or null: every row
  int64_t k = 10;    // 1..kMaxTopK
  bool largest = true;
  // What one pass evaluates: the score where `where` holds, null elsewhere (if(where, score,
  // null)): one expression, so the predicate and the score run in one call and a row the
  // predicate drops is never scored (SQL's guard: its errors are not raised).
  ExprPtr selected;
  std::string ToString() const;  // "top_k(score, 10) where p"
};

// Whether `text` spells a top-k selection (starts with top_k or bottom_k, in any case).
bool IsTopKText(std::string_view text);

// `top_k(SCORE, K)` or `bottom_k(SCORE, K)`, with an optional `where P` after it (or `where` given
// apart), bound over `schema`.
Result<TopK> ParseAndBindTopK(std::string_view text, const Schema& schema, std::string_view where = {},
                              const BindOptions& options = {});

// The rows selected so far, best first.
struct TopKResult {
  ArrayPtr rows;    // i64: the row numbers (a batch's rows are numbered from its first_row)
  ArrayPtr scores;  // the score's type
};

// The best k rows of what was added: a batch's scores, another state (a thread's, a batch's),
// or bytes. Bounded: k entries, whatever the rows.
class TopKState {
 public:
  TopKState(int64_t k, bool largest, DataType score);
  explicit TopKState(const TopK& top) : TopKState(top.k, top.largest, top.score->type()) {}

  // Offers rows [0, scores.length()) of a score column (null rows skipped), numbered from
  // `first_row`.
  Status Add(const Array& scores, int64_t first_row);
  // Adds what `other` (of the same k, direction and score type) kept.
  Status Merge(const TopKState& other);
  std::string Serialize() const;
  static Result<TopKState> Deserialize(std::string_view bytes);
  Result<TopKResult> Finish() const;

  int64_t k() const { return k_; }
  bool largest() const { return largest_; }
  const DataType& score_type() const { return type_; }
  int64_t size() const { return static_cast<int64_t>(heap_.size()); }

 private:
  // A score's place in the order (unsigned order = SQL's order: floats by their bits made
  // monotone, -0.0 as 0.0, every NaN as the greatest; integers offset), its value's bits, its row.
  struct Entry {
    uint64_t key;
    uint64_t bits;
    int64_t row;
  };
  // Whether `a` goes before `b` in the selection's order.
  bool Better(const Entry& a, const Entry& b) const {
    if (a.key != b.key) return largest_ ? a.key > b.key : a.key < b.key;
    return a.row < b.row;
  }
  void Offer(const Entry& e);
  template <typename T>
  void AddValues(const T* values, const Validity& validity, int64_t n, int64_t first_row);

  int64_t k_;
  bool largest_;
  DataType type_;
  // The kept entries as a heap whose top is the worst of them (the one a better row replaces).
  std::vector<Entry> heap_;
};

// Row at a time, for the tests: every row's score through the reference evaluator, sorted.
Result<TopKResult> TopKReference(const TopK& top, std::span<const ArrayPtr> columns, int64_t length);

}  // namespace rowjit::ir
