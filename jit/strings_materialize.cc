// String-valued calls outside kernels (jit layer): kernels read strings and compute bools and
// numbers; what returns a string (lower, substr, concat, ...) is computed by the reference
// semantics into a fresh string array, sized exactly before it is written, and read back as a
// column by the kernel of the rest (jit/executor_internal.h).
#include <unordered_map>

#include "ir/aggregate.h"
#include "ir/function.h"
#include "ir/reference.h"
#include "jit/executor_internal.h"
#include "runtime/deep_stack.h"
#include "runtime/string_array.h"

namespace rowjit::jit::internal {

namespace {

// A call computing a new string: a string function, or a cast of a number to text. (A cast
// between utf8 and binary keeps the bytes: kernels read it in place.)
bool IsProducer(const ir::Expr& e) {
  if (!e.is_call() || !IsString(e.type().id) || e.function() == nullptr) return false;
  if (e.function()->family == ir::Family::kCast) return !IsString(e.args()[0]->type().id);
  return e.function()->family == ir::Family::kString;
}

class Materializer {
 public:
  Materializer(std::span<const ArrayPtr> columns, int64_t length)
      : columns_(columns.begin(), columns.end()), length_(length) {}

  bool HasProducer(const ir::Expr& e) {
    if (auto it = has_.find(&e); it != has_.end()) return it->second;
    bool found = IsProducer(e);
    for (const ir::ExprPtr& a : e.args()) found = found || HasProducer(*a);
    has_[&e] = found;
    return found;
  }

  // `e` with its string-valued calls that hold a producer (and `e` itself when `whole`) read
  // from new columns.
  Result<ir::ExprPtr> Rewrite(const ir::ExprPtr& e, bool whole) {
    if (!e->is_call() || !HasProducer(*e)) {
      if (!(whole && e->is_call() && IsString(e->type().id))) return e;
    }
    if (auto it = done_.find(e.get()); it != done_.end()) return it->second;
    ir::ExprPtr out;
    if (IsString(e->type().id)) {
      ROWJIT_ASSIGN_OR_RETURN(out, Column(e, whole));
    } else {
      std::vector<ir::ExprPtr> args;
      for (const ir::ExprPtr& a : e->args()) {
        ROWJIT_ASSIGN_OR_RETURN(ir::ExprPtr r, Rewrite(a, false));
        args.push_back(std::move(r));
      }
      out = ir::Expr::BoundCall(e->function(), std::move(args), e->type_arg(), e->type());
    }
    done_[e.get()] = out;
    return out;
  }

  std::vector<ArrayPtr>& columns() { return columns_; }

 private:
  // The rows of string-valued `e`, as a new column. A call that can fail is refused below the
  // root: computed on its own it would raise errors its guards (if, coalesce, and/or, nulls)
  // hide. (None of the producers can fail; an `if` over them that holds a failing call can.)
  Result<ir::ExprPtr> Column(const ir::ExprPtr& e, bool whole) {
    if (e->facts().can_fail && !whole) {
      return MakeError(ErrorCode::kUnsupported,
                       "{}: a string-valued expression that can fail is not computed yet", e->ToString());
    }
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr rows, ir::EvaluateReference(*e, columns_, length_));
    const int index = static_cast<int>(columns_.size());
    columns_.push_back(std::move(rows));
    return ir::Expr::BoundColumn(fmt::format("$string{}", index), index, e->type());
  }

  std::vector<ArrayPtr> columns_;
  const int64_t length_;
  std::unordered_map<const ir::Expr*, bool> has_;
  std::unordered_map<const ir::Expr*, ir::ExprPtr> done_;
};

}  // namespace

bool NeedsStringColumns(const ir::Expr& expr) {
  if (IsString(expr.type().id) && expr.is_call()) return true;
  std::vector<const ir::Expr*> stack = {&expr};
  while (!stack.empty()) {
    const ir::Expr* e = stack.back();
    stack.pop_back();
    if (IsProducer(*e)) return true;
    for (const ir::ExprPtr& a : e->args()) stack.push_back(a.get());
  }
  return false;
}

Result<StringColumns> MaterializeStrings(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns,
                                         int64_t length) {
  Materializer m(columns, length);
  StringColumns out;
  ROWJIT_ASSIGN_OR_RETURN(out.expr, WithStackForDepth(expr->facts().depth, [&] { return m.Rewrite(expr, true); }));
  out.columns = std::move(m.columns());
  return out;
}

ir::AggregateResult FoldStrings(const ir::Aggregate& agg, const Array& rows) {
  std::optional<std::string_view> lo, hi;
  for (int64_t i = 0; i < rows.length(); ++i) {
    const std::optional<std::string_view> v = StringAt(rows, i);
    if (!v) continue;
    if (!lo || *v < *lo) lo = v;
    if (!hi || *hi < *v) hi = v;
  }
  const TypeId t = agg.result.id;
  auto scalar = [t](const std::optional<std::string_view>& v) { return v ? Scalar::String(*v, t) : Scalar::Null(t); };
  ir::AggregateResult out;
  out.value = scalar(agg.kind == ir::AggKind::kMax ? hi : lo);
  out.max = agg.kind == ir::AggKind::kMinMax ? scalar(hi) : Scalar::Null(t);
  return out;
}

}  // namespace rowjit::jit::internal
