// List and map functions a column at a time (ir layer): typed loops over a list's offsets and its
// child's values for the common forms — a column of numbers or strings, a constant index, value
// or key — and the row semantics (EvaluateListRow) for the rest (a needle that varies by row,
// elements of other layouts). No kernel is compiled for them: a row's elements are a run of
// varying length whose cost is reading it, and the kernel of the rest of the expression reads the
// result as a column (jit/exec/strings_materialize.cc). The loops compute every row, null ones
// too (Arrow's offsets never decrease, so a null row's run is as safe to read), and the rows'
// nulls are one validity ANDed once.
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

// Calls fn(offsets) with the list's offsets in their stored width.
template <typename Fn>
decltype(auto) WithOffsets(const ListArray& list, Fn&& fn) {
  if (list.large()) return fn(list.Offsets<int64_t>());
  return fn(list.Offsets<int32_t>());
}

// A result column being written: fixed-width values, and the rows that have one (null rows of the
// list and the arguments aside: those are ANDed in by Finish).
struct Column {
  static Result<Column> Make(int64_t length, int width, bool all_present, const std::shared_ptr<MemoryPool>& pool) {
    Column c;
    ROWJIT_ASSIGN_OR_RETURN(c.values, Buffer::Allocate(std::max<int64_t>(length * width, 1), pool));
    std::memset(c.values->mutable_data(), 0, static_cast<size_t>(std::max<int64_t>(length * width, 1)));  // behind nulls
    if (!all_present) {
      ROWJIT_ASSIGN_OR_RETURN(c.present, AllocateBitmap(length));
    }
    return c;
  }
  template <typename T>
  T* Values() {
    return reinterpret_cast<T*>(values->mutable_data());
  }
  void Present(int64_t i) { kernels::SetBitTo(present->mutable_data(), i, true); }
  Result<ArrayPtr> Finish(DataType type, int64_t length, const Validity& rows) {
    Validity v = rows;
    if (present != nullptr) {
      ROWJIT_ASSIGN_OR_RETURN(const Validity has, Validity::FromBitmap(present, 0, length));
      const Validity both[] = {rows, has};
      ROWJIT_ASSIGN_OR_RETURN(v, AndValidity(both, length));
    }
    ROWJIT_ASSIGN_OR_RETURN(auto a, PrimitiveArray::Make(type, length, values, std::move(v)));
    return ArrayPtr(std::move(a));
  }
  BufferPtr values;
  BufferPtr present;  // null: every row has a value
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

Result<ArrayPtr> Lengths(const ListArray& list, const Validity& rows, const DataType& type, int64_t length,
                         const std::shared_ptr<MemoryPool>& pool) {
  ROWJIT_ASSIGN_OR_RETURN(Column c, Column::Make(length, 8, true, pool));
  int64_t* out = c.Values<int64_t>();
  WithOffsets(list, [&](const auto* o) {
    for (int64_t i = 0; i < length; ++i) out[i] = int64_t{o[i + 1]} - int64_t{o[i]};
  });
  return c.Finish(type, length, rows);
}

// The elements at `at` (-1: none) of `elements`, as a column of `type`.
Result<ArrayPtr> Gather(const ArrayPtr& element_array, const std::vector<int64_t>& at, const DataType& type, int64_t length,
                        const Validity& rows, const std::shared_ptr<MemoryPool>& pool) {
  const Array& elements = *element_array;
  if (elements.encoding() == Encoding::kPrimitive && ByteWidth(type.id) > 0) {
    const auto& p = static_cast<const PrimitiveArray&>(elements);
    ROWJIT_ASSIGN_OR_RETURN(Column c, Column::Make(length, ByteWidth(type.id), false, pool));
    const Validity& valid = p.validity();
    auto gather = [&]<typename T>(std::type_identity<T>) {
      const T* v = reinterpret_cast<const T*>(p.raw_values());
      T* out = c.Values<T>();
      for (int64_t i = 0; i < length; ++i) {
        const int64_t j = at[static_cast<size_t>(i)];
        if (j < 0 || !valid.IsValid(j)) continue;
        out[i] = v[j];
        c.Present(i);
      }
    };
    if (type.id == TypeId::kI128) {
      gather(std::type_identity<unsigned __int128>{});
    } else {
      VisitType(type.id, gather);
    }
    return c.Finish(type, length, rows);
  }
  if (IsString(type.id)) {  // one string array, its bytes copied once
    std::vector<std::optional<std::string_view>> views(static_cast<size_t>(length));
    const auto* flat = elements.encoding() == Encoding::kString ? static_cast<const StringArray*>(&elements) : nullptr;
    for (int64_t i = 0; i < length; ++i) {
      const int64_t j = at[static_cast<size_t>(i)];
      if (j < 0 || !rows.IsValid(i)) continue;
      if (flat == nullptr) {
        views[static_cast<size_t>(i)] = StringAt(elements, j);
      } else if (!flat->IsNull(j)) {
        views[static_cast<size_t>(i)] = flat->Value(j);
      }
    }
    ROWJIT_ASSIGN_OR_RETURN(auto strings, MakeStringArray(type, StringLayout::kOffsets32, views));
    return ArrayPtr(std::move(strings));
  }
  std::vector<Scalar> out;
  out.reserve(static_cast<size_t>(length));
  for (int64_t i = 0; i < length; ++i) {
    const int64_t j = rows.IsValid(i) ? at[static_cast<size_t>(i)] : -1;
    const Scalar v = j >= 0 ? elements.GetScalar(j) : Scalar::Null(type.id);
    out.push_back(v.is_null() ? Scalar::Null(type.id).As(type) : v.As(type));
  }
  return MakeArray(type, out);
}

// l[i] for a constant i: each row's element, or none.
Result<ArrayPtr> Extract(const ListArray& list, const Validity& rows, int64_t index, const DataType& type, int64_t length,
                         const std::shared_ptr<MemoryPool>& pool) {
  std::vector<int64_t> at(static_cast<size_t>(length), -1);
  WithOffsets(list, [&](const auto* o) {
    for (int64_t i = 0; i < length; ++i) {
      const int64_t begin = o[i], end = o[i + 1], n = end - begin;
      if (index != 0 && index <= n && index >= -n) at[static_cast<size_t>(i)] = index > 0 ? begin + index - 1 : end + index;
    }
  });
  return Gather(list.elements(), at, type, length, rows, pool);
}

// The first element of each row equal to `needle` (-1: none), over `keys` (a list's elements or
// a map's keys). Nullopt where `keys` is of a layout without a typed loop here.
std::optional<std::vector<int64_t>> FindFirst(const ListArray& list, const Array& keys, const Scalar& needle, int64_t length) {
  std::vector<int64_t> at(static_cast<size_t>(length), -1);
  if (keys.encoding() == Encoding::kPrimitive && IsNumeric(keys.type().id)) {
    const auto& p = static_cast<const PrimitiveArray&>(keys);
    const Validity& valid = p.validity();
    VisitType(keys.type().id, [&]<typename T>(std::type_identity<T>) {
      const T x = needle.value<T>();
      const T* v = reinterpret_cast<const T*>(p.raw_values());
      WithOffsets(list, [&](const auto* o) {
        for (int64_t i = 0; i < length; ++i) {
          for (int64_t j = o[i], end = o[i + 1]; j < end; ++j) {
            if (Equal(v[j], x) && valid.IsValid(j)) {
              at[static_cast<size_t>(i)] = j;
              break;
            }
          }
        }
      });
    });
    return at;
  }
  if (keys.encoding() == Encoding::kString) {
    const auto& strings = static_cast<const StringArray&>(keys);
    const std::string_view x = needle.str();
    WithOffsets(list, [&](const auto* o) {
      for (int64_t i = 0; i < length; ++i) {
        for (int64_t j = o[i], end = o[i + 1]; j < end; ++j) {
          if (strings.Value(j) == x && !strings.IsNull(j)) {
            at[static_cast<size_t>(i)] = j;
            break;
          }
        }
      }
    });
    return at;
  }
  return std::nullopt;
}

Result<ArrayPtr> Found(const std::vector<int64_t>& at, const Validity& rows, const DataType& type, int64_t length) {
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr bits, AllocateBitmap(length));
  for (int64_t i = 0; i < length; ++i) kernels::SetBitTo(bits->mutable_data(), i, at[static_cast<size_t>(i)] >= 0);
  ROWJIT_ASSIGN_OR_RETURN(auto b, BoolArray::Make(length, std::move(bits), rows, 0, type.nullable));
  return ArrayPtr(std::move(b));
}

// list_sum, list_min, list_max, list_avg over a column of numbers: the order and widths of
// EvaluateListRow's (ir/functions_list.cc). kNulls: whether some element is null.
template <typename T, bool kNulls, typename O>
void FoldRows(ListOp op, const O* o, const T* v, const Validity& valid, int64_t length, const Validity& rows, Column& c,
              std::vector<int64_t>& failed) {
  for (int64_t i = 0; i < length; ++i) {
    int64_t count = 0;
    T best{};
    __int128 exact = 0;
    double total = 0;
    for (int64_t j = o[i], end = o[i + 1]; j < end; ++j) {
      if (kNulls && !valid.IsValid(j)) continue;
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
      c.Values<T>()[i] = best;
    } else if (op == ListOp::kAvg) {
      c.Values<double>()[i] = (std::is_floating_point_v<T> ? total : static_cast<double>(exact)) / static_cast<double>(count);
    } else if constexpr (std::is_floating_point_v<T>) {
      c.Values<double>()[i] = total;
    } else if (std::is_signed_v<T> ? exact >= INT64_MIN && exact <= INT64_MAX : exact <= static_cast<__int128>(UINT64_MAX)) {
      c.Values<int64_t>()[i] = static_cast<int64_t>(exact);  // u64's bits alike
    } else {
      if (rows.IsValid(i)) failed.push_back(i);  // overflow: null here, the error the whole expression's to raise
      continue;
    }
    c.Present(i);
  }
}

template <typename T>
Result<ArrayPtr> FoldNumbers(ListOp op, const ListArray& list, const Validity& rows, const PrimitiveArray& elements,
                             const DataType& type, int64_t length, std::vector<int64_t>& failed,
                             const std::shared_ptr<MemoryPool>& pool) {
  const T* v = reinterpret_cast<const T*>(elements.raw_values());
  const Validity& valid = elements.validity();
  ROWJIT_ASSIGN_OR_RETURN(Column c, Column::Make(length, ByteWidth(type.id), false, pool));
  WithOffsets(list, [&](const auto* o) {
    if (valid.all_valid()) {
      FoldRows<T, false>(op, o, v, valid, length, rows, c, failed);
    } else {
      FoldRows<T, true>(op, o, v, valid, length, rows, c, failed);
    }
  });
  return c.Finish(type, length, rows);
}

}  // namespace

Result<ArrayPtr> ListColumn(const Expr& call, const ListArray& list, std::span<const ArrayPtr> rest, int64_t length,
                            const std::shared_ptr<MemoryPool>& pool, std::vector<int64_t>& failed) {
  const ListOp op = *ListOpOf(*call.function());
  const DataType type = call.type();
  std::vector<Validity> each{list.validity()};
  for (const ArrayPtr& a : rest) each.push_back(ValidityOf(*a));
  ROWJIT_ASSIGN_OR_RETURN(const Validity rows, AndValidity(each, length));
  const Array& elements = *list.elements();
  switch (op) {
    case ListOp::kLen: return Lengths(list, rows, type, length, pool);
    case ListOp::kExtract:
      if (auto i = ConstantOf(rest[0])) return Extract(list, rows, i->is_null() ? 0 : i->value<int64_t>(), type, length, pool);
      break;
    case ListOp::kContains:
      if (auto x = ConstantOf(rest[0]); x && !x->is_null()) {
        if (auto at = FindFirst(list, elements, *x, length)) return Found(*at, rows, type, length);
      }
      break;
    case ListOp::kMapValue:
    case ListOp::kMapContains:
      if (auto k = ConstantOf(rest[0]); k && !k->is_null()) {
        const auto& entries = static_cast<const StructArray&>(elements);
        if (auto at = FindFirst(list, *entries.children()[0], *k, length)) {
          if (op == ListOp::kMapContains) return Found(*at, rows, type, length);
          return Gather(entries.children()[1], *at, type, length, rows, pool);
        }
      }
      break;
    case ListOp::kTransform:
    case ListOp::kFilter: break;  // lists, made by the evaluation's lambda step
    case ListOp::kSum:
    case ListOp::kMin:
    case ListOp::kMax:
    case ListOp::kAvg:
      if (elements.encoding() == Encoding::kPrimitive && IsNumeric(elements.type().id)) {
        return VisitType(elements.type().id, [&]<typename T>(std::type_identity<T>) {
          return FoldNumbers<T>(op, list, rows, static_cast<const PrimitiveArray&>(elements), type, length, failed, pool);
        });
      }
      break;
  }
  return ByRows(call, list, rest, length, failed);
}

}  // namespace rowjit::ir
