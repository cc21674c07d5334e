// List and map functions a column at a time (ir layer): typed loops over a list's offsets and its
// child's values for the common forms — a column of numbers or strings, a constant index, value
// or key — and the row semantics (EvaluateListRow) for the rest (a needle that varies by row,
// elements of other layouts). No kernel is compiled for them: a row's elements are a run of
// varying length whose cost is reading it, and the kernel of the rest of the expression reads the
// result as a column (jit/exec/strings_materialize.cc).
#include <cmath>
#include <cstring>
#include <optional>
#include <string_view>

#include "ir/list_functions.h"
#include "kernels/bitmap.h"
#include "runtime/builder.h"
#include "runtime/string_array.h"

namespace rowjit::ir {
namespace {

// SQL's float order: NaN equal to NaN and above every number, -0.0 equal to 0.0.
template <typename T>
bool Equal(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return a == b || (std::isnan(a) && std::isnan(b));
  return a == b;
}
template <typename T>
bool Less(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return !std::isnan(a) && (std::isnan(b) || a < b);
  return a < b;
}

// The rows where the list and every other argument are non-null.
class Rows {
 public:
  Rows(const ListArray& list, std::span<const ArrayPtr> rest) : list_(list) {
    for (const ArrayPtr& a : rest) rest_.push_back(ValidityOf(*a));
  }
  bool Valid(int64_t i) const {
    if (list_.IsNull(i)) return false;
    for (const Validity& v : rest_) {
      if (!v.IsValid(i)) return false;
    }
    return true;
  }

 private:
  const ListArray& list_;
  std::vector<Validity> rest_;
};

// A result column being written: fixed-width values and a validity bitmap.
struct Column {
  static Result<Column> Make(int64_t length, int width) {
    Column c;
    ROWJIT_ASSIGN_OR_RETURN(c.values, Buffer::Allocate(std::max<int64_t>(length * width, 1)));
    std::memset(c.values->mutable_data(), 0, static_cast<size_t>(std::max<int64_t>(length * width, 1)));
    ROWJIT_ASSIGN_OR_RETURN(c.bits, AllocateBitmap(length));
    return c;
  }
  template <typename T>
  void Set(int64_t i, T v) {
    reinterpret_cast<T*>(values->mutable_data())[i] = v;
    kernels::SetBitTo(bits->mutable_data(), i, true);
  }
  Result<ArrayPtr> Finish(DataType type, int64_t length) {
    ROWJIT_ASSIGN_OR_RETURN(Validity v, Validity::FromBitmap(bits, 0, length));
    if (v.CountValid(length) == length) v = Validity::AllValid();
    ROWJIT_ASSIGN_OR_RETURN(auto a, PrimitiveArray::Make(type, length, values, std::move(v)));
    return ArrayPtr(std::move(a));
  }
  BufferPtr values;
  BufferPtr bits;
};

// The constant value of an argument, when it is one.
std::optional<Scalar> ConstantOf(const ArrayPtr& a) {
  if (a->encoding() != Encoding::kConstant) return std::nullopt;
  return static_cast<const ConstantArray&>(*a).value();
}

// Any call, row by row through its semantics.
Result<ArrayPtr> ByRows(const Expr& call, const ListArray& list, std::span<const ArrayPtr> rest, int64_t length,
                        std::vector<int64_t>& failed) {
  std::vector<Scalar> out;
  out.reserve(static_cast<size_t>(length));
  std::vector<Scalar> args(rest.size());
  for (int64_t i = 0; i < length; ++i) {
    for (size_t k = 0; k < rest.size(); ++k) args[k] = rest[k]->GetScalar(i);
    auto v = EvaluateListRow(call, &list, i, args);
    if (!v.ok()) {
      failed.push_back(i);
      out.push_back(Scalar::Null(call.type().id).As(call.type()));
      continue;
    }
    out.push_back(*std::move(v));
  }
  return MakeArray(call.type(), out);
}

Result<ArrayPtr> Lengths(const ListArray& list, const Rows& rows, const DataType& type, int64_t length) {
  ROWJIT_ASSIGN_OR_RETURN(Column c, Column::Make(length, 8));
  for (int64_t i = 0; i < length; ++i) {
    if (rows.Valid(i)) c.Set<int64_t>(i, list.End(i) - list.Start(i));
  }
  return c.Finish(type, length);
}

// The elements at `at` (-1: null) of `elements`, as a column of `type`.
Result<ArrayPtr> Gather(const Array& elements, const std::vector<int64_t>& at, const DataType& type, int64_t length) {
  if (elements.encoding() == Encoding::kPrimitive) {
    const auto& p = static_cast<const PrimitiveArray&>(elements);
    const int width = ByteWidth(p.type().id);
    ROWJIT_ASSIGN_OR_RETURN(Column c, Column::Make(length, width));
    for (int64_t i = 0; i < length; ++i) {
      if (at[i] < 0 || p.IsNull(at[i])) continue;
      std::memcpy(c.values->mutable_data() + i * width, p.raw_values() + at[i] * width, static_cast<size_t>(width));
      kernels::SetBitTo(c.bits->mutable_data(), i, true);
    }
    return c.Finish(type, length);
  }
  if (IsString(type.id)) {
    std::vector<std::optional<std::string_view>> rows(static_cast<size_t>(length));
    for (int64_t i = 0; i < length; ++i) {
      if (at[i] >= 0) rows[i] = StringAt(elements, at[i]);
    }
    ROWJIT_ASSIGN_OR_RETURN(auto s, MakeStringArray(type, StringLayout::kOffsets32, rows));
    return ArrayPtr(std::move(s));
  }
  std::vector<Scalar> rows;
  for (int64_t i = 0; i < length; ++i) {
    const Scalar v = at[i] >= 0 ? elements.GetScalar(at[i]) : Scalar::Null(type.id);
    rows.push_back(v.is_null() ? Scalar::Null(type.id).As(type) : v.As(type));
  }
  return MakeArray(type, rows);
}

// l[i] for a constant i: each row's element, or null.
Result<ArrayPtr> Extract(const ListArray& list, const Rows& rows, int64_t index, const DataType& type, int64_t length) {
  std::vector<int64_t> at(static_cast<size_t>(length), -1);
  for (int64_t i = 0; i < length; ++i) {
    if (!rows.Valid(i)) continue;
    const int64_t begin = list.Start(i), end = list.End(i), n = end - begin;
    if (index != 0 && index <= n && index >= -n) at[i] = index > 0 ? begin + index - 1 : end + index;
  }
  return Gather(*list.elements(), at, type, length);
}

// The first element of each row equal to `needle` (-1: none), over `keys` (a list's elements or
// a map's keys). Nullopt where `keys` is of a layout without a typed loop here.
std::optional<std::vector<int64_t>> FindFirst(const ListArray& list, const Rows& rows, const Array& keys, const Scalar& needle,
                                              int64_t length) {
  std::vector<int64_t> at(static_cast<size_t>(length), -1);
  if (keys.encoding() == Encoding::kPrimitive && IsNumeric(keys.type().id)) {
    const auto& p = static_cast<const PrimitiveArray&>(keys);
    VisitType(keys.type().id, [&]<typename T>(std::type_identity<T>) {
      const T x = needle.value<T>();
      const T* v = reinterpret_cast<const T*>(p.raw_values());
      const Validity& valid = p.validity();
      for (int64_t i = 0; i < length; ++i) {
        if (!rows.Valid(i)) continue;
        for (int64_t j = list.Start(i), end = list.End(i); j < end; ++j) {
          if (Equal(v[j], x) && valid.IsValid(j)) {
            at[i] = j;
            break;
          }
        }
      }
    });
    return at;
  }
  if (keys.encoding() == Encoding::kString) {
    const std::string_view x = needle.str();
    for (int64_t i = 0; i < length; ++i) {
      if (!rows.Valid(i)) continue;
      for (int64_t j = list.Start(i), end = list.End(i); j < end; ++j) {
        const std::optional<std::string_view> s = StringAt(keys, j);
        if (s && *s == x) {
          at[i] = j;
          break;
        }
      }
    }
    return at;
  }
  return std::nullopt;
}

Result<ArrayPtr> Found(const std::vector<int64_t>& at, const Rows& rows, const DataType& type, int64_t length) {
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr bits, AllocateBitmap(length));
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr valid, AllocateBitmap(length));
  for (int64_t i = 0; i < length; ++i) {
    kernels::SetBitTo(bits->mutable_data(), i, at[i] >= 0);
    kernels::SetBitTo(valid->mutable_data(), i, rows.Valid(i));
  }
  ROWJIT_ASSIGN_OR_RETURN(Validity v, Validity::FromBitmap(std::move(valid), 0, length));
  if (v.CountValid(length) == length) v = Validity::AllValid();
  ROWJIT_ASSIGN_OR_RETURN(auto b, BoolArray::Make(length, std::move(bits), std::move(v), 0, type.nullable));
  return ArrayPtr(std::move(b));
}

// list_sum, list_min, list_max, list_avg over a column of numbers: the order and widths of
// EvaluateListRow's (ir/functions_list.cc).
template <typename T>
Result<ArrayPtr> FoldNumbers(ListOp op, const ListArray& list, const Rows& rows, const PrimitiveArray& elements,
                             const DataType& type, int64_t length, std::vector<int64_t>& failed) {
  const T* v = reinterpret_cast<const T*>(elements.raw_values());
  const Validity& valid = elements.validity();
  ROWJIT_ASSIGN_OR_RETURN(Column c, Column::Make(length, ByteWidth(type.id)));
  for (int64_t i = 0; i < length; ++i) {
    if (!rows.Valid(i)) continue;
    int64_t count = 0;
    T best{};
    __int128 exact = 0;
    double total = 0;
    for (int64_t j = list.Start(i), end = list.End(i); j < end; ++j) {
      if (!valid.IsValid(j)) continue;
      const T x = v[j];
      if (op == ListOp::kMin || op == ListOp::kMax) {
        if (count == 0 || (op == ListOp::kMin ? Less(x, best) : Less(best, x))) best = x;
      } else if constexpr (std::is_floating_point_v<T>) {
        total += static_cast<double>(x);
      } else {
        exact += x;
      }
      ++count;
    }
    if (count == 0) continue;
    if (op == ListOp::kMin || op == ListOp::kMax) {
      c.Set<T>(i, best);
    } else if (op == ListOp::kAvg) {
      c.Set<double>(i, (std::is_floating_point_v<T> ? total : static_cast<double>(exact)) / static_cast<double>(count));
    } else if constexpr (std::is_floating_point_v<T>) {
      c.Set<double>(i, total);
    } else if (std::is_signed_v<T> ? exact >= INT64_MIN && exact <= INT64_MAX
                                   : exact <= static_cast<__int128>(UINT64_MAX)) {
      c.Set<int64_t>(i, static_cast<int64_t>(exact));  // u64's bits alike
    } else {
      failed.push_back(i);  // overflow: null here, the error the whole expression's to raise
    }
  }
  return c.Finish(type, length);
}

}  // namespace

Result<ArrayPtr> ListColumn(const Expr& call, const ListArray& list, std::span<const ArrayPtr> rest, int64_t length,
                            const std::shared_ptr<MemoryPool>&, std::vector<int64_t>& failed) {
  const ListOp op = *ListOpOf(*call.function());
  const DataType type = call.type();
  const Rows rows(list, rest);
  const Array& elements = *list.elements();
  switch (op) {
    case ListOp::kLen: return Lengths(list, rows, type, length);
    case ListOp::kExtract:
      if (auto i = ConstantOf(rest[0])) return Extract(list, rows, i->is_null() ? 0 : i->value<int64_t>(), type, length);
      break;
    case ListOp::kContains:
      if (auto x = ConstantOf(rest[0]); x && !x->is_null()) {
        if (auto at = FindFirst(list, rows, elements, *x, length)) return Found(*at, rows, type, length);
      }
      break;
    case ListOp::kMapValue:
    case ListOp::kMapContains:
      if (auto k = ConstantOf(rest[0]); k && !k->is_null()) {
        const auto& entries = static_cast<const StructArray&>(elements);
        if (auto at = FindFirst(list, rows, *entries.children()[0], *k, length)) {
          if (op == ListOp::kMapContains) return Found(*at, rows, type, length);
          return Gather(*entries.children()[1], *at, type, length);
        }
      }
      break;
    case ListOp::kSum:
    case ListOp::kMin:
    case ListOp::kMax:
    case ListOp::kAvg:
      if (elements.encoding() == Encoding::kPrimitive && IsNumeric(elements.type().id)) {
        return VisitType(elements.type().id, [&]<typename T>(std::type_identity<T>) {
          return FoldNumbers<T>(op, list, rows, static_cast<const PrimitiveArray&>(elements), type, length, failed);
        });
      }
      break;
  }
  return ByRows(call, list, rest, length, failed);
}

}  // namespace rowjit::ir
