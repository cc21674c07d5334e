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
  }
  return "?";
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
  return MakeError(ErrorCode::kTypeError,
                   "unknown type '{}' (expected bool, i8..i64, u8..u64, f32 or f64, "
                   "with '?' for nullable)",
                   text);
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
