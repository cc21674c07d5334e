// Type names, type parsing and scalar printing (runtime layer).
#include "runtime/types.h"

#include <cmath>

namespace rowjit {

std::string_view TypeIdName(TypeId id) {
  switch (id) {
    case TypeId::kBool: return "bool";
    case TypeId::kI8: return "i8";
    case TypeId::kI16: return "i16";
    case TypeId::kI32: return "i32";
    case TypeId::kI64: return "i64";
    case TypeId::kU8: return "u8";
    case TypeId::kU16: return "u16";
    case TypeId::kU32: return "u32";
    case TypeId::kU64: return "u64";
    case TypeId::kF32: return "f32";
    case TypeId::kF64: return "f64";
    case TypeId::kUtf8: return "utf8";
    case TypeId::kBinary: return "binary";
  }
  return "?";
}

std::string_view StringLayoutName(StringLayout layout) {
  switch (layout) {
    case StringLayout::kOffsets32: return "offsets32";
    case StringLayout::kOffsets64: return "offsets64";
    case StringLayout::kViews: return "views";
  }
  return "?";
}

std::string StringTypeName(TypeId id, StringLayout layout) {
  const std::string base(TypeIdName(id));
  switch (layout) {
    case StringLayout::kOffsets32: return base;
    case StringLayout::kOffsets64: return "large_" + base;
    case StringLayout::kViews: return base + "_view";
  }
  return base;
}

std::string DataType::ToString() const {
  std::string s(TypeIdName(id));
  if (nullable) s += '?';
  return s;
}

Result<DataType> ParseDataType(std::string_view text) {
  bool nullable = false;
  if (!text.empty() && text.back() == '?') {
    nullable = true;
    text.remove_suffix(1);
  }
  for (TypeId id : kAllTypeIds) {
    if (TypeIdName(id) == text) return DataType(id, nullable);
  }
  if (text == "utf8" || text == "string") return DataType(TypeId::kUtf8, nullable);
  if (text == "binary") return DataType(TypeId::kBinary, nullable);
  return MakeError(ErrorCode::kTypeError,
                   "unknown type '{}' (expected bool, i8..i64, u8..u64, f32, f64, utf8 or "
                   "binary, with '?' for nullable)",
                   text);
}

Scalar Scalar::String(std::string_view bytes, TypeId id) {
  Scalar s;
  s.type_ = DataType(IsString(id) ? id : TypeId::kUtf8, false);
  s.is_null_ = false;
  s.str_ = std::make_shared<const std::string>(bytes);
  return s;
}

std::string QuoteString(std::string_view bytes) {
  std::string out = "'";
  for (char c : bytes) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

Scalar Scalar::FromBits(TypeId id, uint64_t bits) {
  Scalar s;
  s.type_ = DataType(id, false);
  s.is_null_ = false;
  const int width = BitWidth(id);
  s.bits_ = width >= 64 ? bits : bits & ((uint64_t{1} << width) - 1);
  return s;
}

namespace {
template <typename F>
std::string FloatText(F v) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  // Shortest text that reads back to the same value; always shows it is a float.
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}
}  // namespace

std::string Scalar::ToString() const {
  if (is_null_) return fmt::format("null:{}", TypeIdName(type_.id));
  if (type_.id == TypeId::kUtf8) return QuoteString(str());
  if (type_.id == TypeId::kBinary) return QuoteString(str()) + ":binary";
  return VisitType(type_.id, [&]<typename T>(std::type_identity<T>) -> std::string {
    if constexpr (std::is_same_v<T, bool>) {
      return value<bool>() ? "true" : "false";
    } else if constexpr (std::is_floating_point_v<T>) {
      return fmt::format("{}:{}", FloatText(value<T>()), TypeIdName(type_.id));
    } else {
      return fmt::format("{}:{}", value<T>(), TypeIdName(type_.id));
    }
  });
}

}  // namespace rowjit
