// Type names, type parsing and scalar printing (runtime layer).
#include "runtime/types.h"

#include <cmath>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

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
    case TypeId::kI128: return "i128";
    case TypeId::kFixedList: return "fixed_size_list";
    case TypeId::kF16: return "f16";
    case TypeId::kBF16: return "bf16";
    case TypeId::kStruct: return "struct";
    case TypeId::kList: return "list";
    case TypeId::kMap: return "map";
  }
  return "?";
}

std::string_view TimeUnitName(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kDay: return "day";
    case TimeUnit::kSecond: return "s";
    case TimeUnit::kMilli: return "ms";
    case TimeUnit::kMicro: return "us";
    case TimeUnit::kNano: return "ns";
  }
  return "?";
}

int64_t UnitsPerDay(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kDay: return 1;
    case TimeUnit::kSecond: return 86'400;
    case TimeUnit::kMilli: return 86'400'000;
    case TimeUnit::kMicro: return 86'400'000'000;
    case TimeUnit::kNano: return 86'400'000'000'000;
  }
  return 1;
}

namespace {

// The interned zone names: index + 1 is the zone's number. Never shrinks, so views stay valid.
struct ZoneTable {
  std::mutex mu;
  std::vector<std::unique_ptr<const std::string>> names;
};
ZoneTable& Zones() {
  static ZoneTable* table = new ZoneTable;  // never destroyed: names outlive every DataType
  return *table;
}

}  // namespace

Result<uint16_t> InternTimeZone(std::string_view name) {
  if (name.empty()) return uint16_t{0};
  if (name.size() > 64) {
    return MakeError(ErrorCode::kInvalidInput, "time zone name of {} bytes (at most 64)", name.size());
  }
  for (char c : name) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f || c == ',' || c == ')') {
      return MakeError(ErrorCode::kInvalidInput, "time zone name {} has a byte a zone name cannot have",
                       QuoteString(name));
    }
  }
  ZoneTable& t = Zones();
  std::lock_guard lock(t.mu);
  for (size_t i = 0; i < t.names.size(); ++i) {
    if (*t.names[i] == name) return static_cast<uint16_t>(i + 1);
  }
  if (t.names.size() >= 65535) {
    return MakeError(ErrorCode::kInvalidInput, "more than 65,535 distinct time zone names");
  }
  t.names.push_back(std::make_unique<const std::string>(name));
  return static_cast<uint16_t>(t.names.size());
}

std::string_view TimeZoneName(uint16_t tz) {
  if (tz == 0) return {};
  ZoneTable& t = Zones();
  std::lock_guard lock(t.mu);
  return tz <= t.names.size() ? std::string_view(*t.names[tz - 1]) : std::string_view();
}

Result<DataType> DataType::Decimal(int precision, int scale, TypeId storage) {
  const int max = storage == TypeId::kI32 ? 9 : storage == TypeId::kI64 ? 18 : storage == TypeId::kI128 ? 38 : 0;
  if (max == 0) return MakeError(ErrorCode::kTypeError, "a decimal is stored in i32, i64 or i128, not {}", TypeIdName(storage));
  if (precision < 1 || precision > max) {
    return MakeError(ErrorCode::kUnsupported, "decimal precision {} (a {}-bit decimal has 1 to {} digits)",
                     precision, ByteWidth(storage) * 8, max);
  }
  if (scale < 0 || scale > precision) {
    return MakeError(ErrorCode::kUnsupported, "decimal scale {} (0 to the precision, {}, is supported)", scale, precision);
  }
  DataType t(storage);
  t.logical = LogicalKind::kDecimal;
  t.precision = static_cast<uint8_t>(precision);
  t.scale = static_cast<uint8_t>(scale);
  return t;
}

Result<DataType> DataType::Temporal(LogicalKind kind, TimeUnit unit, uint16_t tz) {
  TypeId storage = TypeId::kI64;
  bool ok = true;
  switch (kind) {
    case LogicalKind::kDate:
      ok = unit == TimeUnit::kDay || unit == TimeUnit::kMilli;
      storage = unit == TimeUnit::kDay ? TypeId::kI32 : TypeId::kI64;
      break;
    case LogicalKind::kTime:
      ok = unit != TimeUnit::kDay;
      storage = unit == TimeUnit::kSecond || unit == TimeUnit::kMilli ? TypeId::kI32 : TypeId::kI64;
      break;
    case LogicalKind::kTimestamp: case LogicalKind::kDuration: ok = unit != TimeUnit::kDay; break;
    default: ok = false;
  }
  if (!ok || (tz != 0 && kind != LogicalKind::kTimestamp)) {
    return MakeError(ErrorCode::kTypeError, "no temporal type of that kind in unit {}", TimeUnitName(unit));
  }
  DataType t(storage);
  t.logical = kind;
  t.unit = static_cast<uint8_t>(unit);
  t.tz = tz;
  return t;
}

DataType DataType::Interval(IntervalUnit unit) {
  DataType t(unit == IntervalUnit::kMonths ? TypeId::kI32 : unit == IntervalUnit::kDayTime ? TypeId::kI64 : TypeId::kI128);
  t.logical = LogicalKind::kInterval;
  t.unit = static_cast<uint8_t>(unit);
  return t;
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

namespace {

std::string LogicalName(const DataType& t) {
  if (t.id == TypeId::kFixedList) return fmt::format("fixed_size_list<{}, {}>", TypeIdName(t.elem), t.list_size);
  if (t.id == TypeId::kStruct) {
    std::string out = "struct<";
    for (const StructField& f : StructFields(t)) {
      out += fmt::format("{}{}:{}", out.size() > 7 ? ", " : "", f.name, f.type.ToString());
    }
    return out + ">";
  }
  if (t.id == TypeId::kList) return fmt::format("list<{}>", StructFields(t).at(0).type.ToString());
  if (t.id == TypeId::kMap) {
    const std::vector<StructField>& kv = StructFields(t);
    return fmt::format("map<{}, {}>", kv.at(0).type.ToString(), kv.at(1).type.ToString());
  }
  switch (t.logical) {
    case LogicalKind::kNone: break;
    case LogicalKind::kDecimal: {
      const char* prefix = t.id == TypeId::kI32 ? "decimal32" : t.id == TypeId::kI64 ? "decimal64" : "decimal";
      return fmt::format("{}({},{})", prefix, t.precision, t.scale);
    }
    case LogicalKind::kDate: return t.time_unit() == TimeUnit::kDay ? "date32" : "date64";
    case LogicalKind::kTime:
      return fmt::format("time{}({})", t.id == TypeId::kI32 ? 32 : 64, TimeUnitName(t.time_unit()));
    case LogicalKind::kTimestamp:
      if (t.tz != 0) return fmt::format("timestamp({}, {})", TimeUnitName(t.time_unit()), TimeZoneName(t.tz));
      return fmt::format("timestamp({})", TimeUnitName(t.time_unit()));
    case LogicalKind::kDuration: return fmt::format("duration({})", TimeUnitName(t.time_unit()));
    case LogicalKind::kInterval:
      switch (static_cast<IntervalUnit>(t.unit)) {
        case IntervalUnit::kMonths: return "interval_months";
        case IntervalUnit::kDayTime: return "interval_day_time";
        case IntervalUnit::kMonthDayNano: return "interval_month_day_nano";
      }
  }
  return std::string(TypeIdName(t.id));
}

}  // namespace

std::string DataType::ToString() const {
  std::string s = LogicalName(*this);
  if (nullable) s += '?';
  return s;
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

Result<DataType> DataType::FixedList(TypeId elem, int64_t size, bool nullable) {
  if (!IsNumeric(elem) && !IsHalfWidthFloat(elem)) {
    return MakeError(ErrorCode::kTypeError, "a fixed_size_list holds numbers (i8..i64, u8..u64, f16, bf16, f32, f64), not {}",
                     TypeIdName(elem));
  }
  if (size < 1 || size > kMaxListSize) {
    return MakeError(ErrorCode::kUnsupported, "a fixed_size_list holds 1 to {} elements a row, not {}", kMaxListSize, size);
  }
  DataType t(TypeId::kFixedList, nullable);
  t.elem = elem;
  t.list_size = static_cast<int32_t>(size);
  return t;
}

namespace {

// The interned field lists of struct types: number i + 1 is lists[i].
struct FieldTable {
  std::mutex mu;
  std::vector<std::unique_ptr<const std::vector<StructField>>> lists;
};
FieldTable& Fields() {
  static FieldTable* table = new FieldTable;  // never destroyed: types outlive static destructors
  return *table;
}

// The number of an interned field list (a new number for a list not seen before).
Result<uint32_t> InternFields(const std::vector<StructField>& fields) {
  FieldTable& t = Fields();
  std::lock_guard lock(t.mu);
  size_t at = 0;
  while (at < t.lists.size() && *t.lists[at] != fields) ++at;
  if (at == t.lists.size()) {
    if (t.lists.size() >= (size_t{1} << 20)) return MakeError(ErrorCode::kUnsupported, "more than 2^20 distinct nested types");
    t.lists.push_back(std::make_unique<const std::vector<StructField>>(fields));
  }
  return static_cast<uint32_t>(at + 1);
}

}  // namespace

Result<DataType> DataType::Struct(const std::vector<StructField>& fields, bool nullable) {
  if (fields.empty() || fields.size() > static_cast<size_t>(kMaxStructFields)) {
    return MakeError(ErrorCode::kUnsupported, "a struct has 1 to {} fields, not {}", kMaxStructFields, fields.size());
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name.empty()) return MakeError(ErrorCode::kInvalidInput, "a struct's field {} has no name", i);
    for (size_t j = 0; j < i; ++j) {
      if (fields[j].name == fields[i].name) {
        return MakeError(ErrorCode::kInvalidInput, "a struct names field '{}' twice", fields[i].name);
      }
    }
  }
  DataType type(TypeId::kStruct, nullable);
  ROWJIT_ASSIGN_OR_RETURN(type.fields, InternFields(fields));
  return type;
}

Result<DataType> DataType::List(const DataType& elem, bool nullable) {
  if (IsHalfWidthFloat(elem.id)) {
    return MakeError(ErrorCode::kTypeError, "{} is a vector's element type only: a list of f32", TypeIdName(elem.id));
  }
  DataType type(TypeId::kList, nullable);
  ROWJIT_ASSIGN_OR_RETURN(type.fields, InternFields({{"item", elem}}));
  return type;
}

Result<DataType> DataType::Map(const DataType& key, const DataType& value, bool nullable) {
  const bool keyable = (IsNumeric(key.id) || IsString(key.id) || key.id == TypeId::kBool) &&
                       (!key.is_logical() || key.logical == LogicalKind::kDate || key.logical == LogicalKind::kTime ||
                        key.logical == LogicalKind::kTimestamp);
  if (!keyable) {
    return MakeError(ErrorCode::kTypeError, "a map's keys are numbers, bools, strings, dates, times or timestamps, not {}",
                     key.ToString());
  }
  if (key.nullable) return MakeError(ErrorCode::kTypeError, "a map's keys are never null: map<{}, ...>", key.WithNullable(false).ToString());
  if (IsHalfWidthFloat(value.id)) return MakeError(ErrorCode::kTypeError, "{} is a vector's element type only", TypeIdName(value.id));
  DataType type(TypeId::kMap, nullable);
  ROWJIT_ASSIGN_OR_RETURN(type.fields, InternFields({{"key", key}, {"value", value}}));
  return type;
}

DataType ListElement(const DataType& type) {
  if (type.id == TypeId::kList) return StructFields(type).at(0).type;
  DataType entries(TypeId::kStruct);  // a map's: the same two fields as a struct
  entries.fields = type.id == TypeId::kMap ? type.fields : 0;
  return entries;
}

const std::vector<StructField>& StructFields(const DataType& type) {
  static const std::vector<StructField> none;
  if (type.fields == 0) return none;
  FieldTable& t = Fields();
  std::lock_guard lock(t.mu);
  return type.fields <= t.lists.size() ? *t.lists[type.fields - 1] : none;
}

Scalar Scalar::Vector(DataType type, std::string_view element_bytes) {
  Scalar s;
  s.type_ = type.WithNullable(false);
  s.is_null_ = false;
  s.str_ = std::make_shared<const std::string>(element_bytes);
  return s;
}

Scalar Scalar::Struct(DataType type, std::string_view text) { return Vector(type, text); }

Scalar Scalar::Int128(__int128 value, DataType type) {
  Scalar s;
  s.type_ = type.WithNullable(false);
  s.is_null_ = false;
  const auto u = static_cast<unsigned __int128>(value);
  s.bits_ = static_cast<uint64_t>(u);
  s.hi_ = static_cast<uint64_t>(u >> 64);
  return s;
}

std::string Int128Text(__int128 v) { return DecimalText(v, 0); }

std::string DecimalText(__int128 unscaled, int scale) {
  char text[kMaxDecimalText];
  return std::string(text, WriteDecimalText(unscaled, scale, text));
}

char* WriteDecimalText(__int128 unscaled, int scale, char* at) {
  auto u = unscaled < 0 ? -static_cast<unsigned __int128>(unscaled) : static_cast<unsigned __int128>(unscaled);
  char digits[48];  // 39 digits at most, then zeros up to scale + 1 (scale <= 38)
  int n = 0;
  while (u > UINT64_MAX) {  // 128-bit division only for the digits above 64 bits
    digits[n++] = static_cast<char>('0' + static_cast<int>(u % 10));
    u /= 10;
  }
  auto low = static_cast<uint64_t>(u);
  do {
    digits[n++] = static_cast<char>('0' + low % 10);
    low /= 10;
  } while (low != 0);
  while (n <= scale) digits[n++] = '0';  // at least one digit before the point
  if (unscaled < 0) *at++ = '-';
  while (n > 0) {
    if (n == scale) *at++ = '.';
    *at++ = digits[--n];
  }
  return at;
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

float FloatOfBf16(uint16_t bits) {
  const uint32_t wide = uint32_t{bits} << 16;
  float f;
  std::memcpy(&f, &wide, 4);
  return f;
}

uint16_t Bf16Of(double value) {
  if (std::isnan(value)) return std::signbit(value) ? 0xFFC0 : 0x7FC0;
  if (value == 0 || std::isinf(value)) {
    const auto f = static_cast<float>(value);  // exact
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return static_cast<uint16_t>(bits >> 16);
  }
  // The value in units of the last place of its bfloat16 binade (8 significant bits; a float's
  // subnormals share one unit), rounded once, ties to even: both steps are exact in double.
  const int exponent = std::max(std::ilogb(value), -126);
  const double unit = std::ldexp(1.0, exponent - 7);
  const double rounded = std::nearbyint(value / unit) * unit;
  if (std::fabs(rounded) > 3.3895313892515355e38) return std::signbit(value) ? 0xFF80 : 0x7F80;  // past the largest
  const auto f = static_cast<float>(rounded);  // exact: a bfloat16 is a float
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return static_cast<uint16_t>(bits >> 16);
}

std::string VectorText(TypeId elem, std::string_view bytes) {
  std::string out = "[";
  const size_t width = static_cast<size_t>(ByteWidth(elem));
  for (size_t at = 0; width != 0 && at + width <= bytes.size(); at += width) {
    if (at != 0) out += ", ";
    if (elem == TypeId::kF16) {  // half precision: as the float it is (every half is one exactly)
      _Float16 h;
      std::memcpy(&h, bytes.data() + at, 2);
      out += FloatText(static_cast<float>(h));
      continue;
    }
    if (elem == TypeId::kBF16) {
      uint16_t b;
      std::memcpy(&b, bytes.data() + at, 2);
      out += FloatText(FloatOfBf16(b));
      continue;
    }
    VisitType(elem, [&]<typename T>(std::type_identity<T>) {
      T v;
      std::memcpy(&v, bytes.data() + at, sizeof(T));
      if constexpr (std::is_floating_point_v<T>) {
        out += FloatText(v);
      } else if constexpr (sizeof(T) == 1) {
        out += fmt::format("{}", static_cast<int>(v));
      } else {
        out += fmt::format("{}", v);
      }
    });
  }
  return out + "]";
}

std::string Scalar::ToString() const {
  if (type_.is_logical()) {
    const std::string type = type_.WithNullable(false).ToString();
    if (is_null_) return fmt::format("null:{}", type);
    if (type_.logical == LogicalKind::kDecimal) return fmt::format("{}:{}", DecimalText(int128(), type_.scale), type);
    return fmt::format("{}:{}", Int128Text(int128()), type);
  }
  if (type_.id == TypeId::kFixedList) {
    if (is_null_) return "null";
    return VectorText(type_.elem, str());
  }
  if (type_.id == TypeId::kStruct || type_.id == TypeId::kList || type_.id == TypeId::kMap) {
    return is_null_ ? "null" : std::string(str());  // a nested row's text
  }
  if (is_null_) return fmt::format("null:{}", TypeIdName(type_.id));
  if (type_.id == TypeId::kI128) return fmt::format("{}:i128", Int128Text(int128()));
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
