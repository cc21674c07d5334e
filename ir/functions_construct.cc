// Constructors (ir layer), with DuckDB's names and semantics: struct_pack(x := a, y := b) a struct
// of its arguments, list_value(a, b, c) (written [a, b, c]) a list of them, map(keys, values) a map
// of two lists' elements paired. None is null but map (where a list is); a null argument is a
// null field or element. The binder types them (a struct's field names are the call's); their rows
// are computed here, a column at a time and a row at a time (ir/construct.h).
#include <cstring>
#include <limits>
#include <string>

#include "ir/construct.h"
#include "ir/function_internal.h"
#include "kernels/bitmap.h"
#include "runtime/builder.h"
#include "runtime/selection.h"
#include "runtime/string_array.h"

namespace rowjit::ir {
namespace {

// struct_pack: the binder names the fields and types the call (BindStructPack, ir/binder.cc).
Result<DataType> StructRule(std::string_view name, std::span<const DataType> args, std::optional<TypeId>) {
  return internal::TypeMismatch(name, args, "named values, written struct_pack(x := a, y := b)");
}

// list_value: values of one type (the binder unifies numbers and rescales decimals), none nested;
// the list is never null and its elements may be (a null argument is a null element). Beside a
// date, time, timestamp or decimal, a value of its storage type is a null literal (the binder's
// logical rules refuse any other).
Result<DataType> ListRule(std::string_view name, std::span<const DataType> args, std::optional<TypeId>) {
  if (args.empty()) return internal::TypeMismatch(name, args, "one value or more");
  DataType elem = args[0];
  for (const DataType& t : args) {
    if (t.is_logical()) elem = t;
  }
  for (const DataType& t : args) {
    const bool null_literal = elem.is_logical() && !t.is_logical() && t.id == elem.id;
    if (IsNested(t.id) || !(t.SameType(elem) || null_literal)) {
      return internal::TypeMismatch(name, args, "values of one type, none of them nested: list_value(a, b, c) or [a, b, "
                                                "c] (cast a value to the others' type)");
    }
  }
  return DataType::List(elem.WithNullable(true));
}

// map(keys, values): a list of keys (numbers, bools, strings, dates, times, timestamps) and a
// list of values; nullable whatever its lists (a row that fails is null where its error is
// hidden, or left to the whole expression).
Result<DataType> MapRule(std::string_view name, std::span<const DataType> args, std::optional<TypeId>) {
  if (args.size() != 2 || args[0].id != TypeId::kList || args[1].id != TypeId::kList) {
    return internal::TypeMismatch(name, args, "a list of keys and a list of values: map(['a', 'b'], [x, y])");
  }
  return DataType::Map(ListElement(args[0]).WithNullable(false), ListElement(args[1]), true);
}

bool MapFails(std::span<const DataType>, DataType) { return true; }

Result<Scalar> EvalConstruct(std::span<const Scalar>, DataType, std::optional<TypeId>) {
  return Error(ErrorCode::kInternal, "a constructor's value is built as an array (ir/construct.h)");
}

const Function kConstructFunctions[] = {
    {.name = "struct_pack", .arg_names = {}, .variadic = true, .family = Family::kConstruct,
     .null_behavior = NullBehavior::kAware, .unify_from = -1, .type_rule = StructRule, .eval = EvalConstruct,
     .logical = LogicalArgs::kAny, .summary = "A struct of named values: struct_pack(x := a, y := b + 1).",
     .notes = "Never null; a null value is a null field (every field is nullable). A column or a struct's field "
              "passed bare names its field: struct_pack(a, s.b) has fields a and b. s.x of a struct_pack is its "
              "value x."},
    {.name = "list_value", .arg_names = {}, .variadic = true, .family = Family::kConstruct,
     .null_behavior = NullBehavior::kAware, .unify_from = 0, .type_rule = ListRule, .eval = EvalConstruct,
     .logical = LogicalArgs::kPassThrough, .summary = "A list of the values, in order: list_value(a, b, c), written [a, b, c].",
     .notes = "Never null; a null value is a null element. Numbers of different types are widened to one, as "
              "coalesce's are; the values are not nested."},
    {.name = "map", .arg_names = {"keys", "values"}, .family = Family::kConstruct, .can_fail = MapFails,
     .unify_from = -1, .type_rule = MapRule, .eval = EvalConstruct, .logical = LogicalArgs::kAny,
     .summary = "A map of a list of keys and a list of values paired in order: map(['a', 'b'], [x, y]).",
     .notes = "Null where either list is. An error where the lists' lengths differ, a key is null or a key "
              "repeats (DuckDB's)."},
};

// Whether a row's keys and values make a map: the map's error otherwise.
Status CheckMapRow(const Array& keys, int64_t kb, int64_t ke, int64_t values) {
  if (ke - kb != values) {
    return MakeError(ErrorCode::kInvalidInput, "map: {} key{} and {} value{}: its lists pair in order, so their lengths "
                     "must be equal", ke - kb, ke - kb == 1 ? "" : "s", values, values == 1 ? "" : "s");
  }
  static const Function* eq = FindFunction("eq");
  for (int64_t j = kb; j < ke; ++j) {
    const Scalar k = keys.GetScalar(j);
    if (k.is_null()) return MakeError(ErrorCode::kInvalidInput, "map: a key is null");
    for (int64_t i = kb; i < j; ++i) {
      auto same = eq->eval(std::vector<Scalar>{keys.GetScalar(i), k}, DataType(TypeId::kBool), std::nullopt);
      if (same.ok() && same->value<bool>()) return MakeError(ErrorCode::kInvalidInput, "map: the key {} repeats", k.ToString());
    }
  }
  return Status::OK();
}

Result<BufferPtr> OffsetsOf(const std::vector<int64_t>& offsets, bool large, const std::shared_ptr<MemoryPool>& pool) {
  const int64_t width = large ? 8 : 4;
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr out, Buffer::Allocate(static_cast<int64_t>(offsets.size()) * width, pool));
  for (size_t i = 0; i < offsets.size(); ++i) {
    if (large) {
      reinterpret_cast<int64_t*>(out->mutable_data())[i] = offsets[i];
    } else {
      reinterpret_cast<int32_t*>(out->mutable_data())[i] = static_cast<int32_t>(offsets[i]);
    }
  }
  return out;
}

Result<ArrayPtr> Struct(const DataType& type, std::span<const ArrayPtr> args, int64_t length) {
  std::vector<ArrayPtr> children;
  for (const ArrayPtr& a : args) {
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr flat, Flat(a));
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr child, WithNullability(flat, true));
    children.push_back(std::move(child));
  }
  ROWJIT_ASSIGN_OR_RETURN(auto out, StructArray::Make(type, length, std::move(children), Validity::AllValid()));
  return ArrayPtr(std::move(out));
}

// list_value's elements: row i's are the arguments' values at i, in order.
Result<ArrayPtr> Interleaved(const DataType& elem, std::span<const ArrayPtr> args, int64_t length,
                             const std::shared_ptr<MemoryPool>& pool) {
  const auto k = static_cast<int64_t>(args.size());
  const int64_t n = length * k;
  bool primitive = ByteWidth(elem.id) > 0;
  for (const ArrayPtr& a : args) primitive = primitive && a->encoding() == Encoding::kPrimitive;
  if (primitive) {  // the values copied a row at a time; their validity element by element
    const int w = ByteWidth(elem.id);
    ROWJIT_ASSIGN_OR_RETURN(BufferPtr values, Buffer::Allocate(std::max<int64_t>(n * w, 1), pool));
    bool nulls = false;
    for (const ArrayPtr& a : args) nulls = nulls || a->NullCount() > 0;
    BufferPtr bits;
    if (nulls) {
      ROWJIT_ASSIGN_OR_RETURN(bits, AllocateBitmap(n));
    }
    for (int64_t j = 0; j < k; ++j) {
      const auto& p = static_cast<const PrimitiveArray&>(*args[static_cast<size_t>(j)]);
      const uint8_t* from = p.raw_values();
      uint8_t* to = values->mutable_data() + j * w;
      for (int64_t i = 0; i < length; ++i) std::memcpy(to + i * k * w, from + i * w, static_cast<size_t>(w));
      if (nulls) {
        for (int64_t i = 0; i < length; ++i) kernels::SetBitTo(bits->mutable_data(), i * k + j, p.validity().IsValid(i));
      }
    }
    Validity v = Validity::AllValid();
    if (nulls) {
      ROWJIT_ASSIGN_OR_RETURN(v, Validity::FromBitmap(std::move(bits), 0, n));
    }
    ROWJIT_ASSIGN_OR_RETURN(auto out, PrimitiveArray::Make(elem, n, std::move(values), std::move(v)));
    return ArrayPtr(std::move(out));
  }
  if (IsString(elem.id)) {
    std::vector<std::optional<std::string_view>> rows(static_cast<size_t>(n));
    for (int64_t j = 0; j < k; ++j) {
      for (int64_t i = 0; i < length; ++i) rows[static_cast<size_t>(i * k + j)] = StringAt(*args[static_cast<size_t>(j)], i);
    }
    ROWJIT_ASSIGN_OR_RETURN(auto out, MakeStringArray(elem, StringLayout::kOffsets32, rows));
    return ArrayPtr(std::move(out));
  }
  std::vector<Scalar> rows(static_cast<size_t>(n));
  for (int64_t j = 0; j < k; ++j) {
    for (int64_t i = 0; i < length; ++i) {
      const Scalar v = args[static_cast<size_t>(j)]->GetScalar(i);
      rows[static_cast<size_t>(i * k + j)] = v.is_null() ? Scalar::Null(elem.id).As(elem) : v.As(elem);
    }
  }
  return MakeArray(elem, rows);
}

Result<ArrayPtr> List(const DataType& type, std::span<const ArrayPtr> args, int64_t length,
                      const std::shared_ptr<MemoryPool>& pool) {
  std::vector<ArrayPtr> flat;
  for (const ArrayPtr& a : args) {
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr f, Flat(a));
    flat.push_back(std::move(f));
  }
  ROWJIT_ASSIGN_OR_RETURN(ArrayPtr elements, Interleaved(ListElement(type), flat, length, pool));
  const auto k = static_cast<int64_t>(args.size());
  const bool large = length * k > std::numeric_limits<int32_t>::max();
  std::vector<int64_t> offsets(static_cast<size_t>(length) + 1);
  for (int64_t i = 0; i <= length; ++i) offsets[static_cast<size_t>(i)] = i * k;
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr o, OffsetsOf(offsets, large, pool));
  ROWJIT_ASSIGN_OR_RETURN(auto out, ListArray::Make(type, length, large, std::move(o), std::move(elements), Validity::AllValid()));
  return ArrayPtr(std::move(out));
}

// map over `length` rows of two lists: each good row's keys and values taken in order.
Result<ArrayPtr> Map(const DataType& type, const ListArray& keys, const ListArray& values, int64_t length,
                     const std::shared_ptr<MemoryPool>& pool, std::vector<int64_t>& failed) {
  // The entries are taken by 32-bit element indices.
  if (keys.elements()->length() > UINT32_MAX || values.elements()->length() > UINT32_MAX) {
    return MakeError(ErrorCode::kUnsupported, "map: lists of more than 2^32 elements in a batch");
  }
  std::vector<uint32_t> key_rows, value_rows;
  std::vector<int64_t> offsets{0};
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr bits, AllocateBitmap(length));
  for (int64_t i = 0; i < length; ++i) {
    bool valid = !keys.IsNull(i) && !values.IsNull(i);
    if (valid && !CheckMapRow(*keys.elements(), keys.Start(i), keys.End(i), values.End(i) - values.Start(i)).ok()) {
      failed.push_back(i);
      valid = false;
    }
    kernels::SetBitTo(bits->mutable_data(), i, valid);
    if (valid) {
      for (int64_t j = keys.Start(i); j < keys.End(i); ++j) key_rows.push_back(static_cast<uint32_t>(j));
      for (int64_t j = values.Start(i); j < values.End(i); ++j) value_rows.push_back(static_cast<uint32_t>(j));
    }
    offsets.push_back(static_cast<int64_t>(key_rows.size()));
  }
  if (offsets.back() > std::numeric_limits<int32_t>::max()) {
    return MakeError(ErrorCode::kUnsupported, "map: more than 2^31 entries in a batch (a map's offsets are 32-bit)");
  }
  ROWJIT_ASSIGN_OR_RETURN(SelectionVector kp, SelectionVector::FromIndices(key_rows, keys.elements()->length()));
  ROWJIT_ASSIGN_OR_RETURN(SelectionVector vp, SelectionVector::FromIndices(value_rows, values.elements()->length()));
  ROWJIT_ASSIGN_OR_RETURN(ArrayPtr k, Take(*keys.elements(), kp, pool));
  ROWJIT_ASSIGN_OR_RETURN(k, WithNullability(k, false));
  ROWJIT_ASSIGN_OR_RETURN(ArrayPtr v, Take(*values.elements(), vp, pool));
  ROWJIT_ASSIGN_OR_RETURN(auto entries, StructArray::Make(ListElement(type), static_cast<int64_t>(key_rows.size()),
                                                          {std::move(k), std::move(v)}, Validity::AllValid()));
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr o, OffsetsOf(offsets, false, pool));
  ROWJIT_ASSIGN_OR_RETURN(Validity rows, Validity::FromBitmap(std::move(bits), 0, length));
  ROWJIT_ASSIGN_OR_RETURN(auto out, ListArray::Make(type, length, false, std::move(o), std::move(entries), std::move(rows)));
  return ArrayPtr(std::move(out));
}

}  // namespace

std::span<const Function> ConstructFunctions() { return kConstructFunctions; }

std::optional<ConstructOp> ConstructOpOf(const Function& f) {
  const Function* first = kConstructFunctions;
  if (&f < first || &f >= first + std::size(kConstructFunctions)) return std::nullopt;
  return static_cast<ConstructOp>(&f - first);
}

bool IsConstructor(const Expr& e) {
  return e.is_call() && e.function() != nullptr && e.function()->family == Family::kConstruct;
}

Result<ArrayPtr> ConstructRow(const Expr& call, std::span<const ArrayPtr> args) {
  const DataType type = call.type();
  switch (*ConstructOpOf(*call.function())) {
    case ConstructOp::kStruct: return Struct(type, args, 1);
    case ConstructOp::kList: {
      std::vector<Scalar> elements;
      for (const ArrayPtr& a : args) elements.push_back(a->GetScalar(0));
      const DataType elem = ListElement(type);
      for (Scalar& s : elements) s = s.is_null() ? Scalar::Null(elem.id).As(elem) : s.As(elem);
      ROWJIT_ASSIGN_OR_RETURN(ArrayPtr child, MakeArray(elem, elements));
      ROWJIT_ASSIGN_OR_RETURN(BufferPtr o, OffsetsOf({0, child->length()}, false, nullptr));
      ROWJIT_ASSIGN_OR_RETURN(auto out, ListArray::Make(type, 1, false, std::move(o), std::move(child), Validity::AllValid()));
      return ArrayPtr(std::move(out));
    }
    case ConstructOp::kMap: {
      if (args[0]->encoding() != Encoding::kList || args[1]->encoding() != Encoding::kList) {
        return MakeError(ErrorCode::kInvalidInput, "map reads two lists, given as {} and {} arrays",
                         EncodingName(args[0]->encoding()), EncodingName(args[1]->encoding()));
      }
      const auto& keys = static_cast<const ListArray&>(*args[0]);
      const auto& values = static_cast<const ListArray&>(*args[1]);
      if (!keys.IsNull(0) && !values.IsNull(0)) {
        ROWJIT_RETURN_NOT_OK(CheckMapRow(*keys.elements(), keys.Start(0), keys.End(0), values.End(0) - values.Start(0)));
      }
      std::vector<int64_t> failed;
      return Map(type, keys, values, 1, nullptr, failed);
    }
  }
  return MakeError(ErrorCode::kInternal, "an unknown constructor");
}

Result<ArrayPtr> ConstructColumn(const Expr& call, std::span<const ArrayPtr> args, int64_t length,
                                 const std::shared_ptr<MemoryPool>& pool, std::vector<int64_t>& failed) {
  const DataType type = call.type();
  switch (*ConstructOpOf(*call.function())) {
    case ConstructOp::kStruct: return Struct(type, args, length);
    case ConstructOp::kList: return List(type, args, length, pool);
    case ConstructOp::kMap:
      if (args[0]->encoding() != Encoding::kList || args[1]->encoding() != Encoding::kList) {
        return MakeError(ErrorCode::kInvalidInput, "map reads two lists, given as {} and {} arrays",
                         EncodingName(args[0]->encoding()), EncodingName(args[1]->encoding()));
      }
      return Map(type, static_cast<const ListArray&>(*args[0]), static_cast<const ListArray&>(*args[1]), length, pool,
                 failed);
  }
  return MakeError(ErrorCode::kInternal, "an unknown constructor");
}

}  // namespace rowjit::ir
