// Expressions: column references, literals and calls of row functions; immutable, hashable,
// comparable, printable (ir layer). What to compute, never how.
#pragma once

#include <cstdint>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "runtime/types.h"

namespace rowjit::ir {

struct Function;
struct ExprFacts;
class Expr;
using ExprPtr = std::shared_ptr<const Expr>;
// Folds a bound call of literals to a literal (the binder's; rewrites that build calls use it).
using FoldFn = ExprPtr (*)(const ExprPtr& call);

enum class ExprKind : uint8_t { kColumn, kLiteral, kCall };

// One immutable node. Parsed trees are unbound (literals may lack a type, calls name their
// function); Bind() returns a bound tree in which every node has a type, columns have an index
// and calls point at their catalog descriptor.
class Expr {
 public:
  // --- unbound nodes, as parsed; `span` is the text a node was parsed from (none: length 0),
  // what the binder's errors point at. It is not part of the node's value: hashing, equality
  // and the canonical text ignore it, so kernels and caches do not depend on spelling.
  static ExprPtr Column(std::string name, SourceSpan span = {});
  // `text` as written ("42", "-7", "1.5", "true", "null", "nan", "-inf"); `suffix` from "42:u8".
  static ExprPtr Literal(std::string text, std::optional<TypeId> suffix = std::nullopt, SourceSpan span = {});
  // `type_arg` is the target of cast(x, T) and its variants.
  static ExprPtr Call(std::string function, std::vector<ExprPtr> args,
                      std::optional<TypeId> type_arg = std::nullopt, SourceSpan span = {});

  // --- bound nodes, made by Bind()
  static ExprPtr BoundColumn(std::string name, int index, DataType type);
  static ExprPtr BoundLiteral(Scalar value);
  static ExprPtr BoundCall(const Function* function, std::vector<ExprPtr> args,
                           std::optional<TypeId> type_arg, DataType type);

  ExprKind kind() const { return kind_; }
  bool is_column() const { return kind_ == ExprKind::kColumn; }
  bool is_literal() const { return kind_ == ExprKind::kLiteral; }
  bool is_call() const { return kind_ == ExprKind::kCall; }
  bool bound() const { return bound_; }
  // Where the node was parsed from (unbound nodes of a parsed text; length 0 otherwise).
  const SourceSpan& span() const { return span_; }

  // Column name, or function name for calls.
  const std::string& name() const { return name_; }
  const std::vector<ExprPtr>& args() const { return args_; }
  const std::optional<TypeId>& type_arg() const { return type_arg_; }
  // Unbound literals.
  const std::string& literal_text() const { return literal_text_; }
  const std::optional<TypeId>& literal_suffix() const { return type_arg_; }
  // Bound nodes.
  DataType type() const { return type_; }
  int column_index() const { return column_index_; }
  const Function* function() const { return function_; }
  const Scalar& value() const { return value_; }
  // Whether this bound call may fail on non-null input: a fallible function at argument types
  // where it really can (checked integer arithmetic, a cast that narrows); float arithmetic and
  // widening casts cannot. What nullable typing and the executor's policies go by.
  bool CanFail() const;
  // The analysis of this bound expression (ir/analysis.h), computed on first use and kept.
  const ExprFacts& facts() const;

  ~Expr();
  Expr(const Expr&) = delete;
  Expr& operator=(const Expr&) = delete;

  uint64_t hash() const { return hash_; }
  bool Equals(const Expr& other) const;
  // Canonical text: parse(ToString()) gives an equal expression. Nested infix operators are
  // parenthesised; bound literals carry their type suffix ("42:i32").
  std::string ToString() const;

 private:
  Expr() = default;
  void ComputeHash();

  ExprKind kind_ = ExprKind::kColumn;
  bool bound_ = false;
  std::string name_;
  std::vector<ExprPtr> args_;
  std::optional<TypeId> type_arg_;
  std::string literal_text_;
  DataType type_;
  int column_index_ = -1;
  const Function* function_ = nullptr;
  Scalar value_;
  uint64_t hash_ = 0;
  SourceSpan span_;
  mutable std::once_flag facts_once_;
  mutable std::unique_ptr<const ExprFacts> facts_;
  // facts_ once analyzed: the per-call path reads it without call_once's cost.
  mutable std::atomic<const ExprFacts*> facts_ready_{nullptr};
};

struct ExprEq {
  bool operator()(const ExprPtr& a, const ExprPtr& b) const { return a->Equals(*b); }
};
struct ExprHash {
  size_t operator()(const ExprPtr& e) const { return e->hash(); }
};

// Every column index a bound expression reads, ascending, each once (its facts' columns).
const std::vector<int>& ReferencedColumns(const Expr& e);

}  // namespace rowjit::ir
