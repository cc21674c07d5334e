// Row-at-a-time evaluation with the catalog's scalar semantics (ir layer).
#include "ir/reference.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "ir/analysis.h"
#include "ir/construct.h"
#include "ir/function.h"
#include "ir/list_functions.h"
#include "kernels/bitmap.h"
#include "runtime/builder.h"
#include "runtime/deep_stack.h"
#include "runtime/selection.h"

namespace rowjit::ir {

Status CheckInputs(const Expr& expr, std::span<const ArrayPtr> columns, int64_t length) {
  if (!expr.bound()) return MakeError(ErrorCode::kInvalidInput, "expression is not bound");
  if (length < 0) return MakeError(ErrorCode::kInvalidInput, "negative batch length {}", length);
  // Each distinct column node once (the analysis lists them; no walk per call).
  for (const Expr* e : expr.facts().column_nodes) {
    const int i = e->column_index();
    if (i < 0 || static_cast<size_t>(i) >= columns.size() || columns[i] == nullptr) {
      return MakeError(ErrorCode::kInvalidInput, "column '{}' (index {}) is missing", e->name(), i);
    }
    const Array& c = *columns[i];
    if (!c.type().SameType(e->type())) {
      return MakeError(ErrorCode::kTypeError, "column '{}' is {}, the expression was bound to {}",
                       e->name(), c.type().ToString(), e->type().ToString());
    }
    if (c.length() != length) {
      return MakeError(ErrorCode::kInvalidInput, "column '{}' has {} rows, the batch {}",
                       e->name(), c.length(), length);
    }
    if (!e->type().nullable && c.type().nullable && c.NullCount() > 0) {
      return MakeError(ErrorCode::kInvalidInput,
                       "column '{}' has nulls but was bound as non-nullable {}", e->name(),
                       e->type().ToString());
    }
    ROWJIT_RETURN_NOT_OK(c.Validate());
  }
  return Status::OK();
}

namespace {

// The array a struct field reads (s.x.y: through x's child), or null when the path's struct is
// not a struct array or its row is null at `row` (the field is then null).
const Array* FieldArray(const Expr& e, std::span<const ArrayPtr> columns, int64_t row) {
  const Expr& of = *e.args()[0];
  const Array* base = of.is_column() ? columns[static_cast<size_t>(of.column_index())].get()
                      : of.is_call() && of.function()->family == Family::kStruct ? FieldArray(of, columns, row)
                                                                                   : nullptr;
  const int field = StructFieldIndex(e);
  if (base == nullptr || base->encoding() != Encoding::kStruct || field < 0 || base->IsNull(row)) return nullptr;
  return static_cast<const StructArray&>(*base).children()[static_cast<size_t>(field)].get();
}

// Whether some column the expression reads is null in the row; a struct's fields count as the
// columns they are (a kernel reads each as a column of its own).
bool AnyColumnNull(const Expr& e, std::span<const ArrayPtr> columns, int64_t row) {
  for (int c : e.facts().columns) {
    if (columns[c]->encoding() == Encoding::kStruct) continue;  // read through its fields, below
    if (columns[c]->IsNull(row)) return true;
  }
  for (const Expr* call : e.facts().calls) {
    if (call->function()->family != Family::kStruct) continue;
    const Array* field = FieldArray(*call, columns, row);
    if (field == nullptr || field->IsNull(row)) return true;
  }
  return false;
}

bool IsTrue(const Scalar& s) { return !s.is_null() && s.value<bool>(); }
bool IsFalse(const Scalar& s) { return !s.is_null() && !s.value<bool>(); }

// Guards (SQL semantics): whether argument `i` of `e` is taken in this row, given the arguments
// before it. An argument not taken is still evaluated (its value is not used) but its errors are
// not raised: the then branch of `if` counts only where the condition is true, the else branch
// only where it is false or null; `coalesce` an argument only where every earlier one is null;
// the right operand of `and` only where the left is not false, of `or` only where it is not true.
bool Taken(const Expr& e, size_t i, std::span<const Scalar> before) {
  switch (e.function()->guard) {
    case Guard::kNone: return true;
    case Guard::kIf: return i == 0 || (i == 1) == IsTrue(before[0]);
    case Guard::kCoalesce:
      for (const Scalar& s : before) {
        if (!s.is_null()) return false;
      }
      return true;
    case Guard::kAnd: return i == 0 || !IsFalse(before[0]);
    case Guard::kOr: return i == 0 || !IsTrue(before[0]);
  }
  return true;
}

Result<Scalar> EvaluateNode(const Expr& e, std::span<const ArrayPtr> columns, int64_t row, bool suppress_errors);

Result<ArrayPtr> ListOfRows(const DataType& type, const std::vector<std::optional<ArrayPtr>>& rows);

// A nested-valued expression at one row, as a one-row array of its type (a null row where it is
// null): a column's or a struct field's row; list_transform's or list_filter's over its own
// list's row, the lambda evaluated at each element (its errors are this row's); a constructor's
// over its arguments' values. Where `quiet`, a row that fails is null instead.
Result<ArrayPtr> NestedAtRow(const Expr& e, std::span<const ArrayPtr> columns, int64_t row, bool quiet) {
  if (e.is_column()) return columns[static_cast<size_t>(e.column_index())]->Slice(row, 1);
  const Function& f = *e.function();
  if (f.family == Family::kStruct) {  // s.x: the field's row, null where the struct's is
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr base, NestedAtRow(*e.args()[0], columns, row, quiet));
    const int field = StructFieldIndex(e);
    if (base->encoding() != Encoding::kStruct || field < 0) {
      return MakeError(ErrorCode::kInternal, "a field of a {} array", EncodingName(base->encoding()));
    }
    const auto& st = static_cast<const StructArray&>(*base);
    return WithNulls(st.children()[static_cast<size_t>(field)], st.validity(), e.type().nullable);
  }
  const DataType type = e.type().WithNullable(true);
  const auto null_row = [&] { return ListOfRows(type, {std::nullopt}); };  // lists' and maps' only: no struct is
  const auto failed = [&](Error error, std::string_view function) -> Result<ArrayPtr> {
    if (quiet) return null_row();
    if (error.row()) return error;
    return std::move(error).WithRow(std::string(function), row);
  };
  if (IsConstructor(e)) {
    std::vector<ArrayPtr> args;
    for (const ExprPtr& a : e.args()) {
      const TypeId t = a->type().id;
      if (IsNested(t)) {
        ROWJIT_ASSIGN_OR_RETURN(ArrayPtr v, NestedAtRow(*a, columns, row, quiet));
        args.push_back(std::move(v));
        continue;
      }
      ROWJIT_ASSIGN_OR_RETURN(const Scalar v, EvaluateNode(*a, columns, row, quiet));
      ROWJIT_ASSIGN_OR_RETURN(ArrayPtr one, MakeArray(a->type().WithNullable(true), {v}));
      args.push_back(std::move(one));
    }
    Result<ArrayPtr> made = ConstructRow(e, args);
    if (!made.ok()) return failed(std::move(made).TakeError(), f.name);
    return made;
  }
  if (!IsListCall(e)) return MakeError(ErrorCode::kInternal, "{} is not a nested value", e.ToString());
  ROWJIT_ASSIGN_OR_RETURN(ArrayPtr inner, NestedAtRow(*e.args()[0], columns, row, quiet));
  if (inner->encoding() != Encoding::kList) {
    return MakeError(ErrorCode::kInvalidInput, "{} reads a list, given as a {} array", f.name, EncodingName(inner->encoding()));
  }
  if (inner->IsNull(0)) return null_row();
  const auto& l = static_cast<const ListArray&>(*inner);
  ROWJIT_ASSIGN_OR_RETURN(ArrayPtr elements, l.elements()->Slice(l.Start(0), l.End(0) - l.Start(0)));
  ROWJIT_ASSIGN_OR_RETURN(ExprPtr body, LambdaBody(e));
  const std::vector<ArrayPtr> scope{elements};
  // Where errors are hidden, an element whose lambda fails is null (the failing call's value),
  // as every other call's is; else the element's error is the row's.
  std::vector<int64_t> hidden;
  Result<ArrayPtr> values = quiet ? EvaluateReferenceQuiet(*body, scope, elements->length(), hidden)
                                  : EvaluateReference(*body, scope, elements->length());
  if (!values.ok()) {
    const std::string function = values.error().function();
    return failed(std::move(values).TakeError().WithRow(function, row), function);
  }
  ArrayPtr child = *values;
  if (*ListOpOf(f) == ListOp::kFilter) {
    std::vector<uint32_t> kept;
    for (int64_t j = 0; j < child->length(); ++j) {
      const Scalar keep = child->GetScalar(j);
      if (!keep.is_null() && keep.value<bool>()) kept.push_back(static_cast<uint32_t>(j));
    }
    ROWJIT_ASSIGN_OR_RETURN(SelectionVector picked, SelectionVector::FromIndices(kept, elements->length()));
    ROWJIT_ASSIGN_OR_RETURN(child, Take(*elements, picked));
  }
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr offsets, Buffer::Allocate(16));
  reinterpret_cast<int64_t*>(offsets->mutable_data())[0] = 0;
  reinterpret_cast<int64_t*>(offsets->mutable_data())[1] = child->length();
  ROWJIT_ASSIGN_OR_RETURN(auto one, ListArray::Make(e.type().WithNullable(false), 1, true, std::move(offsets), std::move(child),
                                                    Validity::AllValid()));
  return ArrayPtr(std::move(one));
}

// A list or map function: its list read at the row (a column, a struct's field, or a list a
// lambda or constructor made), its other arguments evaluated.
Result<Scalar> EvaluateListCall(const Expr& e, std::span<const ArrayPtr> columns, int64_t row, bool suppress_errors) {
  const ListOp op = *ListOpOf(*e.function());
  if (op == ListOp::kTransform || op == ListOp::kFilter) {  // a list: its row's text (its errors raised)
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr made, NestedAtRow(e, columns, row, suppress_errors));
    return made->GetScalar(0);
  }
  const Expr& of = *e.args()[0];
  ArrayPtr held;
  const Array* list = nullptr;
  int64_t at = row;
  if (IsListCall(of) || IsConstructor(of)) {  // a list made at the row
    ROWJIT_ASSIGN_OR_RETURN(held, NestedAtRow(of, columns, row, suppress_errors));
    list = held.get();
    at = 0;
  } else {
    list = of.is_column() ? columns[static_cast<size_t>(of.column_index())].get()
           : of.is_call() && of.function()->family == Family::kStruct ? FieldArray(of, columns, row)
                                                                        : nullptr;
  }
  if (list != nullptr && list->encoding() != Encoding::kList) {
    return MakeError(ErrorCode::kInternal, "{} reads a {} array, not a list", e.function()->name, EncodingName(list->encoding()));
  }
  std::vector<Scalar> rest;
  for (size_t i = 1; i < e.args().size(); ++i) {
    ROWJIT_ASSIGN_OR_RETURN(Scalar s, EvaluateNode(*e.args()[i], columns, row, suppress_errors));
    rest.push_back(std::move(s));
  }
  auto r = EvaluateListRow(e, list, at, rest);
  if (!r.ok()) {
    if (suppress_errors) return Scalar::Null(e.type().id).As(e.type());
    return std::move(r).TakeError().WithRow(std::string(e.function()->name), row);
  }
  return r;
}

Result<Scalar> EvaluateNode(const Expr& e, std::span<const ArrayPtr> columns, int64_t row,
                            bool suppress_errors) {
  switch (e.kind()) {
    case ExprKind::kColumn: return columns[e.column_index()]->GetScalar(row);
    case ExprKind::kLiteral: return e.value();
    case ExprKind::kCall: break;
  }
  const Function* f = e.function();
  if (f->family == Family::kStruct) {  // s.x: the field's child, row by row
    const Array* field = FieldArray(e, columns, row);
    return field != nullptr ? field->GetScalar(row) : Scalar::Null(e.type().id).As(e.type());
  }
  if (IsListCall(e)) return EvaluateListCall(e, columns, row, suppress_errors);
  if (IsConstructor(e)) {  // its row's text (its errors raised)
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr made, NestedAtRow(e, columns, row, suppress_errors));
    return made->GetScalar(0);
  }
  std::vector<Scalar> args;
  args.reserve(e.args().size());
  for (size_t i = 0; i < e.args().size(); ++i) {
    const bool quiet = suppress_errors || !Taken(e, i, args);
    ROWJIT_ASSIGN_OR_RETURN(Scalar s, EvaluateNode(*e.args()[i], columns, row, quiet));
    args.push_back(s);
  }
  // A null keeps the call's logical type too (a decimal's null is a decimal: consumers of the
  // row, a broadcast constant, read its type).
  if (f->strict()) {
    for (const Scalar& s : args) {
      if (s.is_null()) return Scalar::Null(e.type().id).As(e.type());
    }
  }
  auto r = f->eval(args, e.type(), e.type_arg());
  if (!r.ok()) {
    if (suppress_errors) return Scalar::Null(e.type().id).As(e.type());
    return std::move(r).TakeError().WithRow(std::string(f->name), row);
  }
  // A call of a logical type computes on the storage (t - d is a checked i64 sub): its value
  // takes the call's type, which its consumers read (year of a timestamp reads the unit).
  if (e.type().is_logical()) return r->As(e.type());
  return r;
}

}  // namespace

// Recursive over the expression: callers run it on a stack that holds its depth.
Result<Scalar> EvaluateRow(const Expr& e, std::span<const ArrayPtr> columns, int64_t row) {
  return WithStackForDepth(e.facts().depth, [&] {
    return EvaluateNode(e, columns, row, AnyColumnNull(e, columns, row));
  });
}

namespace {

Result<ArrayPtr> ConcatRows(const DataType& type, std::span<const ArrayPtr> parts);

// A validity of `n` rows from a flag a row (all valid without a null).
Result<Validity> ValidityOfFlags(const std::vector<bool>& valid) {
  const auto n = static_cast<int64_t>(valid.size());
  if (std::find(valid.begin(), valid.end(), false) == valid.end()) return Validity::AllValid();
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr bits, AllocateBitmap(n));
  for (int64_t i = 0; i < n; ++i) kernels::SetBitTo(bits->mutable_data(), i, valid[static_cast<size_t>(i)]);
  return Validity::FromBitmap(std::move(bits), 0, n);
}

// A list (or map) of `type` whose row i holds rows[i]'s elements (an array of the element type),
// or is null where rows[i] is nullopt.
Result<ArrayPtr> ListOfRows(const DataType& type, const std::vector<std::optional<ArrayPtr>>& rows) {
  std::vector<ArrayPtr> parts;
  std::vector<int64_t> offsets{0};
  std::vector<bool> valid;
  for (const std::optional<ArrayPtr>& r : rows) {
    valid.push_back(r.has_value());
    if (r) parts.push_back(*r);
    offsets.push_back(offsets.back() + (r ? (*r)->length() : 0));
  }
  ROWJIT_ASSIGN_OR_RETURN(ArrayPtr child, ConcatRows(ListElement(type), parts));
  const bool large = offsets.back() > std::numeric_limits<int32_t>::max();
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr buffer, Buffer::Allocate(static_cast<int64_t>(offsets.size()) * (large ? 8 : 4)));
  for (size_t i = 0; i < offsets.size(); ++i) {
    if (large) {
      reinterpret_cast<int64_t*>(buffer->mutable_data())[i] = offsets[i];
    } else {
      reinterpret_cast<int32_t*>(buffer->mutable_data())[i] = static_cast<int32_t>(offsets[i]);
    }
  }
  ROWJIT_ASSIGN_OR_RETURN(Validity validity, ValidityOfFlags(valid));
  const DataType t = type.WithNullable(type.nullable || !validity.all_valid());
  ROWJIT_ASSIGN_OR_RETURN(auto out, ListArray::Make(t, static_cast<int64_t>(rows.size()), large, std::move(buffer),
                                                    std::move(child), std::move(validity)));
  return ArrayPtr(std::move(out));
}

// The rows of `parts` (arrays of `type`, any layout) as one array: nested rows part by part (a
// struct field by field, a list or map through its rows' elements, a vector row by row), flat
// values through their scalars.
Result<ArrayPtr> ConcatRows(const DataType& type, std::span<const ArrayPtr> parts) {
  std::vector<bool> valid;
  for (const ArrayPtr& p : parts) {
    for (int64_t j = 0; j < p->length(); ++j) valid.push_back(!p->IsNull(j));
  }
  const auto n = static_cast<int64_t>(valid.size());
  if (type.id == TypeId::kStruct) {
    std::vector<ArrayPtr> children;
    for (size_t f = 0; f < StructFields(type).size(); ++f) {
      std::vector<ArrayPtr> field;
      for (const ArrayPtr& p : parts) field.push_back(static_cast<const StructArray&>(*p).children()[f]);
      ROWJIT_ASSIGN_OR_RETURN(ArrayPtr child, ConcatRows(StructFields(type)[f].type, field));
      children.push_back(std::move(child));
    }
    ROWJIT_ASSIGN_OR_RETURN(Validity validity, ValidityOfFlags(valid));
    ROWJIT_ASSIGN_OR_RETURN(auto out, StructArray::Make(type.WithNullable(type.nullable || !validity.all_valid()), n,
                                                        std::move(children), std::move(validity)));
    return ArrayPtr(std::move(out));
  }
  if (type.id == TypeId::kList || type.id == TypeId::kMap) {
    std::vector<std::optional<ArrayPtr>> rows;
    for (const ArrayPtr& p : parts) {
      const auto& l = static_cast<const ListArray&>(*p);
      for (int64_t j = 0; j < l.length(); ++j) {
        if (l.IsNull(j)) {
          rows.emplace_back();
          continue;
        }
        ROWJIT_ASSIGN_OR_RETURN(ArrayPtr run, l.elements()->Slice(l.Start(j), l.End(j) - l.Start(j)));
        rows.emplace_back(std::move(run));
      }
    }
    return ListOfRows(type, rows);
  }
  if (type.id == TypeId::kFixedList) {
    ROWJIT_ASSIGN_OR_RETURN(BufferPtr values, Buffer::Allocate(std::max<int64_t>(n * type.ListRowBytes(), 1)));
    int64_t at = 0;
    for (const ArrayPtr& p : parts) {
      const auto& v = static_cast<const FixedListArray&>(*p);
      for (int64_t j = 0; j < v.length(); ++j, ++at) {
        const std::string_view row = v.RowBytes(j);
        std::memcpy(values->mutable_data() + at * type.ListRowBytes(), row.data(), row.size());
      }
    }
    ROWJIT_ASSIGN_OR_RETURN(Validity validity, ValidityOfFlags(valid));
    ROWJIT_ASSIGN_OR_RETURN(auto out, FixedListArray::Make(type.WithNullable(type.nullable || !validity.all_valid()), n,
                                                           std::move(values), std::move(validity)));
    return ArrayPtr(std::move(out));
  }
  std::vector<Scalar> values;
  for (const ArrayPtr& p : parts) {
    for (int64_t j = 0; j < p->length(); ++j) values.push_back(p->GetScalar(j));
  }
  return MakeArray(type, values);
}

// A nested-valued expression's rows, row by row through NestedAtRow (a column's, a field's, a
// lambda's, a constructor's), copied into one array. Rows that fail are null where the row has a
// null column (the errors SQL hides there) or `failed` is given (their rows listed in it); an
// error otherwise.
Result<ArrayPtr> NestedRowsOf(const Expr& expr, std::span<const ArrayPtr> columns, int64_t length,
                              std::vector<int64_t>* failed) {
  if (expr.is_column()) return columns[static_cast<size_t>(expr.column_index())];
  std::vector<ArrayPtr> rows;
  for (int64_t r = 0; r < length; ++r) {
    Result<ArrayPtr> row = NestedAtRow(expr, columns, r, AnyColumnNull(expr, columns, r));
    if (!row.ok() && (failed == nullptr || !row.error().row())) return std::move(row).TakeError();
    if (!row.ok()) {
      failed->push_back(r);
      row = NestedAtRow(expr, columns, r, /*quiet=*/true);
      if (!row.ok()) return std::move(row).TakeError();
    }
    rows.push_back(*std::move(row));
  }
  return ConcatRows(expr.type(), rows);
}

}  // namespace

Result<ArrayPtr> EvaluateReference(const Expr& expr, std::span<const ArrayPtr> columns,
                                   int64_t length) {
  ROWJIT_RETURN_NOT_OK(CheckInputs(expr, columns, length));
  if (IsNested(expr.type().id)) {
    return WithStackForDepth(expr.facts().depth, [&] { return NestedRowsOf(expr, columns, length, nullptr); });
  }
  return WithStackForDepth(expr.facts().depth, [&]() -> Result<ArrayPtr> {
    std::vector<Scalar> rows;
    rows.reserve(static_cast<size_t>(length));
    for (int64_t r = 0; r < length; ++r) {
      ROWJIT_ASSIGN_OR_RETURN(Scalar s, EvaluateRow(expr, columns, r));
      rows.push_back(s);
    }
    return MakeArray(expr.type(), rows);
  });
}

Result<ArrayPtr> EvaluateReferenceQuiet(const Expr& expr, std::span<const ArrayPtr> columns, int64_t length,
                                        std::vector<int64_t>& failed) {
  ROWJIT_RETURN_NOT_OK(CheckInputs(expr, columns, length));
  if (IsNested(expr.type().id)) {
    return WithStackForDepth(expr.facts().depth, [&] { return NestedRowsOf(expr, columns, length, &failed); });
  }
  return WithStackForDepth(expr.facts().depth, [&]() -> Result<ArrayPtr> {
    std::vector<Scalar> rows;
    rows.reserve(static_cast<size_t>(length));
    for (int64_t r = 0; r < length; ++r) {
      Result<Scalar> loud = EvaluateNode(expr, columns, r, AnyColumnNull(expr, columns, r));
      if (!loud.ok() && !loud.error().row()) return std::move(loud).TakeError();
      if (!loud.ok()) {
        failed.push_back(r);
        loud = EvaluateNode(expr, columns, r, /*suppress_errors=*/true);
        if (!loud.ok()) return std::move(loud).TakeError();
      }
      rows.push_back(*loud);
    }
    // A failing row's null may stand where the type has none (its inputs were not null).
    return MakeArray(failed.empty() ? expr.type() : expr.type().WithNullable(true), rows);
  });
}

}  // namespace rowjit::ir
