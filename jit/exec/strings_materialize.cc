// String-valued calls outside kernels (jit layer, exec room): kernels read strings and compute
// bools and numbers; what returns a string (lower, substr, concat, ...) is computed a column at a
// time by the catalog's column forms (ir/string_columns.h) into a fresh string array, sized exactly
// before it is written, and read back as a column by the kernel of the rest
// (jit/exec/executor_internal.h). Calls without a column form run row by row through the reference.
// Reads of nested columns take the same way: a vector function's scores come from its vector
// kernel (the engine's callback), a struct field is its child column with the struct's nulls, a
// list or map function's values its column form (ir/list_functions.h), a struct, list or map a
// constructor builds its (ir/construct.h).
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <iterator>
#include <unordered_map>

#include "ir/aggregate.h"
#include "ir/analysis.h"
#include "ir/construct.h"
#include "ir/function.h"
#include "ir/list_functions.h"
#include "ir/reference.h"
#include "ir/string_columns.h"
#include "jit/exec/executor_internal.h"
#include "runtime/deep_stack.h"
#include "runtime/selection.h"
#include "runtime/string_array.h"

namespace rowjit::jit::internal {

namespace {

// A call computing a new string (ir::IsStringBuilder), a vector function's, or a struct field's.
bool IsField(const ir::Expr& e) { return e.is_call() && e.function() != nullptr && e.function()->family == ir::Family::kStruct; }
bool IsProducer(const ir::Expr& e) {
  return ir::IsStringBuilder(e) || ir::IsVectorScore(e) || IsField(e) || ir::IsListCall(e) || ir::IsConstructor(e);
}

class Materializer {
 public:
  Materializer(std::span<const ArrayPtr> columns, int64_t length, const EvaluateFn& evaluate,
               const EvaluateFn& vectors, std::shared_ptr<MemoryPool> pool)
      : columns_(columns.begin(), columns.end()), length_(length), evaluate_(evaluate), vectors_(vectors),
        pool_(std::move(pool)) {}

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
    if (IsField(*e)) {
      ROWJIT_ASSIGN_OR_RETURN(ArrayPtr field, FieldArray(*e));
      out = NewColumn(std::move(field), e->type(), "field");
    } else if (ir::IsListCall(*e)) {
      ROWJIT_ASSIGN_OR_RETURN(ArrayPtr rows, ListRows(e));
      out = NewColumn(std::move(rows), e->type(), "list");
    } else if (ir::IsConstructor(*e)) {
      ROWJIT_ASSIGN_OR_RETURN(ArrayPtr rows, Constructed(*e));
      out = NewColumn(std::move(rows), e->type(), "made");
    } else if (ir::IsVectorScore(*e)) {
      // Its vectors first (s.v: a struct's field), then the score over them.
      std::vector<ir::ExprPtr> args;
      for (const ir::ExprPtr& a : e->args()) {
        ROWJIT_ASSIGN_OR_RETURN(ir::ExprPtr r, Rewrite(a, false));
        args.push_back(std::move(r));
      }
      ROWJIT_ASSIGN_OR_RETURN(out, VectorColumn(ir::Expr::BoundCall(e->function(), std::move(args), e->type_arg(), e->type())));
    } else if (IsString(e->type().id)) {
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
  // The rows of string-valued `e`, as a new column. One that can fail runs row by row through
  // the reference: at the root it raises its errors as SQL does; below it, computed on its own,
  // it would raise errors its guards (if, coalesce, and/or, nulls) hide, so its failing rows
  // take the value they have when the error is hidden and are kept for the whole expression to
  // decide (StringColumns::failed_rows). (No producer fails; an `if` over them that holds a
  // failing call, a cast of a failing number to text can.)
  Result<ir::ExprPtr> Column(const ir::ExprPtr& e, bool whole) {
    ArrayPtr rows;
    if (e->facts().can_fail && whole) {
      ROWJIT_ASSIGN_OR_RETURN(rows, Reference(*e));
    } else if (e->facts().can_fail) {  // its failing rows are decided by the whole expression
      ++reference_nodes_;
      std::vector<int64_t> failed;
      ROWJIT_ASSIGN_OR_RETURN(rows, ir::EvaluateReferenceQuiet(*e, columns_, length_, failed));
      AddFailed(failed);
    } else {
      ROWJIT_ASSIGN_OR_RETURN(rows, Columns(e));
      // A result is flat: a dictionary one (a call over the values) is copied out row by row.
      if (whole && rows->encoding() == Encoding::kDictionary) {
        ROWJIT_ASSIGN_OR_RETURN(rows, ir::CopyStrings(*rows, e->type(), length_, pool_));
      }
    }
    const int index = static_cast<int>(columns_.size());
    columns_.push_back(std::move(rows));
    return ir::Expr::BoundColumn(fmt::format("$string{}", index), index, e->type());
  }

  // A struct field's rows (s.x, s.x.y): the field's child with the struct's null rows added.
  Result<ArrayPtr> FieldArray(const ir::Expr& e) {
    const ir::Expr& of = *e.args()[0];
    ArrayPtr base;
    if (of.is_column()) {
      base = columns_[static_cast<size_t>(of.column_index())];
    } else if (IsField(of)) {
      ROWJIT_ASSIGN_OR_RETURN(base, FieldArray(of));
    }
    const int field = ir::StructFieldIndex(e);
    if (base == nullptr || base->encoding() != Encoding::kStruct || field < 0) return Reference(e);
    const auto& s = static_cast<const StructArray&>(*base);
    return WithNulls(s.children()[static_cast<size_t>(field)], s.validity(), e.type().nullable);
  }

  // A list or map function's rows (ir::ListColumn): its list a column or a struct's field, its
  // index, value or key computed first. Rows where it fails (list_sum's overflow) are null and
  // left to the whole expression, as a failing string call's are; so is every row of a call
  // whose index or value can fail (the reference computes it quietly).
  Result<ArrayPtr> ListRows(const ir::ExprPtr& e) {
    const ir::ExprPtr& of = e->args()[0];
    ArrayPtr list;
    if (of->is_column()) {
      list = columns_[static_cast<size_t>(of->column_index())];
    } else if (IsField(*of)) {
      ROWJIT_ASSIGN_OR_RETURN(list, FieldArray(*of));
    } else if (ir::IsListCall(*of) || ir::IsConstructor(*of)) {  // a list a lambda or a constructor made
      ROWJIT_ASSIGN_OR_RETURN(ir::ExprPtr made, Rewrite(of, false));
      list = columns_[static_cast<size_t>(made->column_index())];
    }
    const std::optional<ir::ListOp> op = ir::ListOpOf(*e->function());
    if ((op == ir::ListOp::kTransform || op == ir::ListOp::kFilter) && list != nullptr &&
        list->encoding() == Encoding::kList) {
      return LambdaRows(*e, static_cast<const ListArray&>(*list), op == ir::ListOp::kFilter);
    }
    bool quiet = list == nullptr || list->encoding() != Encoding::kList;
    for (size_t i = 1; i < e->args().size(); ++i) quiet = quiet || e->args()[i]->facts().can_fail;
    std::vector<int64_t> failed;
    ArrayPtr rows;
    if (quiet) {
      ++reference_nodes_;
      ROWJIT_ASSIGN_OR_RETURN(rows, ir::EvaluateReferenceQuiet(*e, columns_, length_, failed));
    } else {
      std::vector<ArrayPtr> rest;
      for (size_t i = 1; i < e->args().size(); ++i) {
        ROWJIT_ASSIGN_OR_RETURN(ArrayPtr r, Argument(e->args()[i]));
        rest.push_back(std::move(r));
      }
      ROWJIT_ASSIGN_OR_RETURN(rows, ir::ListColumn(*e, static_cast<const ListArray&>(*list), rest, length_, pool_, failed));
    }
    AddFailed(failed);
    return rows;
  }

  // An argument's rows: a nested value's column (its own, or one a producer made), a string
  // call's, or a kernel's over the columns.
  Result<ArrayPtr> Argument(const ir::ExprPtr& e) {
    ROWJIT_ASSIGN_OR_RETURN(ir::ExprPtr a, Rewrite(e, false));
    if (a->is_column() || a->is_literal() || evaluate_ == nullptr) return Other(a);
    return evaluate_(a, columns_, length_);
  }

  // A constructor's rows (ir::ConstructColumn) over its arguments' columns. A flat argument that
  // can fail is the reference's, computed quietly: its failing rows are null, the value a
  // failing call has where its error is hidden, and are left to the whole expression (a nested
  // one's failing rows are null and left so by its own column). No constructor but map fails,
  // and map's rows fail on its lists only.
  Result<ArrayPtr> Constructed(const ir::Expr& e) {
    std::vector<int64_t> failed;
    std::vector<ArrayPtr> args;
    for (const ir::ExprPtr& a : e.args()) {
      ArrayPtr r;
      if (a->facts().can_fail && !IsNested(a->type().id)) {
        ++reference_nodes_;
        ROWJIT_ASSIGN_OR_RETURN(r, ir::EvaluateReferenceQuiet(*a, columns_, length_, failed));
        AddFailed(failed);
        failed.clear();
      } else {
        ROWJIT_ASSIGN_OR_RETURN(r, Argument(a));
      }
      args.push_back(std::move(r));
    }
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr rows, ir::ConstructColumn(e, args, length_, pool_, failed));
    AddFailed(failed);
    return rows;
  }

  // list_transform, list_filter over `list`: the lambda over the elements the rows cover, by a
  // kernel (the engine's evaluator) or, where it can fail, quietly by the reference, whose failing
  // elements' rows are left to the whole expression; the rows' offsets kept (transform) or
  // recounted over the elements kept (filter).
  Result<ArrayPtr> LambdaRows(const ir::Expr& e, const ListArray& list, bool filter) {
    ROWJIT_ASSIGN_OR_RETURN(ir::ExprPtr body, ir::LambdaBody(e));
    const int64_t lo = length_ > 0 ? list.Start(0) : 0, hi = length_ > 0 ? list.End(length_ - 1) : 0;
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr elements, list.elements()->Slice(lo, hi - lo));
    const std::vector<ArrayPtr> scope{elements};
    ArrayPtr values;
    std::vector<int64_t> failed_elements;
    if (body->facts().can_fail || evaluate_ == nullptr) {
      ++reference_nodes_;
      ROWJIT_ASSIGN_OR_RETURN(values, ir::EvaluateReferenceQuiet(*body, scope, hi - lo, failed_elements));
    } else {
      ROWJIT_ASSIGN_OR_RETURN(values, evaluate_(body, scope, hi - lo));
    }
    // Offsets from 0 over the elements in scope, 64-bit; each failing element's row.
    ROWJIT_ASSIGN_OR_RETURN(BufferPtr offsets, Buffer::Allocate((length_ + 1) * 8));
    auto* o = reinterpret_cast<int64_t*>(offsets->mutable_data());
    std::vector<int64_t> failed;
    size_t next_failed = 0;
    ArrayPtr child = values;
    std::vector<uint32_t> kept;
    // A filter's predicate: a kernel's bits read as they are; another layout through its scalars.
    const auto* bits = values->encoding() == Encoding::kBool ? static_cast<const BoolArray*>(values.get()) : nullptr;
    const auto keep = [&](int64_t j) {
      if (bits != nullptr) return bits->Value(j) && !bits->IsNull(j);
      const Scalar s = values->GetScalar(j);
      return !s.is_null() && s.value<bool>();
    };
    o[0] = 0;
    for (int64_t i = 0; i < length_; ++i) {
      const int64_t begin = list.Start(i) - lo, end = list.End(i) - lo;
      while (next_failed < failed_elements.size() && failed_elements[next_failed] < end) {
        if (failed_elements[next_failed] >= begin && (failed.empty() || failed.back() != i)) failed.push_back(i);
        ++next_failed;
      }
      if (filter) {
        for (int64_t j = begin; j < end; ++j) {
          if (keep(j)) kept.push_back(static_cast<uint32_t>(j));
        }
        o[i + 1] = static_cast<int64_t>(kept.size());
      } else {
        o[i + 1] = end;
      }
    }
    if (filter) {
      ROWJIT_ASSIGN_OR_RETURN(SelectionVector picked, SelectionVector::FromIndices(kept, elements->length()));
      ROWJIT_ASSIGN_OR_RETURN(child, Take(*elements, picked, pool_));
    }
    AddFailed(failed);
    ROWJIT_ASSIGN_OR_RETURN(auto out, ListArray::Make(e.type(), length_, true, std::move(offsets), std::move(child),
                                                      list.validity()));
    return ArrayPtr(std::move(out));
  }

  // Rows (ascending) where a column computed on its own failed, for the whole expression to decide.
  void AddFailed(const std::vector<int64_t>& failed) {
    std::vector<int64_t> merged;
    std::merge(failed_.begin(), failed_.end(), failed.begin(), failed.end(), std::back_inserter(merged));
    merged.erase(std::unique(merged.begin(), merged.end()), merged.end());
    failed_ = std::move(merged);
  }

  ir::ExprPtr NewColumn(ArrayPtr rows, DataType type, std::string_view what) {
    const int index = static_cast<int>(columns_.size());
    columns_.push_back(std::move(rows));
    return ir::Expr::BoundColumn(fmt::format("${}{}", what, index), index, type);
  }

  // The scores of a vector function (whose arguments are vector columns and literals) as a new
  // column: its vector kernel's, or the reference's without one. No vector function fails.
  Result<ir::ExprPtr> VectorColumn(const ir::ExprPtr& e) {
    ArrayPtr rows;
    if (vectors_ != nullptr) {
      ROWJIT_ASSIGN_OR_RETURN(rows, vectors_(e, columns_, length_));
    } else {
      ROWJIT_ASSIGN_OR_RETURN(rows, Reference(*e));
    }
    const int index = static_cast<int>(columns_.size());
    columns_.push_back(std::move(rows));
    return ir::Expr::BoundColumn(fmt::format("$vector{}", index), index, e->type());
  }

  // The rows of `e` (which cannot fail) column at a time: a call with a column form gets its
  // string arguments the same way and the others from `evaluate_` (kernels), then runs it; what
  // has no column form runs through the reference.
  Result<ArrayPtr> Columns(const ir::ExprPtr& e) {
    if (e->is_column()) return columns_[static_cast<size_t>(e->column_index())];
    if (e->is_literal()) {
      ROWJIT_ASSIGN_OR_RETURN(auto c, ConstantArray::Make(e->value(), length_, e->type().nullable));
      return ArrayPtr(std::move(c));
    }
    if (IsField(*e) || ir::IsListCall(*e)) {  // a string field or element: read as its column
      ROWJIT_ASSIGN_OR_RETURN(ir::ExprPtr read, Rewrite(e, false));
      return columns_[static_cast<size_t>(read->column_index())];
    }
    const ir::Function* f = e->function();
    if (f == nullptr || f->columns == nullptr || !IsString(e->type().id)) return Reference(*e);
    std::vector<ArrayPtr> args;
    for (const ir::ExprPtr& a : e->args()) {
      ArrayPtr rows;
      if (IsString(a->type().id)) {
        ROWJIT_ASSIGN_OR_RETURN(rows, Columns(a));
      } else if (a->is_column() || a->is_literal() || evaluate_ == nullptr) {
        ROWJIT_ASSIGN_OR_RETURN(rows, Other(a));
      } else {
        ROWJIT_ASSIGN_OR_RETURN(rows, evaluate_(a, columns_, length_));
      }
      args.push_back(std::move(rows));
    }
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr over_values, OverDictionary(*e, args));
    if (over_values != nullptr) return over_values;
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr out, f->columns(args, e->type(), length_, pool_));
    if (out == nullptr) return Reference(*e);
    return out;
  }

  // A strict call whose one varying argument is a dictionary (the others constants) and whose
  // dictionary has no more values than the batch rows: computed over the values, and read
  // through the same codes (a dictionary result). Null when that does not apply.
  Result<ArrayPtr> OverDictionary(const ir::Expr& e, std::span<const ArrayPtr> args) {
    const ir::Function& f = *e.function();
    const DictionaryArray* d = nullptr;
    for (const ArrayPtr& a : args) {
      if (a->encoding() == Encoding::kConstant) continue;
      if (a->encoding() != Encoding::kDictionary || d != nullptr) return ArrayPtr();
      d = static_cast<const DictionaryArray*>(a.get());
    }
    if (!f.strict() || d == nullptr || d->values()->length() > length_) return ArrayPtr();
    const int64_t n = d->values()->length();
    std::vector<ArrayPtr> over;
    for (const ArrayPtr& a : args) {
      if (a.get() == d) {
        over.push_back(d->values());
        continue;
      }
      ROWJIT_ASSIGN_OR_RETURN(auto c, ConstantArray::Make(static_cast<const ConstantArray&>(*a).value(), n, a->type().nullable));
      over.push_back(std::move(c));
    }
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr values, f.columns(over, e.type(), n, pool_));
    if (values == nullptr) return ArrayPtr();
    ROWJIT_ASSIGN_OR_RETURN(auto out, DictionaryArray::Make(d->codes(), std::move(values)));
    return ArrayPtr(std::move(out));
  }

  // A non-string argument without an evaluator: a column, a literal, or the reference's rows.
  Result<ArrayPtr> Other(const ir::ExprPtr& e) {
    if (e->is_column()) return columns_[static_cast<size_t>(e->column_index())];
    if (e->is_literal()) {
      ROWJIT_ASSIGN_OR_RETURN(auto c, ConstantArray::Make(e->value(), length_, e->type().nullable));
      return ArrayPtr(std::move(c));
    }
    return Reference(*e);
  }

  Result<ArrayPtr> Reference(const ir::Expr& e) {
    ++reference_nodes_;
    return ir::EvaluateReference(e, columns_, length_);
  }

 public:
  int reference_nodes() const { return reference_nodes_; }
  std::vector<int64_t>& failed_rows() { return failed_; }

 private:
  std::vector<ArrayPtr> columns_;
  const int64_t length_;
  const EvaluateFn& evaluate_;
  const EvaluateFn& vectors_;
  const std::shared_ptr<MemoryPool> pool_;
  int reference_nodes_ = 0;
  std::vector<int64_t> failed_;  // ascending
  std::unordered_map<const ir::Expr*, bool> has_;
  std::unordered_map<const ir::Expr*, ir::ExprPtr> done_;
};

// The memory of one evaluation's string results, refused past `limit` bytes in all
// (EngineOptions::max_evaluation_bytes: their sizes are only known once computed, so they are
// counted as they are allocated; freed blocks are not given back to the count).
class BudgetPool final : public MemoryPool {
 public:
  BudgetPool(std::shared_ptr<MemoryPool> inner, int64_t limit) : inner_(std::move(inner)), left_(limit) {}
  void* Allocate(int64_t bytes) override {
    if (bytes > left_.fetch_sub(bytes)) {  // what was left could not hold it
      left_.fetch_add(bytes);
      return nullptr;
    }
    return inner_ != nullptr ? inner_->Allocate(bytes) : AllocateAligned(static_cast<size_t>(bytes));
  }
  void Free(void* data, int64_t bytes) override {
    if (inner_ != nullptr) {
      inner_->Free(data, bytes);
    } else {
      std::free(data);
    }
  }

 private:
  const std::shared_ptr<MemoryPool> inner_;
  std::atomic<int64_t> left_;
};

}  // namespace

std::shared_ptr<MemoryPool> StringResultPool(std::shared_ptr<MemoryPool> outputs, int64_t limit) {
  if (limit <= 0) return outputs;
  return std::make_shared<BudgetPool>(std::move(outputs), limit);
}

Status FirstFailingRow(std::span<const int64_t> failed, int64_t limit,
                       const std::function<Status(int64_t)>& whole_row) {
  for (int64_t row : failed) {
    if (row > limit) break;
    ROWJIT_RETURN_NOT_OK(whole_row(row));
  }
  return Status::OK();
}

Result<StringColumns> MaterializeStrings(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns,
                                         int64_t length, const EvaluateFn& evaluate,
                                         std::shared_ptr<MemoryPool> pool, const EvaluateFn& vectors) {
  Materializer m(columns, length, evaluate, vectors, std::move(pool));
  StringColumns out;
  ROWJIT_ASSIGN_OR_RETURN(out.expr, WithStackForDepth(expr->facts().depth, [&] { return m.Rewrite(expr, true); }));
  out.columns = std::move(m.columns());
  out.reference_nodes = m.reference_nodes();
  out.failed_rows = std::move(m.failed_rows());
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
