// String functions over utf8 and binary (ir layer): lengths and predicates. Bytes compare
// bytewise (PostgreSQL's C collation, DuckDB's default); `like` and `ilike` follow
// kernels/strings.h (`_` is one code point of utf8, one byte of binary).
#include "ir/function_internal.h"
#include "kernels/strings.h"

namespace rowjit::ir {
namespace {

const uint8_t* Bytes(std::string_view s) { return reinterpret_cast<const uint8_t*>(s.data()); }

// One string argument; the result `result` (strict nullability).
template <TypeId kResult, bool kUtf8Only>
Result<DataType> OneString(std::string_view n, std::span<const DataType> a, std::optional<TypeId>) {
  if (kUtf8Only ? a[0].id != TypeId::kUtf8 : !IsString(a[0].id)) {
    return internal::TypeMismatch(n, a, kUtf8Only ? "expects utf8" : "expects utf8 or binary");
  }
  return DataType(kResult, a[0].nullable);
}

// Two strings of one type (utf8 or binary); the result bool.
Result<DataType> TwoStrings(std::string_view n, std::span<const DataType> a, std::optional<TypeId>) {
  return internal::SameType(n, a, IsString, "expects two utf8 or two binary arguments", true);
}

Result<Scalar> Length(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return Scalar::Of<int64_t>(static_cast<int64_t>(a[0].str().size()));
}
Result<Scalar> CharLength(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return Scalar::Of<int64_t>(kernels::CountCodePoints(Bytes(a[0].str()), a[0].str().size()));
}
Result<Scalar> StartsWith(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return Scalar::Of(a[0].str().starts_with(a[1].str()));
}
Result<Scalar> EndsWith(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return Scalar::Of(a[0].str().ends_with(a[1].str()));
}
Result<Scalar> Contains(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return Scalar::Of(a[0].str().find(a[1].str()) != std::string_view::npos);
}
template <bool kFoldCase>
Result<Scalar> Like(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  const std::string_view s = a[0].str(), p = a[1].str();
  return Scalar::Of(kernels::LikeMatch(Bytes(s), s.size(), Bytes(p), p.size(),
                                       a[0].type_id() == TypeId::kUtf8, kFoldCase));
}

const Function kFunctions[] = {
    {.name = "length", .arg_names = {"s"}, .family = Family::kString, .decode_cost = 1,
     .type_rule = OneString<TypeId::kI64, false>, .eval = Length},
    {.name = "char_length", .arg_names = {"s"}, .family = Family::kString, .decode_cost = 2,
     .type_rule = OneString<TypeId::kI64, true>, .eval = CharLength},
    {.name = "starts_with", .arg_names = {"s", "prefix"}, .family = Family::kString,
     .decode_cost = 1, .type_rule = TwoStrings, .eval = StartsWith},
    {.name = "ends_with", .arg_names = {"s", "suffix"}, .family = Family::kString,
     .decode_cost = 1, .type_rule = TwoStrings, .eval = EndsWith},
    {.name = "contains", .arg_names = {"s", "needle"}, .family = Family::kString,
     .decode_cost = 2, .type_rule = TwoStrings, .eval = Contains},
    {.name = "like", .arg_names = {"s", "pattern"}, .family = Family::kString, .decode_cost = 2,
     .type_rule = TwoStrings, .eval = Like<false>},
    {.name = "ilike", .arg_names = {"s", "pattern"}, .family = Family::kString, .decode_cost = 2,
     .type_rule = TwoStrings, .eval = Like<true>},
};

}  // namespace

std::span<const Function> StringFunctions() { return kFunctions; }

}  // namespace rowjit::ir
