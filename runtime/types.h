// Logical types, their text names ("i32", "u8?", "f64") and typed scalars (runtime layer).
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "runtime/status.h"

namespace rowjit {

// Fixed-width types, then the variable-width byte strings: utf8 (text) and binary (any bytes).
// A string type is logical: the Arrow layout a string array uses (32- or 64-bit offsets, or
// 16-byte views) is the array's, not the type's (runtime/string_array.h).
// kI128 is storage only: 16-byte two's complement values (decimal128, interval_month_day_nano,
// exact wide sums); no row function computes on it.
// kFixedList is a vector: `list_size` elements of the number type `elem` a row, stored flat
// (Arrow's fixed_size_list); only the vector functions (ir/functions_vector.cc) read one.
// kF16 (IEEE half precision) and kBF16 (bfloat16: a float's upper 16 bits) are a vector's element
// types only, never a column's or a value's.
// kStruct is a row of named fields (Arrow's struct); only struct_field (s.x) reads one.
// kList is a row of any number of elements of one type (Arrow's list and large_list: as for
// strings, the offsets' width is the array's layout, not the type's); kMap a row of key-value
// entries (Arrow's map: a list of struct<key, value> rows, keys never null). Only the list and
// map functions (ir/functions_list.cc) read them.
enum class TypeId : uint8_t { kBool, kI8, kI16, kI32, kI64, kU8, kU16, kU32, kU64, kF32, kF64, kUtf8, kBinary, kI128, kFixedList, kF16, kStruct, kList, kMap, kBF16 };

// The fixed-width types: what VisitType, ByteWidth and flat buffers deal in.
inline constexpr TypeId kAllTypeIds[] = {TypeId::kBool, TypeId::kI8,  TypeId::kI16, TypeId::kI32,
                                         TypeId::kI64,  TypeId::kU8,  TypeId::kU16, TypeId::kU32,
                                         TypeId::kU64,  TypeId::kF32, TypeId::kF64};

// Bytes per element in a flat buffer; bool is bit-packed and strings vary: both report 0.
constexpr int ByteWidth(TypeId id) {
  switch (id) {
    case TypeId::kBool: return 0;
    case TypeId::kI8: case TypeId::kU8: return 1;
    case TypeId::kI16: case TypeId::kU16: return 2;
    case TypeId::kI32: case TypeId::kU32: case TypeId::kF32: return 4;
    case TypeId::kI64: case TypeId::kU64: case TypeId::kF64: return 8;
    case TypeId::kUtf8: case TypeId::kBinary: return 0;
    case TypeId::kI128: return 16;
    case TypeId::kFixedList: return 0;
    case TypeId::kF16: case TypeId::kBF16: return 2;
    case TypeId::kStruct: case TypeId::kList: case TypeId::kMap: return 0;
  }
  return 0;
}
constexpr int BitWidth(TypeId id) { return id == TypeId::kBool ? 1 : ByteWidth(id) * 8; }
constexpr bool IsSignedInt(TypeId id) {
  return id == TypeId::kI8 || id == TypeId::kI16 || id == TypeId::kI32 || id == TypeId::kI64;
}
constexpr bool IsUnsignedInt(TypeId id) {
  return id == TypeId::kU8 || id == TypeId::kU16 || id == TypeId::kU32 || id == TypeId::kU64;
}
constexpr bool IsInteger(TypeId id) { return IsSignedInt(id) || IsUnsignedInt(id); }
constexpr bool IsFloat(TypeId id) { return id == TypeId::kF32 || id == TypeId::kF64; }
constexpr bool IsNumeric(TypeId id) { return IsInteger(id) || IsFloat(id); }
constexpr bool IsString(TypeId id) { return id == TypeId::kUtf8 || id == TypeId::kBinary; }
// Fixed-width storage a primitive array may hold: the numbers and the 16-byte kI128.
constexpr bool IsPrimitiveStorage(TypeId id) { return IsNumeric(id) || id == TypeId::kI128; }

std::string_view TypeIdName(TypeId id);

// The Arrow layout of a string column: 32-bit offsets (utf8, binary), 64-bit offsets
// (large_utf8, large_binary) or 16-byte views (utf8_view, binary_view).
enum class StringLayout : uint8_t { kOffsets32, kOffsets64, kViews };
std::string_view StringLayoutName(StringLayout layout);  // "offsets32", "offsets64", "views"
// The Arrow name of a string type in a layout: "utf8", "large_utf8", "binary_view", ...
std::string StringTypeName(TypeId id, StringLayout layout);
// `bytes` in SQL single quotes, each quote doubled: 'it''s'.
std::string QuoteString(std::string_view bytes);

// What a column's fixed-width values mean beyond their storage: Arrow's decimal and temporal
// types. Kernels compute on the storage (DataType::id); the binder owns the rules of each kind.
enum class LogicalKind : uint8_t { kNone, kDecimal, kDate, kTime, kTimestamp, kDuration, kInterval };
// Date: kDay (date32, i32) or kMilli (date64, i64). Time: kSecond/kMilli (time32, i32),
// kMicro/kNano (time64, i64). Timestamp and duration: any but kDay (i64).
enum class TimeUnit : uint8_t { kDay, kSecond, kMilli, kMicro, kNano };
// Interval storage: months (i32), days and milliseconds (two i32 in an i64: days low), months,
// days and nanoseconds (i32, i32, i64 in 16 bytes: kI128).
enum class IntervalUnit : uint8_t { kMonths, kDayTime, kMonthDayNano };

std::string_view TimeUnitName(TimeUnit unit);  // "day", "s", "ms", "us", "ns"
// Units in a day: 1 (kDay), 86,400 (kSecond), ... 86,400,000,000,000 (kNano).
int64_t UnitsPerDay(TimeUnit unit);

// A time zone name as a small number (0: none). Names are interned for the process's life;
// at most 65,535 distinct names (an error beyond), each at most 64 bytes.
Result<uint16_t> InternTimeZone(std::string_view name);
std::string_view TimeZoneName(uint16_t tz);

// A type and whether values of it may be null. Text: "i32" or "i32?"; logical types
// "decimal(12,2)", "date32", "timestamp(us, UTC)", ... (ParseDataType lists them).
struct DataType {
  TypeId id = TypeId::kI32;  // the storage
  bool nullable = false;
  LogicalKind logical = LogicalKind::kNone;
  uint8_t unit = 0;        // TimeUnit (date, time, timestamp, duration) or IntervalUnit
  uint8_t precision = 0;   // decimal: 1..38 digits
  uint8_t scale = 0;       // decimal: 0..precision digits after the point
  uint16_t tz = 0;         // timestamp: InternTimeZone's number, 0 without a zone
  TypeId elem = TypeId::kBool;  // fixed_size_list: the elements' number type
  int32_t list_size = 0;        // fixed_size_list: elements a row, 1..kMaxListSize
  uint32_t fields = 0;  // struct, list, map: its children, interned (StructFields); equal children, equal number

  DataType() = default;
  constexpr DataType(TypeId type_id, bool is_nullable = false) : id(type_id), nullable(is_nullable) {}  // NOLINT

  // decimal(precision, scale) over i32 (precision <= 9), i64 (<= 18) or kI128 (<= 38) storage.
  static Result<DataType> Decimal(int precision, int scale, TypeId storage = TypeId::kI128);
  // The temporal types; the storage follows from the kind and unit.
  static Result<DataType> Temporal(LogicalKind kind, TimeUnit unit, uint16_t tz = 0);
  static DataType Interval(IntervalUnit unit);
  // fixed_size_list<elem, size>: a vector of `size` numbers (any integer or float type, f16 or bf16)
  // a row.
  static Result<DataType> FixedList(TypeId elem, int64_t size, bool nullable = false);
  // struct<name:type, ...>: 1 to kMaxStructFields fields of distinct names.
  static Result<DataType> Struct(const std::vector<struct StructField>& fields, bool nullable = false);
  // list<elem>: any number of elements a row, each of type `elem` (not null unless `elem` is
  // nullable); any type but f16.
  static Result<DataType> List(const DataType& elem, bool nullable = false);
  // map<key, value>: entries of a key (a number, string, date, time or timestamp; never null) and
  // a value of any type but f16.
  static Result<DataType> Map(const DataType& key, const DataType& value, bool nullable = false);
  // Bytes of one row of a fixed_size_list.
  int64_t ListRowBytes() const { return int64_t{ByteWidth(elem)} * list_size; }

  bool is_logical() const { return logical != LogicalKind::kNone; }
  TimeUnit time_unit() const { return static_cast<TimeUnit>(unit); }
  // The storage alone (what kernels see), keeping the nullability.
  DataType Storage() const { return DataType(id, nullable); }
  DataType WithNullable(bool n) const {
    DataType t = *this;
    t.nullable = n;
    return t;
  }
  // Same type ignoring nullability.
  bool SameType(const DataType& o) const { return WithNullable(false) == o.WithNullable(false); }
  std::string ToString() const;
  bool operator==(const DataType&) const = default;
};

// One field of a struct type.
struct StructField {
  std::string name;
  DataType type;
  bool operator==(const StructField&) const = default;
};
// A struct type's fields, a list's one element field ("item"), a map's key and value fields
// (empty for any other type). Interned for the process's life: at most 2^20 distinct lists.
const std::vector<StructField>& StructFields(const DataType& type);
// The type of a list's elements; a map's entries, struct<key, value> (not null).
DataType ListElement(const DataType& type);
inline constexpr int kMaxStructFields = 4096;

// The most elements a fixed_size_list row holds (a 2^16-element vector of f64 is 512 KiB a row).
inline constexpr int64_t kMaxListSize = int64_t{1} << 16;

// Which type names a text may use: rowjit's alone (schemas, literal suffixes), or SQL's too
// (PostgreSQL's and DuckDB's, any case: the target of a cast in an expression).
enum class TypeNames : uint8_t { kRowjit, kSql };

// A type from its name (runtime/type_names.cc): rowjit's names ("i32", "u8?", "decimal(12,2)",
// "timestamp(us, Europe/Paris)", ...) and with kSql also SQL's ("bigint", "double precision",
// "numeric(12, 2)", "timestamp with time zone"). A zone is checked against the tz database
// (runtime/timezone.h) and may be quoted ('Europe/Paris'). Errors carry the span of the part of
// `text` they are about, and an unknown name or zone a suggestion when one is close:
//   kInvalidInput  unknown type name or time zone, malformed parameters
//   kUnsupported   a decimal precision or scale out of range (decimal(40,2))
//   kTypeError     a unit the type does not have (time32(us))
Result<DataType> ParseDataType(std::string_view text, TypeNames names = TypeNames::kRowjit);

// A 128-bit integer in decimal, and an unscaled decimal value with `scale` digits after the point
// ("-0.05" for -5 at scale 2).
std::string Int128Text(__int128 v);
std::string DecimalText(__int128 unscaled, int scale);
// DecimalText written at `at`, which has room for kMaxDecimalText bytes; returns the end (no
// allocation: what a column of them writes).
inline constexpr int kMaxDecimalText = 42;  // a sign, 39 digits or "0." and 38, the point
char* WriteDecimalText(__int128 unscaled, int scale, char* at);

// A vector's elements as a list literal: "[0.5, -1.0, 2.0]", "[1, -2, 3]" (each float the shortest
// text that reads back to it in its own type).
std::string VectorText(TypeId elem, std::string_view element_bytes);
// The nested types: vectors, structs, lists and maps (read and built outside row kernels).
constexpr bool IsNested(TypeId id) {
  return id == TypeId::kFixedList || id == TypeId::kStruct || id == TypeId::kList || id == TypeId::kMap;
}
// The element types only a vector holds: IEEE half precision and bfloat16.
constexpr bool IsHalfWidthFloat(TypeId id) { return id == TypeId::kF16 || id == TypeId::kBF16; }
// A bfloat16's value (exact: a float's upper 16 bits), and a double rounded once to the nearest
// bfloat16 (ties to even; past its range an infinity, NaN a quiet NaN).
float FloatOfBf16(uint16_t bits);
uint16_t Bf16Of(double value);

// C++ type of each TypeId (bool arrays are bit-packed; the scalar type is bool).
template <TypeId kId> struct CTypeOf;
template <> struct CTypeOf<TypeId::kBool> { using type = bool; };
template <> struct CTypeOf<TypeId::kI8> { using type = int8_t; };
template <> struct CTypeOf<TypeId::kI16> { using type = int16_t; };
template <> struct CTypeOf<TypeId::kI32> { using type = int32_t; };
template <> struct CTypeOf<TypeId::kI64> { using type = int64_t; };
template <> struct CTypeOf<TypeId::kU8> { using type = uint8_t; };
template <> struct CTypeOf<TypeId::kU16> { using type = uint16_t; };
template <> struct CTypeOf<TypeId::kU32> { using type = uint32_t; };
template <> struct CTypeOf<TypeId::kU64> { using type = uint64_t; };
template <> struct CTypeOf<TypeId::kF32> { using type = float; };
template <> struct CTypeOf<TypeId::kF64> { using type = double; };
template <TypeId kId> using CType = typename CTypeOf<kId>::type;

template <typename T> constexpr TypeId TypeIdOf();
template <> constexpr TypeId TypeIdOf<bool>() { return TypeId::kBool; }
template <> constexpr TypeId TypeIdOf<int8_t>() { return TypeId::kI8; }
template <> constexpr TypeId TypeIdOf<int16_t>() { return TypeId::kI16; }
template <> constexpr TypeId TypeIdOf<int32_t>() { return TypeId::kI32; }
template <> constexpr TypeId TypeIdOf<int64_t>() { return TypeId::kI64; }
template <> constexpr TypeId TypeIdOf<uint8_t>() { return TypeId::kU8; }
template <> constexpr TypeId TypeIdOf<uint16_t>() { return TypeId::kU16; }
template <> constexpr TypeId TypeIdOf<uint32_t>() { return TypeId::kU32; }
template <> constexpr TypeId TypeIdOf<uint64_t>() { return TypeId::kU64; }
template <> constexpr TypeId TypeIdOf<float>() { return TypeId::kF32; }
template <> constexpr TypeId TypeIdOf<double>() { return TypeId::kF64; }

// Calls fn(std::type_identity<T>{}) with the C++ type of `id`: the one type switch of the runtime.
// Fixed-width types only: callers test IsString and kI128 first (they reach the bool case).
template <typename Fn>
decltype(auto) VisitType(TypeId id, Fn&& fn) {
  switch (id) {
    case TypeId::kBool: return fn(std::type_identity<bool>{});
    case TypeId::kI8: return fn(std::type_identity<int8_t>{});
    case TypeId::kI16: return fn(std::type_identity<int16_t>{});
    case TypeId::kI32: return fn(std::type_identity<int32_t>{});
    case TypeId::kI64: return fn(std::type_identity<int64_t>{});
    case TypeId::kU8: return fn(std::type_identity<uint8_t>{});
    case TypeId::kU16: return fn(std::type_identity<uint16_t>{});
    case TypeId::kU32: return fn(std::type_identity<uint32_t>{});
    case TypeId::kU64: return fn(std::type_identity<uint64_t>{});
    case TypeId::kF32: return fn(std::type_identity<float>{});
    case TypeId::kF64: return fn(std::type_identity<double>{});
    case TypeId::kUtf8: case TypeId::kBinary: case TypeId::kI128: case TypeId::kFixedList: case TypeId::kF16:
    case TypeId::kStruct: case TypeId::kList: case TypeId::kMap: case TypeId::kBF16: break;
  }
  return fn(std::type_identity<bool>{});  // unreachable for the types callers may pass
}

// A typed value or a typed null. A fixed-width payload is kept as the value's bits,
// zero-extended; a string's bytes are shared (copying a scalar never copies them).
class Scalar {
 public:
  Scalar() = default;

  template <typename T>
  static Scalar Of(T value) {
    Scalar s;
    s.type_ = DataType(TypeIdOf<T>(), false);
    s.is_null_ = false;
    if constexpr (std::is_same_v<T, bool>) {
      s.bits_ = value ? 1 : 0;
    } else {
      std::memcpy(&s.bits_, &value, sizeof(T));
    }
    return s;
  }
  static Scalar Null(TypeId id) {
    Scalar s;
    s.type_ = DataType(id, true);
    s.is_null_ = true;
    return s;
  }
  // A value of `id` from raw bits (low ByteWidth bytes are used).
  static Scalar FromBits(TypeId id, uint64_t bits);
  // A utf8 or binary value.
  static Scalar String(std::string_view bytes, TypeId id = TypeId::kUtf8);
  // A 16-byte value of a kI128-stored type (decimal128, interval_month_day_nano).
  static Scalar Int128(__int128 value, DataType type);
  // A fixed_size_list value: `type.list_size` elements of `type.elem`, their bytes as stored.
  static Scalar Vector(DataType type, std::string_view element_bytes);
  // A struct row, held as its text ("{x: 1, y: 'a'}"): what printing and comparing a struct
  // column's rows need (no function computes on a struct value; s.x reads the field's column).
  static Scalar Struct(DataType type, std::string_view text);
  // This value (or null) as `type`, a logical type over the same storage.
  Scalar As(DataType type) const {
    Scalar s = *this;
    s.type_ = type.WithNullable(is_null_);
    return s;
  }

  DataType type() const { return type_; }
  TypeId type_id() const { return type_.id; }
  bool is_null() const { return is_null_; }
  uint64_t bits() const { return bits_; }
  // The value of a kI128-stored type; of another integer type, its value sign- or zero-extended.
  __int128 int128() const {
    if (type_.id == TypeId::kI128) return static_cast<__int128>((static_cast<unsigned __int128>(hi_) << 64) | bits_);
    if (IsSignedInt(type_.id)) {
      const int shift = 64 - BitWidth(type_.id);
      return static_cast<int64_t>(bits_ << shift) >> shift;
    }
    return static_cast<__int128>(bits_);
  }
  // A string value's bytes, or a vector's elements as stored (empty for other types).
  std::string_view str() const { return str_ ? std::string_view(*str_) : std::string_view(); }

  template <typename T>
  T value() const {
    if constexpr (std::is_same_v<T, bool>) {
      return bits_ != 0;
    } else {
      T v;
      std::memcpy(&v, &bits_, sizeof(T));
      return v;
    }
  }

  // A value of a logical type prints its storage's integer with the type, a decimal its digits:
  // "12.34:decimal(12,2)", "19000:date32".
  // "42:i32", "-1.5:f64", "true", "'it''s'", "'ab':binary", "null:i32". Parsed back by the
  // expression parser.
  std::string ToString() const;

  // Same type, same null state, same bits (so NaN payloads and -0.0 are distinguished).
  bool operator==(const Scalar& other) const {
    return type_.id == other.type_.id && is_null_ == other.is_null_ &&
           (is_null_ || (bits_ == other.bits_ && hi_ == other.hi_ && str() == other.str()));
  }

 private:
  DataType type_{TypeId::kI32, true};
  bool is_null_ = true;
  uint64_t bits_ = 0;
  uint64_t hi_ = 0;  // the high half of a kI128 value
  std::shared_ptr<const std::string> str_;
};

}  // namespace rowjit
