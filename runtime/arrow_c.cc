// Arrow C Data Interface import (checked, zero-copy, release exactly once) and export (runtime).
#include "runtime/arrow_c.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "runtime/string_array.h"

#include "kernels/bitmap.h"
#include "runtime/string_array.h"

namespace rowjit {

const char* ArrowFormat(TypeId id) {
  switch (id) {
    case TypeId::kBool: return "b";
    case TypeId::kI8: return "c";
    case TypeId::kU8: return "C";
    case TypeId::kI16: return "s";
    case TypeId::kU16: return "S";
    case TypeId::kI32: return "i";
    case TypeId::kU32: return "I";
    case TypeId::kI64: return "l";
    case TypeId::kU64: return "L";
    case TypeId::kF32: return "f";
    case TypeId::kF64: return "g";
    case TypeId::kUtf8: return "u";
    case TypeId::kBinary: return "z";
    case TypeId::kI128: return "";
    case TypeId::kFixedList: return "";  // "+w:N", with a child: not one format
    case TypeId::kF16: return "e";       // a vector's elements only
    case TypeId::kBF16: return "";       // no Arrow format
    case TypeId::kStruct: return "+s";   // with its children
    case TypeId::kList: return "+l";     // or "+L" (large_list): the array's layout
    case TypeId::kMap: return "+m";
  }
  return "";
}

namespace {

char UnitLetter(TimeUnit u) {
  switch (u) {
    case TimeUnit::kDay: return 'D';
    case TimeUnit::kSecond: return 's';
    case TimeUnit::kMilli: return 'm';
    case TimeUnit::kMicro: return 'u';
    case TimeUnit::kNano: return 'n';
  }
  return '?';
}

std::optional<TimeUnit> UnitOfLetter(char c) {
  for (TimeUnit u : {TimeUnit::kSecond, TimeUnit::kMilli, TimeUnit::kMicro, TimeUnit::kNano}) {
    if (UnitLetter(u) == c) return u;
  }
  return std::nullopt;
}

}  // namespace

std::string ArrowFormatOf(const DataType& t) {
  switch (t.logical) {
    case LogicalKind::kNone: return ArrowFormat(t.id);
    case LogicalKind::kDecimal:
      if (t.id == TypeId::kI128) return fmt::format("d:{},{}", t.precision, t.scale);
      return fmt::format("d:{},{},{}", t.precision, t.scale, ByteWidth(t.id) * 8);
    case LogicalKind::kDate: return t.time_unit() == TimeUnit::kDay ? "tdD" : "tdm";
    case LogicalKind::kTime: return fmt::format("tt{}", UnitLetter(t.time_unit()));
    case LogicalKind::kTimestamp: return fmt::format("ts{}:{}", UnitLetter(t.time_unit()), TimeZoneName(t.tz));
    case LogicalKind::kDuration: return fmt::format("tD{}", UnitLetter(t.time_unit()));
    case LogicalKind::kInterval: {
      const auto u = static_cast<IntervalUnit>(t.unit);
      return u == IntervalUnit::kMonths ? "tiM" : u == IntervalUnit::kDayTime ? "tiD" : "tin";
    }
  }
  return "";
}

const char* ArrowStringFormat(TypeId id, StringLayout layout) {
  const bool text = id == TypeId::kUtf8;
  switch (layout) {
    case StringLayout::kOffsets32: return text ? "u" : "z";
    case StringLayout::kOffsets64: return text ? "U" : "Z";
    case StringLayout::kViews: return text ? "vu" : "vz";
  }
  return "";
}

namespace {

constexpr int kMaxDepth = 16;

// The string type and layout a format names, if it names one.
std::optional<std::pair<TypeId, StringLayout>> StringFormat(const char* format) {
  for (TypeId id : {TypeId::kUtf8, TypeId::kBinary}) {
    for (StringLayout layout : {StringLayout::kOffsets32, StringLayout::kOffsets64, StringLayout::kViews}) {
      if (std::strcmp(format, ArrowStringFormat(id, layout)) == 0) return std::pair{id, layout};
    }
  }
  return std::nullopt;
}

// "d:P,S" (decimal128) or "d:P,S,BITS" (32, 64, 128).
Result<DataType> DecimalFromFormat(std::string_view f) {
  int fields[3] = {-1, -1, 128};  // precision, scale, bits
  const char* p = f.data() + 2;
  const char* end = f.data() + f.size();
  int n = 0;
  for (; n < 3; ++n) {
    const auto r = std::from_chars(p, end, fields[n]);
    if (r.ec != std::errc()) return MakeError(ErrorCode::kInvalidInput, "malformed decimal format '{}'", f);
    p = r.ptr;
    if (p == end || *p != ',') break;
    ++p;
  }
  if (p != end || n == 0) return MakeError(ErrorCode::kInvalidInput, "malformed decimal format '{}'", f);
  const int bits = fields[2];
  if (bits != 32 && bits != 64 && bits != 128) {
    return MakeError(ErrorCode::kUnsupported, "decimal of {} bits ('{}'; 32, 64 and 128 are supported)", bits, f);
  }
  return DataType::Decimal(fields[0], fields[1], bits == 32 ? TypeId::kI32 : bits == 64 ? TypeId::kI64 : TypeId::kI128);
}

// Dates, times, timestamps (with their zone), durations and intervals.
std::optional<Result<DataType>> TemporalFromFormat(std::string_view f) {
  if (f == "tdD") return DataType::Temporal(LogicalKind::kDate, TimeUnit::kDay);
  if (f == "tdm") return DataType::Temporal(LogicalKind::kDate, TimeUnit::kMilli);
  if (f == "tiM") return DataType::Interval(IntervalUnit::kMonths);
  if (f == "tiD") return DataType::Interval(IntervalUnit::kDayTime);
  if (f == "tin") return DataType::Interval(IntervalUnit::kMonthDayNano);
  if (f.size() == 3 && (f.starts_with("tt") || f.starts_with("tD"))) {
    auto unit = UnitOfLetter(f[2]);
    if (!unit) return std::nullopt;
    return DataType::Temporal(f[1] == 't' ? LogicalKind::kTime : LogicalKind::kDuration, *unit);
  }
  if (f.size() >= 4 && f.starts_with("ts") && f[3] == ':') {
    auto unit = UnitOfLetter(f[2]);
    if (!unit) return std::nullopt;
    auto tz = InternTimeZone(f.substr(4));
    if (!tz.ok()) return Result<DataType>(tz.status());
    return DataType::Temporal(LogicalKind::kTimestamp, *unit, *tz);
  }
  return std::nullopt;
}

// What a nested format is, for the error that refuses it (docs/embedding.md, "Nested types").
std::string NestedHint(std::string_view f) {
  const char* what = f == "+vl" || f == "+vL" ? "a list view"
                     : f == "+m"                ? "a map"
                     : f.starts_with("+u")      ? "a union"
                     : f == "+r"                ? "a run-end encoded array"
                                                : nullptr;
  if (what == nullptr) return "";
  if (f.starts_with("+u")) {
    return fmt::format(" ({}: a column has one type; pass the type ids and each child as columns of their own)", what);
  }
  return fmt::format(" ({}: of nested types, lists ('+l', '+L'), fixed-size lists of numbers ('+w:N'), structs ('+s') and "
                     "maps ('+m') are read)", what);
}

Result<DataType> TypeFromFormat(const char* format) {
  if (format == nullptr) return MakeError(ErrorCode::kInvalidInput, "ArrowSchema.format is null");
  // The plain types are one letter: compared by their letter (this runs for every column of
  // every batch a host imports).
  if (format[0] != '\0' && format[1] == '\0') {
    for (TypeId id : kAllTypeIds) {
      const char* f = ArrowFormat(id);
      if (f[0] == format[0] && f[1] == '\0') return DataType(id);
    }
  }
  if (auto string = StringFormat(format)) return DataType(string->first);
  const std::string_view f(format);
  if (f.starts_with("d:")) return DecimalFromFormat(f);
  if (auto t = TemporalFromFormat(f)) return *t;
  return MakeError(ErrorCode::kUnsupported, "unsupported Arrow format string '{}'{}", format, NestedHint(f));
}

// --- import -----------------------------------------------------------------------------------

// Owns a moved ArrowArray and releases it once, when the last buffer borrowing from it goes.
struct ImportedArray {
  ArrowArray array{};
  ImportedArray() = default;
  ImportedArray(const ImportedArray&) = delete;
  ImportedArray& operator=(const ImportedArray&) = delete;
  ~ImportedArray() {
    if (array.release != nullptr) array.release(&array);
  }
};

// Releases a moved ArrowSchema when import returns.
struct SchemaGuard {
  ArrowSchema schema{};
  SchemaGuard() = default;
  SchemaGuard(const SchemaGuard&) = delete;
  SchemaGuard& operator=(const SchemaGuard&) = delete;
  ~SchemaGuard() {
    if (schema.release != nullptr) schema.release(&schema);
  }
};

using Owner = std::shared_ptr<const void>;

Status CheckHeader(const ArrowArray& a, int64_t n_buffers, const char* what) {
  if (a.length < 0 || a.offset < 0) {
    return MakeError(ErrorCode::kInvalidInput, "{} array has negative length {} or offset {}",
                     what, a.length, a.offset);
  }
  // No host holds 2^40 rows of an array: a larger claim is a corrupt or hostile struct, refused
  // before any buffer is read against it.
  constexpr int64_t kMaxRows = int64_t{1} << 40;
  if (a.length > kMaxRows || a.offset > kMaxRows) {
    return MakeError(ErrorCode::kInvalidInput, "{} array claims length {} at offset {}; at most 2^40 rows",
                     what, a.length, a.offset);
  }
  if (a.offset > std::numeric_limits<int64_t>::max() / 16 - a.length) {
    return MakeError(ErrorCode::kInvalidInput, "{} array offset {} + length {} overflows", what,
                     a.offset, a.length);
  }
  if (a.null_count < -1 || a.null_count > a.length) {
    return MakeError(ErrorCode::kInvalidInput, "{} array has null_count {} for {} rows", what,
                     a.null_count, a.length);
  }
  if (a.n_buffers != n_buffers) {
    return MakeError(ErrorCode::kInvalidInput, "{} array has n_buffers {}, expected {}", what,
                     a.n_buffers, n_buffers);
  }
  if (n_buffers > 0 && a.buffers == nullptr) {
    return MakeError(ErrorCode::kInvalidInput, "{} array has a null buffers pointer", what);
  }
  return Status::OK();
}

Result<Validity> ImportValidity(const ArrowArray& a, const Owner& owner) {
  const void* bits = a.buffers[0];
  if (bits == nullptr) {
    if (a.null_count > 0) {
      return MakeError(ErrorCode::kInvalidInput,
                       "null_count is {} but the array has no validity bitmap", a.null_count);
    }
    return Validity::AllValid();
  }
  if (a.null_count == 0) return Validity::AllValid();
  auto buffer = Buffer::Borrow(bits, kernels::NumBytes(a.offset + a.length), owner);
  ROWJIT_ASSIGN_OR_RETURN(Validity v, Validity::FromBitmap(std::move(buffer), a.offset, a.length));
  const int64_t nulls = a.length - v.CountValid(a.length);
  if (a.null_count >= 0 && nulls != a.null_count) {
    return MakeError(ErrorCode::kInvalidInput,
                     "null_count is {} but the validity bitmap has {} nulls", a.null_count, nulls);
  }
  return v;
}

// A leaf array (no children): its validity, null rows refused unless the field is nullable.
Result<Validity> ImportLeafValidity(const ArrowArray& a, const ArrowSchema& s, const Owner& owner,
                                    const char* format) {
  if (a.n_children != 0 || s.n_children != 0) {
    return MakeError(ErrorCode::kInvalidInput, "a '{}' array has children", format);
  }
  ROWJIT_ASSIGN_OR_RETURN(Validity validity, ImportValidity(a, owner));
  if ((s.flags & ARROW_FLAG_NULLABLE) == 0 && !validity.all_valid()) {
    return MakeError(ErrorCode::kInvalidInput,
                     "field '{}' is not nullable (no ARROW_FLAG_NULLABLE) but has null rows",
                     s.name ? s.name : "");
  }
  return validity;
}

// The values buffer: required unless the array covers no element at all.
Result<BufferPtr> ImportValues(const ArrowArray& a, int64_t bytes, const Owner& owner) {
  const void* data = a.buffers[1];
  if (data == nullptr) {
    if (bytes > 0) return MakeError(ErrorCode::kInvalidInput, "values buffer is null");
    return Buffer::Allocate(0);
  }
  return Buffer::Borrow(data, bytes, owner);
}

Result<ArrayPtr> ImportNode(const ArrowArray& a, const ArrowSchema& s, const Owner& owner,
                            int depth);

Result<ArrayPtr> ImportFlat(const ArrowArray& a, const ArrowSchema& s, const Owner& owner,
                            DataType type) {
  const TypeId id = type.id;
  const char* format = s.format != nullptr ? s.format : "?";  // as the host wrote it, for messages
  ROWJIT_RETURN_NOT_OK(CheckHeader(a, 2, format));
  const bool nullable = (s.flags & ARROW_FLAG_NULLABLE) != 0;
  ROWJIT_ASSIGN_OR_RETURN(Validity validity, ImportLeafValidity(a, s, owner, format));
  if (id == TypeId::kBool) {
    ROWJIT_ASSIGN_OR_RETURN(BufferPtr bits,
                            ImportValues(a, kernels::NumBytes(a.offset + a.length), owner));
    ROWJIT_ASSIGN_OR_RETURN(auto arr, BoolArray::Make(a.length, std::move(bits),
                                                      std::move(validity), a.offset, nullable));
    return ArrayPtr(std::move(arr));
  }
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr values,
                          ImportValues(a, (a.offset + a.length) * ByteWidth(id), owner));
  ROWJIT_ASSIGN_OR_RETURN(auto arr, PrimitiveArray::Make(type.WithNullable(nullable), a.length,
                                                         std::move(values), std::move(validity),
                                                         a.offset));
  return ArrayPtr(std::move(arr));
}

// Offsets layouts: validity, offsets, data. The data buffer's size is what the last offset
// claims (the C interface carries no buffer sizes); StringArray checks the offsets against it.
Result<ArrayPtr> ImportOffsetStrings(const ArrowArray& a, DataType type, StringLayout layout,
                                     const Owner& owner, Validity validity) {
  const int64_t width = layout == StringLayout::kOffsets32 ? 4 : 8;
  if (a.buffers[1] == nullptr) {
    if (a.length > 0) return MakeError(ErrorCode::kInvalidInput, "string offsets buffer is null");
    ROWJIT_ASSIGN_OR_RETURN(auto zero, Buffer::Allocate(width));
    ROWJIT_ASSIGN_OR_RETURN(auto arr, StringArray::MakeOffsets(type, 0, layout, std::move(zero), nullptr,
                                                               std::move(validity)));
    return ArrayPtr(std::move(arr));
  }
  auto offsets = Buffer::Borrow(a.buffers[1], (a.offset + a.length + 1) * width, owner);
  int64_t end = 0;
  if (width == 4) {
    int32_t last;
    std::memcpy(&last, offsets->data() + (a.offset + a.length) * 4, 4);
    end = last;
  } else {
    std::memcpy(&end, offsets->data() + (a.offset + a.length) * 8, 8);
  }
  if (end < 0) return MakeError(ErrorCode::kInvalidInput, "string offset {} is negative", end);
  if (end > 0 && a.buffers[2] == nullptr) {
    return MakeError(ErrorCode::kInvalidInput, "string data buffer is null but offsets reach {}", end);
  }
  BufferPtr data = a.buffers[2] ? Buffer::Borrow(a.buffers[2], end, owner) : nullptr;
  ROWJIT_ASSIGN_OR_RETURN(auto arr, StringArray::MakeOffsets(type, a.length, layout, std::move(offsets),
                                                             std::move(data), std::move(validity),
                                                             a.offset));
  return ArrayPtr(std::move(arr));
}

// Views: validity, views, the variadic data buffers, then their sizes (int64 each).
Result<ArrayPtr> ImportViewStrings(const ArrowArray& a, DataType type, const Owner& owner,
                                   Validity validity) {
  const int64_t variadic = a.n_buffers - 3;
  if (a.buffers[1] == nullptr && a.length > 0) {
    return MakeError(ErrorCode::kInvalidInput, "string views buffer is null");
  }
  if (variadic > 0 && a.buffers[a.n_buffers - 1] == nullptr) {
    return MakeError(ErrorCode::kInvalidInput, "string view buffer sizes are missing");
  }
  const auto* sizes = static_cast<const uint8_t*>(a.buffers[a.n_buffers - 1]);
  std::vector<BufferPtr> buffers;
  for (int64_t i = 0; i < variadic; ++i) {
    int64_t size;
    std::memcpy(&size, sizes + i * 8, 8);
    if (size < 0 || (size > 0 && a.buffers[2 + i] == nullptr)) {
      return MakeError(ErrorCode::kInvalidInput, "string view data buffer {} has size {} and address {}",
                       i, size, a.buffers[2 + i]);
    }
    buffers.push_back(a.buffers[2 + i] ? Buffer::Borrow(a.buffers[2 + i], size, owner) : nullptr);
  }
  BufferPtr views;
  if (a.buffers[1] == nullptr) {
    ROWJIT_ASSIGN_OR_RETURN(views, Buffer::Allocate(0));
  } else {
    views = Buffer::Borrow(a.buffers[1], (a.offset + a.length) * kViewBytes, owner);
  }
  ROWJIT_ASSIGN_OR_RETURN(auto arr, StringArray::MakeViews(type, a.length, std::move(views),
                                                           std::move(buffers), std::move(validity),
                                                           a.offset));
  return ArrayPtr(std::move(arr));
}

Result<ArrayPtr> ImportStrings(const ArrowArray& a, const ArrowSchema& s, const Owner& owner,
                               TypeId id, StringLayout layout) {
  const char* format = ArrowStringFormat(id, layout);
  if (layout == StringLayout::kViews) {
    if (a.n_buffers < 3) {
      return MakeError(ErrorCode::kInvalidInput, "a '{}' array has n_buffers {}, expected 3 or more",
                       format, a.n_buffers);
    }
    ROWJIT_RETURN_NOT_OK(CheckHeader(a, a.n_buffers, format));
  } else {
    ROWJIT_RETURN_NOT_OK(CheckHeader(a, 3, format));
  }
  const bool nullable = (s.flags & ARROW_FLAG_NULLABLE) != 0;
  ROWJIT_ASSIGN_OR_RETURN(Validity validity, ImportLeafValidity(a, s, owner, format));
  const DataType type(id, nullable);
  if (layout == StringLayout::kViews) return ImportViewStrings(a, type, owner, std::move(validity));
  return ImportOffsetStrings(a, type, layout, owner, std::move(validity));
}

Result<ArrayPtr> ImportDictionary(const ArrowArray& a, const ArrowSchema& s, const Owner& owner,
                                  int depth) {
  if (a.dictionary == nullptr) {
    return MakeError(ErrorCode::kInvalidInput,
                     "dictionary-encoded array has no dictionary values (ArrowArray.dictionary "
                     "is null)");
  }
  ROWJIT_ASSIGN_OR_RETURN(DataType code_type, TypeFromFormat(s.format));
  if (!IsInteger(code_type.id) || code_type.is_logical()) {
    return MakeError(ErrorCode::kInvalidInput, "dictionary index format '{}' is not an integer",
                     s.format);
  }
  ROWJIT_ASSIGN_OR_RETURN(ArrayPtr codes, ImportFlat(a, s, owner, code_type));
  ROWJIT_ASSIGN_OR_RETURN(ArrayPtr values, ImportNode(*a.dictionary, *s.dictionary, owner,
                                                      depth + 1));
  ROWJIT_ASSIGN_OR_RETURN(
      auto dict,
      DictionaryArray::Make(std::static_pointer_cast<const PrimitiveArray>(codes), values));
  ROWJIT_RETURN_NOT_OK(dict->Validate());
  return ArrayPtr(std::move(dict));
}

// "+w:N": the list size N of a fixed_size_list format, or nullopt for another format.
std::optional<Result<int64_t>> FixedListSize(const char* format) {
  if (format == nullptr || std::strncmp(format, "+w:", 3) != 0) return std::nullopt;
  const std::string_view digits(format + 3);
  int64_t n = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size()) {
    return Result<int64_t>(MakeError(ErrorCode::kInvalidInput, "malformed fixed_size_list format '{}'", format));
  }
  return Result<int64_t>(n);
}

// The type of a fixed_size_list field: its one child's format gives the elements' type.
Result<DataType> FixedListType(const ArrowSchema& s, int64_t size) {
  if (s.n_children != 1 || s.children == nullptr || s.children[0] == nullptr) {
    return MakeError(ErrorCode::kInvalidInput, "a fixed_size_list schema ('{}') has {} children, not 1", s.format,
                     s.n_children);
  }
  const ArrowSchema& child = *s.children[0];
  if (child.dictionary != nullptr) {
    return MakeError(ErrorCode::kUnsupported, "a fixed_size_list of dictionary-encoded elements");
  }
  // Half precision ("e") is read as a vector's elements, never as a column.
  const bool half = child.format != nullptr && std::strcmp(child.format, "e") == 0;
  ROWJIT_ASSIGN_OR_RETURN(DataType elem, half ? Result<DataType>(DataType(TypeId::kF16)) : TypeFromFormat(child.format));
  if (!(IsNumeric(elem.id) || half) || elem.is_logical()) {
    return MakeError(ErrorCode::kUnsupported, "a fixed_size_list of {}: vectors hold numbers (i8..i64, u8..u64, f32, f64)",
                     elem.ToString());
  }
  return DataType::FixedList(elem.id, size);
}

enum class ListKind : uint8_t { kList, kLargeList, kMap };

// "+l" (list), "+L" (large_list), "+m" (map), or nullopt for another format.
std::optional<ListKind> ListFormat(const char* format) {
  if (format == nullptr) return std::nullopt;
  if (std::strcmp(format, "+l") == 0) return ListKind::kList;
  if (std::strcmp(format, "+L") == 0) return ListKind::kLargeList;
  if (std::strcmp(format, "+m") == 0) return ListKind::kMap;
  return std::nullopt;
}

bool FlaggedNullable(const ArrowSchema& c) {
  return ((c.flags | (c.dictionary ? c.dictionary->flags : 0)) & ARROW_FLAG_NULLABLE) != 0;
}

// The type of a field's schema, nested types included: a fixed_size_list's, a struct's (its
// children's, named as they are, nullable where flagged), a dictionary's values', or a format's.
Result<DataType> TypeOfSchema(const ArrowSchema& s, int depth = 0) {
  if (depth > kMaxDepth) return MakeError(ErrorCode::kInvalidInput, "Arrow schema nests too deep");
  const ArrowSchema& values = s.dictionary != nullptr ? *s.dictionary : s;
  if (auto size = FixedListSize(values.format)) {
    ROWJIT_ASSIGN_OR_RETURN(const int64_t n, std::move(*size));
    return FixedListType(values, n);
  }
  if (values.format != nullptr && std::strcmp(values.format, "+s") == 0) {
    if (values.n_children < 1 || values.children == nullptr) {
      return MakeError(ErrorCode::kInvalidInput, "a struct schema with {} children", values.n_children);
    }
    std::vector<StructField> fields;
    for (int64_t i = 0; i < values.n_children; ++i) {
      const ArrowSchema* c = values.children[i];
      if (c == nullptr) return MakeError(ErrorCode::kInvalidInput, "struct schema child {} is null", i);
      ROWJIT_ASSIGN_OR_RETURN(DataType t, TypeOfSchema(*c, depth + 1));
      const bool nullable = FlaggedNullable(*c);
      std::string name = c->name != nullptr ? c->name : "";
      if (name.empty()) name = fmt::format("f{}", i);
      fields.push_back({std::move(name), t.WithNullable(nullable)});
    }
    return DataType::Struct(fields);
  }
  if (auto list = ListFormat(values.format)) {
    if (values.n_children != 1 || values.children == nullptr || values.children[0] == nullptr) {
      return MakeError(ErrorCode::kInvalidInput, "a '{}' schema has {} children, not 1", values.format, values.n_children);
    }
    const ArrowSchema& c = *values.children[0];
    if (*list == ListKind::kMap) {
      if (c.format == nullptr || std::strcmp(c.format, "+s") != 0 || c.n_children != 2 || c.children == nullptr ||
          c.children[0] == nullptr || c.children[1] == nullptr) {
        return MakeError(ErrorCode::kInvalidInput, "a map's entries schema is a struct of 2 children (key, value)");
      }
      ROWJIT_ASSIGN_OR_RETURN(DataType key, TypeOfSchema(*c.children[0], depth + 1));
      ROWJIT_ASSIGN_OR_RETURN(DataType value, TypeOfSchema(*c.children[1], depth + 1));
      return DataType::Map(key.WithNullable(false), value.WithNullable(FlaggedNullable(*c.children[1])));
    }
    ROWJIT_ASSIGN_OR_RETURN(DataType elem, TypeOfSchema(c, depth + 1));
    return DataType::List(elem.WithNullable(FlaggedNullable(c)));
  }
  return TypeFromFormat(values.format);
}

// A fixed_size_list: the parent's validity, the child's elements (one flat buffer, read in place
// from the child's offset). Elements are not null in a vector: a child with a null among the
// elements the rows cover is refused.
Result<ArrayPtr> ImportFixedList(const ArrowArray& a, const ArrowSchema& s, const Owner& owner, int64_t size) {
  ROWJIT_ASSIGN_OR_RETURN(DataType type, FixedListType(s, size));
  ROWJIT_RETURN_NOT_OK(CheckHeader(a, 1, s.format));
  if (a.n_children != 1 || a.children == nullptr || a.children[0] == nullptr) {
    return MakeError(ErrorCode::kInvalidInput, "a fixed_size_list array has {} children, not 1", a.n_children);
  }
  ROWJIT_ASSIGN_OR_RETURN(Validity validity, ImportValidity(a, owner));
  const bool nullable = (s.flags & ARROW_FLAG_NULLABLE) != 0;
  if (!nullable && !validity.all_valid()) {
    return MakeError(ErrorCode::kInvalidInput, "field '{}' is not nullable (no ARROW_FLAG_NULLABLE) but has null rows",
                     s.name ? s.name : "");
  }
  const ArrowArray& c = *a.children[0];
  const char* child_format = s.children[0]->format;
  ROWJIT_RETURN_NOT_OK(CheckHeader(c, 2, child_format));
  if (c.n_children != 0 || c.dictionary != nullptr) {
    return MakeError(ErrorCode::kInvalidInput, "the elements of a fixed_size_list have children or a dictionary");
  }
  // Rows [0, offset + length) of the parent cover elements [0, (offset + length) * size) of the
  // child (2^40 rows and 2^16 elements at most: no overflow).
  const int64_t elements = (a.offset + a.length) * size;
  if (c.length < elements) {
    return MakeError(ErrorCode::kInvalidInput, "a fixed_size_list of {} rows at offset {} needs {} elements; its child has {}",
                     a.length, a.offset, elements, c.length);
  }
  if (c.null_count != 0 && c.buffers[0] != nullptr && elements > 0) {
    auto bits = Buffer::Borrow(c.buffers[0], kernels::NumBytes(c.offset + elements), owner);
    ROWJIT_ASSIGN_OR_RETURN(Validity v, Validity::FromBitmap(std::move(bits), c.offset, elements));
    if (v.CountValid(elements) != elements) {
      return MakeError(ErrorCode::kUnsupported, "a fixed_size_list with null elements (a vector's elements are numbers)");
    }
  }
  const int64_t width = ByteWidth(type.elem);
  BufferPtr values;
  if (c.buffers[1] == nullptr) {
    if (elements > 0) return MakeError(ErrorCode::kInvalidInput, "fixed_size_list elements buffer is null");
    ROWJIT_ASSIGN_OR_RETURN(values, Buffer::Allocate(0));
  } else {
    values = Buffer::Borrow(static_cast<const uint8_t*>(c.buffers[1]) + c.offset * width, elements * width, owner);
  }
  ROWJIT_ASSIGN_OR_RETURN(auto arr, FixedListArray::Make(type.WithNullable(nullable), a.length, std::move(values),
                                                         std::move(validity), a.offset));
  return ArrayPtr(std::move(arr));
}

// A struct column: the parent's validity and its children, each cut to the parent's rows.
Result<ArrayPtr> ImportStruct(const ArrowArray& a, const ArrowSchema& s, const Owner& owner, int depth) {
  ROWJIT_RETURN_NOT_OK(CheckHeader(a, 1, "+s"));
  if (a.n_children != s.n_children || a.n_children < 1 || a.children == nullptr || s.children == nullptr) {
    return MakeError(ErrorCode::kInvalidInput, "struct array has {} children, its schema {}", a.n_children, s.n_children);
  }
  ROWJIT_ASSIGN_OR_RETURN(Validity validity, ImportValidity(a, owner));
  const bool nullable = (s.flags & ARROW_FLAG_NULLABLE) != 0;
  if (!nullable && !validity.all_valid()) {
    return MakeError(ErrorCode::kInvalidInput, "field '{}' is not nullable (no ARROW_FLAG_NULLABLE) but has null rows",
                     s.name ? s.name : "");
  }
  std::vector<StructField> fields;
  std::vector<ArrayPtr> children;
  for (int64_t i = 0; i < a.n_children; ++i) {
    if (a.children[i] == nullptr || s.children[i] == nullptr) {
      return MakeError(ErrorCode::kInvalidInput, "struct child {} is null", i);
    }
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr child, ImportNode(*a.children[i], *s.children[i], owner, depth + 1));
    if (child->length() < a.offset + a.length) {
      return MakeError(ErrorCode::kInvalidInput, "struct child {} has {} rows, fewer than the parent's offset {} + length {}",
                       i, child->length(), a.offset, a.length);
    }
    ROWJIT_ASSIGN_OR_RETURN(child, child->Slice(a.offset, a.length));
    std::string name = s.children[i]->name != nullptr ? s.children[i]->name : "";
    if (name.empty()) name = fmt::format("f{}", i);
    fields.push_back({std::move(name), child->type()});
    children.push_back(std::move(child));
  }
  ROWJIT_ASSIGN_OR_RETURN(DataType type, DataType::Struct(fields, nullable));
  ROWJIT_ASSIGN_OR_RETURN(auto arr, StructArray::Make(type, a.length, std::move(children), std::move(validity)));
  return ArrayPtr(std::move(arr));
}

// A map's entries: a struct of a key (never null: a key field flagged nullable is read as not
// null, and refused if a key is) and a value, cut to the entries array's rows.
Result<ArrayPtr> ImportMapEntries(const ArrowArray& e, const ArrowSchema& es, const Owner& owner, int depth) {
  if (es.format == nullptr || std::strcmp(es.format, "+s") != 0) {
    return MakeError(ErrorCode::kInvalidInput, "a map's entries are a struct ('+s'), not '{}'", es.format ? es.format : "");
  }
  ROWJIT_RETURN_NOT_OK(CheckHeader(e, 1, "map entries"));
  if (e.n_children != 2 || es.n_children != 2 || e.children == nullptr || es.children == nullptr ||
      e.children[0] == nullptr || e.children[1] == nullptr || es.children[0] == nullptr || es.children[1] == nullptr) {
    return MakeError(ErrorCode::kInvalidInput, "a map's entries have {} children, not 2 (key, value)", e.n_children);
  }
  if (e.null_count != 0 && e.buffers[0] != nullptr) {
    ROWJIT_ASSIGN_OR_RETURN(Validity v, ImportValidity(e, owner));
    if (!v.all_valid() && v.CountValid(e.length) != e.length) return MakeError(ErrorCode::kInvalidInput, "a map has null entries");
  }
  ArrowSchema key_schema = *es.children[0];  // a copy read as not nullable (never released)
  key_schema.flags &= ~ARROW_FLAG_NULLABLE;
  std::vector<ArrayPtr> children;
  for (int i = 0; i < 2; ++i) {
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr child, ImportNode(*e.children[i], i == 0 ? key_schema : *es.children[i], owner, depth + 1));
    if (child->length() < e.offset + e.length) {
      return MakeError(ErrorCode::kInvalidInput, "a map's {} child has {} rows, fewer than its entries' offset {} + length {}",
                       i == 0 ? "key" : "value", child->length(), e.offset, e.length);
    }
    ROWJIT_ASSIGN_OR_RETURN(child, child->Slice(e.offset, e.length));
    children.push_back(std::move(child));
  }
  ROWJIT_ASSIGN_OR_RETURN(DataType map, DataType::Map(children[0]->type(), children[1]->type()));
  ROWJIT_ASSIGN_OR_RETURN(auto entries, StructArray::Make(ListElement(map), e.length, std::move(children), Validity::AllValid()));
  return ArrayPtr(std::move(entries));
}

// A list, large list or map: the parent's validity and offsets (read in place from the parent's
// offset), and its one child's elements, checked by ListArray::Make.
Result<ArrayPtr> ImportList(const ArrowArray& a, const ArrowSchema& s, const Owner& owner, int depth, ListKind kind) {
  ROWJIT_RETURN_NOT_OK(CheckHeader(a, 2, s.format));
  if (a.n_children != 1 || s.n_children != 1 || a.children == nullptr || s.children == nullptr ||
      a.children[0] == nullptr || s.children[0] == nullptr) {
    return MakeError(ErrorCode::kInvalidInput, "a '{}' array has {} children, not 1", s.format, a.n_children);
  }
  ROWJIT_ASSIGN_OR_RETURN(Validity validity, ImportValidity(a, owner));
  const bool nullable = (s.flags & ARROW_FLAG_NULLABLE) != 0;
  if (!nullable && !validity.all_valid()) {
    return MakeError(ErrorCode::kInvalidInput, "field '{}' is not nullable (no ARROW_FLAG_NULLABLE) but has null rows",
                     s.name ? s.name : "");
  }
  ArrayPtr elements;
  DataType type;
  if (kind == ListKind::kMap) {
    ROWJIT_ASSIGN_OR_RETURN(elements, ImportMapEntries(*a.children[0], *s.children[0], owner, depth));
    const std::vector<StructField>& kv = StructFields(elements->type());
    ROWJIT_ASSIGN_OR_RETURN(type, DataType::Map(kv[0].type, kv[1].type, nullable));
  } else {
    ROWJIT_ASSIGN_OR_RETURN(elements, ImportNode(*a.children[0], *s.children[0], owner, depth + 1));
    ROWJIT_ASSIGN_OR_RETURN(type, DataType::List(elements->type(), nullable));
  }
  const bool large = kind == ListKind::kLargeList;
  const int64_t bytes = (a.offset + a.length + 1) * (large ? 8 : 4);
  BufferPtr offsets;
  if (a.buffers[1] == nullptr) {  // no row, no offset: Arrow allows a null buffer
    if (a.length > 0) return MakeError(ErrorCode::kInvalidInput, "a '{}' array's offsets buffer is null", s.format);
    ROWJIT_ASSIGN_OR_RETURN(offsets, Buffer::Allocate(bytes));
    std::memset(offsets->mutable_data(), 0, static_cast<size_t>(bytes));
  } else {
    offsets = Buffer::Borrow(a.buffers[1], bytes, owner);
  }
  ROWJIT_ASSIGN_OR_RETURN(auto arr, ListArray::Make(type, a.length, large, std::move(offsets), std::move(elements),
                                                    std::move(validity), a.offset));
  return ArrayPtr(std::move(arr));
}

Result<ArrayPtr> ImportNode(const ArrowArray& a, const ArrowSchema& s, const Owner& owner,
                            int depth) {
  if (depth > kMaxDepth) return MakeError(ErrorCode::kInvalidInput, "Arrow array nests too deep");
  if (s.dictionary != nullptr) return ImportDictionary(a, s, owner, depth);
  if (a.dictionary != nullptr) {
    return MakeError(ErrorCode::kInvalidInput,
                     "array has a dictionary but its schema is not dictionary-encoded");
  }
  if (auto size = FixedListSize(s.format)) {
    ROWJIT_ASSIGN_OR_RETURN(const int64_t n, std::move(*size));
    return ImportFixedList(a, s, owner, n);
  }
  if (s.format != nullptr && std::strcmp(s.format, "+s") == 0) return ImportStruct(a, s, owner, depth);
  if (auto list = ListFormat(s.format)) return ImportList(a, s, owner, depth, *list);
  ROWJIT_ASSIGN_OR_RETURN(DataType type, TypeFromFormat(s.format));
  if (IsString(type.id)) return ImportStrings(a, s, owner, type.id, StringFormat(s.format)->second);
  return ImportFlat(a, s, owner, type);
}

// Moves both structs into guards (their release set to null) after checking they are live.
Result<std::shared_ptr<ImportedArray>> TakeOwnership(ArrowArray* array, ArrowSchema* schema,
                                                     SchemaGuard& schema_guard) {
  if (schema != nullptr && schema->release != nullptr) {
    schema_guard.schema = *schema;
    schema->release = nullptr;
  }
  auto holder = std::make_shared<ImportedArray>();
  if (array != nullptr && array->release != nullptr) {
    holder->array = *array;
    array->release = nullptr;
  }
  if (array == nullptr || schema == nullptr) {
    return MakeError(ErrorCode::kInvalidInput, "null ArrowArray or ArrowSchema pointer");
  }
  if (holder->array.release == nullptr || schema_guard.schema.release == nullptr) {
    return MakeError(ErrorCode::kInvalidInput, "ArrowArray or ArrowSchema is already released");
  }
  return holder;
}

Result<ArrayPtr> ImportArrayWithin(ArrowArray* array, ArrowSchema* schema) {
  SchemaGuard schema_guard;
  ROWJIT_ASSIGN_OR_RETURN(auto holder, TakeOwnership(array, schema, schema_guard));
  return ImportNode(holder->array, schema_guard.schema, holder, 0);
}

Result<RecordBatch> ImportRecordBatchWithin(ArrowArray* array, ArrowSchema* schema) {
  SchemaGuard schema_guard;
  ROWJIT_ASSIGN_OR_RETURN(auto holder, TakeOwnership(array, schema, schema_guard));
  const ArrowArray& a = holder->array;
  const ArrowSchema& s = schema_guard.schema;
  if (s.format == nullptr || std::strcmp(s.format, "+s") != 0) {
    return MakeError(ErrorCode::kInvalidInput, "a record batch is a struct array ('+s'), not '{}'",
                     s.format ? s.format : "(null)");
  }
  ROWJIT_RETURN_NOT_OK(CheckHeader(a, 1, "struct"));
  if (a.null_count != 0 && a.buffers[0] != nullptr) {
    return MakeError(ErrorCode::kUnsupported, "a record batch cannot have null rows");
  }
  if (a.n_children != s.n_children || a.n_children < 0) {
    return MakeError(ErrorCode::kInvalidInput, "struct array has {} children, its schema {}",
                     a.n_children, s.n_children);
  }
  if (a.n_children > 0 && (a.children == nullptr || s.children == nullptr)) {
    return MakeError(ErrorCode::kInvalidInput, "struct array has a null children pointer");
  }
  Schema out_schema;
  std::vector<ArrayPtr> columns;
  // n_children is the producer's claim, checked child by child below: reserve no more than a
  // plausible batch's columns on its word.
  const size_t expected = static_cast<size_t>(std::min<int64_t>(a.n_children, 4096));
  out_schema.fields.reserve(expected);
  columns.reserve(expected);
  for (int64_t i = 0; i < a.n_children; ++i) {
    if (a.children[i] == nullptr || s.children[i] == nullptr) {
      return MakeError(ErrorCode::kInvalidInput, "struct child {} is null", i);
    }
    const ArrowSchema& cs = *s.children[i];
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr child, ImportNode(*a.children[i], cs, holder, 1));
    // The parent's offset and length select the rows of every child.
    if (child->length() < a.offset + a.length) {
      return MakeError(ErrorCode::kInvalidInput,
                       "struct child {} has {} rows, fewer than the parent's offset {} + length {}",
                       i, child->length(), a.offset, a.length);
    }
    if (a.offset != 0 || child->length() != a.length) {
      ROWJIT_ASSIGN_OR_RETURN(child, child->Slice(a.offset, a.length));
    }
    std::string name = cs.name ? cs.name : "";
    if (name.empty()) name = fmt::format("c{}", i);
    Field field{name, child->type()};
    if (child->encoding() == Encoding::kString) field.layout = static_cast<const StringArray&>(*child).layout();
    out_schema.fields.push_back(std::move(field));
    columns.push_back(std::move(child));
  }
  return RecordBatch::Make(std::move(out_schema), std::move(columns));
}

}  // namespace

Result<ArrayPtr> ImportArray(ArrowArray* array, ArrowSchema* schema) {
  return NoThrow([&]() -> Result<ArrayPtr> { return ImportArrayWithin(array, schema); });
}

Result<Schema> ImportSchema(const ArrowSchema* schema) {
  if (schema == nullptr || schema->release == nullptr) {
    return MakeError(ErrorCode::kInvalidInput, "no schema (null, or already released)");
  }
  if (schema->format == nullptr || std::strcmp(schema->format, "+s") != 0) {
    return MakeError(ErrorCode::kInvalidInput, "a batch schema is a struct ('+s'), not '{}'",
                     schema->format ? schema->format : "(null)");
  }
  if (schema->n_children < 0 || (schema->n_children > 0 && schema->children == nullptr)) {
    return MakeError(ErrorCode::kInvalidInput, "struct schema has {} children and a null children pointer",
                     schema->n_children);
  }
  Schema out;
  for (int64_t i = 0; i < schema->n_children; ++i) {
    const ArrowSchema* c = schema->children[i];
    if (c == nullptr) return MakeError(ErrorCode::kInvalidInput, "struct schema child {} is null", i);
    const ArrowSchema* values = c->dictionary != nullptr ? c->dictionary : c;
    ROWJIT_ASSIGN_OR_RETURN(DataType type, TypeOfSchema(*c));
    const bool nullable = ((c->flags | values->flags) & ARROW_FLAG_NULLABLE) != 0;
    std::string name = c->name ? c->name : "";
    if (name.empty()) name = fmt::format("c{}", i);
    Field field{std::move(name), type.WithNullable(nullable)};
    if (auto string = StringFormat(values->format)) field.layout = string->second;
    out.fields.push_back(std::move(field));
  }
  return out;
}

Result<RecordBatch> ImportRecordBatch(ArrowArray* array, ArrowSchema* schema) {
  return NoThrow([&]() -> Result<RecordBatch> { return ImportRecordBatchWithin(array, schema); });
}
// --- export -----------------------------------------------------------------------------------

namespace {

struct ExportedArray {
  ArrayPtr keep_alive;
  std::vector<BufferPtr> made;  // buffers made for the export (copied bitmaps, expansions)
  std::vector<const void*> buffers;
  std::vector<int64_t> variadic_sizes;  // string views: the data buffers' sizes
  std::vector<ArrowArray> children;
  std::vector<ArrowArray*> child_pointers;
  std::unique_ptr<ArrowArray> dictionary;
};

struct ExportedSchema {
  std::string format;
  std::string name;
  std::vector<ArrowSchema> children;
  std::vector<ArrowSchema*> child_pointers;
  std::unique_ptr<ArrowSchema> dictionary;
};

void ReleaseExportedArray(ArrowArray* a) {
  if (a == nullptr || a->release == nullptr) return;
  for (int64_t i = 0; i < a->n_children; ++i) {
    ArrowArray* child = a->children[i];
    if (child->release != nullptr) child->release(child);
  }
  if (a->dictionary != nullptr && a->dictionary->release != nullptr) {
    a->dictionary->release(a->dictionary);
  }
  delete static_cast<ExportedArray*>(a->private_data);
  a->release = nullptr;
}

void ReleaseExportedSchema(ArrowSchema* s) {
  if (s == nullptr || s->release == nullptr) return;
  for (int64_t i = 0; i < s->n_children; ++i) {
    ArrowSchema* child = s->children[i];
    if (child->release != nullptr) child->release(child);
  }
  if (s->dictionary != nullptr && s->dictionary->release != nullptr) {
    s->dictionary->release(s->dictionary);
  }
  delete static_cast<ExportedSchema*>(s->private_data);
  s->release = nullptr;
}

// A bitmap at bit offset 0: shared when its offset is a whole byte, copied otherwise.
Result<const void*> ExportBitmap(const BufferPtr& bits, int64_t bit_offset, int64_t length,
                                 ExportedArray& priv) {
  if (bit_offset % 8 == 0) return static_cast<const void*>(bits->data() + bit_offset / 8);
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr copy, AllocateBitmap(length));
  kernels::BitmapCopy(kernels::BitSpan{bits->data(), bit_offset, length}, copy->mutable_data());
  priv.made.push_back(copy);
  return static_cast<const void*>(copy->data());
}

Result<const void*> ExportValidity(const Validity& v, int64_t length, ExportedArray& priv,
                                   int64_t* null_count) {
  *null_count = length - v.CountValid(length);
  if (v.all_valid() || length == 0) {
    *null_count = 0;
    return static_cast<const void*>(nullptr);
  }
  if (v.all_null()) {
    ROWJIT_ASSIGN_OR_RETURN(BufferPtr zeros, AllocateBitmap(length));
    priv.made.push_back(zeros);
    return static_cast<const void*>(zeros->data());
  }
  return ExportBitmap(v.bitmap(), v.bit_offset(), length, priv);
}

// Constants become flat arrays: Arrow has no constant encoding in the C interface.
Result<ArrayPtr> ExpandConstant(const ConstantArray& c) {
  const int64_t n = c.length();
  const DataType type = c.type();
  Validity validity = c.value().is_null() && n > 0 ? Validity::AllNull() : Validity::AllValid();
  if (IsString(type.id)) {
    const std::optional<std::string_view> row =
        c.value().is_null() ? std::nullopt : std::optional<std::string_view>(c.value().str());
    ROWJIT_ASSIGN_OR_RETURN(auto arr, MakeStringArray(type, StringLayout::kOffsets64,
                                                      std::vector<std::optional<std::string_view>>(
                                                          static_cast<size_t>(n), row)));
    return ArrayPtr(std::move(arr));
  }
  if (type.id == TypeId::kBool) {
    ROWJIT_ASSIGN_OR_RETURN(BufferPtr bits, AllocateBitmap(n));
    if (!c.value().is_null() && c.value().value<bool>()) {
      std::memset(bits->mutable_data(), 0xff, static_cast<size_t>(kernels::NumBytes(n)));
    }
    ROWJIT_ASSIGN_OR_RETURN(auto arr, BoolArray::Make(n, bits, validity, 0, type.nullable));
    return ArrayPtr(std::move(arr));
  }
  if (type.id == TypeId::kStruct || type.id == TypeId::kList || type.id == TypeId::kMap) {
    return MakeError(ErrorCode::kUnsupported, "a constant {} column", TypeIdName(type.id));
  }
  if (type.id == TypeId::kFixedList) {
    const int64_t row = type.ListRowBytes();
    ROWJIT_ASSIGN_OR_RETURN(BufferPtr rows, Buffer::Allocate(n * row));
    for (int64_t i = 0; i < n && !c.value().is_null(); ++i) {
      std::memcpy(rows->mutable_data() + i * row, c.value().str().data(), static_cast<size_t>(row));
    }
    if (c.value().is_null()) std::memset(rows->mutable_data(), 0, static_cast<size_t>(n * row));
    ROWJIT_ASSIGN_OR_RETURN(auto arr, FixedListArray::Make(type, n, std::move(rows), validity));
    return ArrayPtr(std::move(arr));
  }
  const int width = ByteWidth(type.id);
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr values, Buffer::Allocate(n * width));
  const __int128 bits = c.value().is_null() ? 0 : c.value().int128();  // little-endian: low bytes first
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(values->mutable_data() + i * width, &bits, static_cast<size_t>(width));
  }
  ROWJIT_ASSIGN_OR_RETURN(auto arr, PrimitiveArray::Make(type, n, values, validity));
  return ArrayPtr(std::move(arr));
}

Status ExportNode(ArrayPtr array, ArrowArray* out, ArrowSchema* out_schema, const char* name);

// Fills both structs from the private data, whose `buffers` are set; they take ownership of it.
Status Publish(std::unique_ptr<ExportedArray> priv, std::unique_ptr<ExportedSchema> spriv,
               ArrayPtr array, int64_t null_count, const char* format, const char* name,
               ArrowArray* out, ArrowSchema* out_schema) {
  const int64_t n = array->length();
  const bool nullable = array->type().nullable;
  priv->keep_alive = std::move(array);
  spriv->format = format;
  spriv->name = name ? name : "";

  *out = ArrowArray{};
  out->length = n;
  out->null_count = null_count;
  out->offset = 0;
  out->n_buffers = static_cast<int64_t>(priv->buffers.size());
  out->n_children = 0;
  out->buffers = priv->buffers.data();
  out->children = nullptr;
  out->dictionary = nullptr;
  out->release = ReleaseExportedArray;
  out->private_data = priv.release();

  *out_schema = ArrowSchema{};
  out_schema->format = spriv->format.c_str();
  out_schema->name = spriv->name.c_str();
  out_schema->metadata = nullptr;
  out_schema->flags = nullable ? ARROW_FLAG_NULLABLE : 0;
  out_schema->n_children = 0;
  out_schema->children = nullptr;
  out_schema->dictionary = nullptr;
  out_schema->release = ReleaseExportedSchema;
  out_schema->private_data = spriv.release();
  return Status::OK();
}

Status ExportFlat(ArrayPtr array, ArrowArray* out, ArrowSchema* out_schema, const char* name,
                  const std::string& format) {
  auto priv = std::make_unique<ExportedArray>();
  auto spriv = std::make_unique<ExportedSchema>();
  const int64_t n = array->length();
  int64_t null_count = 0;
  const void* validity = nullptr;
  const void* values = nullptr;
  if (array->encoding() == Encoding::kPrimitive) {
    const auto& p = static_cast<const PrimitiveArray&>(*array);
    ROWJIT_ASSIGN_OR_RETURN(validity, ExportValidity(p.validity(), n, *priv, &null_count));
    values = p.raw_values();
  } else {
    const auto& b = static_cast<const BoolArray&>(*array);
    ROWJIT_ASSIGN_OR_RETURN(validity, ExportValidity(b.validity(), n, *priv, &null_count));
    ROWJIT_ASSIGN_OR_RETURN(values, ExportBitmap(b.bits_buffer(), b.offset(), n, *priv));
  }
  priv->buffers = {validity, values};
  return Publish(std::move(priv), std::move(spriv), std::move(array), null_count, format.c_str(), name,
                 out, out_schema);
}

// Validity, then offsets from row 0's (Arrow allows a first offset above zero) and the data; or
// validity, views, the data buffers and their sizes.
Status ExportStrings(ArrayPtr array, ArrowArray* out, ArrowSchema* out_schema, const char* name) {
  const auto& str = static_cast<const StringArray&>(*array);
  auto priv = std::make_unique<ExportedArray>();
  auto spriv = std::make_unique<ExportedSchema>();
  const int64_t n = array->length();
  int64_t null_count = 0;
  ROWJIT_ASSIGN_OR_RETURN(const void* validity, ExportValidity(str.validity(), n, *priv, &null_count));
  if (str.layout() != StringLayout::kViews) {
    priv->buffers = {validity, str.raw_offsets(), str.data()};
  } else {
    priv->buffers = {validity, str.raw_views()};
    for (const BufferPtr& b : str.data_buffers()) {
      priv->buffers.push_back(b ? b->data() : nullptr);
      priv->variadic_sizes.push_back(b ? b->size() : 0);
    }
    priv->buffers.push_back(priv->variadic_sizes.data());
  }
  return Publish(std::move(priv), std::move(spriv), std::move(array), null_count,
                 ArrowStringFormat(str.type().id, str.layout()), name, out, out_schema);
}

// Validity, and one child of the rows' elements from row 0's (no validity: elements are numbers).
Status ExportFixedList(ArrayPtr array, ArrowArray* out, ArrowSchema* out_schema, const char* name) {
  const auto& list = static_cast<const FixedListArray&>(*array);
  const DataType type = list.type();
  if (type.elem == TypeId::kBF16) {
    return MakeError(ErrorCode::kUnsupported, "bf16 vectors have no Arrow format (Arrow defines none for bfloat16)");
  }
  const int64_t n = list.length();
  auto priv = std::make_unique<ExportedArray>();
  auto spriv = std::make_unique<ExportedSchema>();
  int64_t null_count = 0;
  ROWJIT_ASSIGN_OR_RETURN(const void* validity, ExportValidity(list.validity(), n, *priv, &null_count));
  priv->buffers = {validity};
  // The child's private data keeps the array alive too; it is released by the parent's release.
  auto child = std::make_unique<ExportedArray>();
  auto child_schema = std::make_unique<ExportedSchema>();
  child->keep_alive = array;
  child->buffers = {nullptr, list.raw_values()};
  child_schema->format = ArrowFormat(type.elem);
  child_schema->name = "item";
  priv->children.resize(1);
  spriv->children.resize(1);
  ArrowArray& ca = priv->children[0];
  ca = ArrowArray{};
  ca.length = n * type.list_size;
  ca.n_buffers = 2;
  ca.buffers = child->buffers.data();
  ca.release = ReleaseExportedArray;
  ca.private_data = child.release();
  ArrowSchema& cs = spriv->children[0];
  cs = ArrowSchema{};
  cs.format = child_schema->format.c_str();
  cs.name = child_schema->name.c_str();
  cs.release = ReleaseExportedSchema;
  cs.private_data = child_schema.release();
  priv->child_pointers = {&priv->children[0]};
  spriv->child_pointers = {&spriv->children[0]};
  ArrowArray** child_array = priv->child_pointers.data();
  ArrowSchema** child_schema_pointer = spriv->child_pointers.data();
  const std::string format = fmt::format("+w:{}", type.list_size);
  ROWJIT_RETURN_NOT_OK(Publish(std::move(priv), std::move(spriv), std::move(array), null_count, format.c_str(), name,
                               out, out_schema));
  out->n_children = 1;
  out->children = child_array;
  out_schema->n_children = 1;
  out_schema->children = child_schema_pointer;
  return Status::OK();
}

// Validity, and one child per field (named as the field), each exported as a column is.
Status ExportStruct(ArrayPtr array, ArrowArray* out, ArrowSchema* out_schema, const char* name) {
  const auto& st = static_cast<const StructArray&>(*array);
  const std::vector<StructField>& fields = StructFields(st.type());
  const int64_t n = st.length();
  const size_t k = st.children().size();
  auto priv = std::make_unique<ExportedArray>();
  auto spriv = std::make_unique<ExportedSchema>();
  int64_t null_count = 0;
  ROWJIT_ASSIGN_OR_RETURN(const void* validity, ExportValidity(st.validity(), n, *priv, &null_count));
  priv->buffers = {validity};
  priv->children.resize(k);
  spriv->children.resize(k);
  for (size_t i = 0; i < k; ++i) {
    Status done = ExportNode(st.children()[i], &priv->children[i], &spriv->children[i], fields[i].name.c_str());
    if (!done.ok()) {
      for (size_t j = 0; j < i; ++j) {
        priv->children[j].release(&priv->children[j]);
        spriv->children[j].release(&spriv->children[j]);
      }
      return done;
    }
    priv->child_pointers.push_back(&priv->children[i]);
    spriv->child_pointers.push_back(&spriv->children[i]);
  }
  ArrowArray** child_arrays = priv->child_pointers.data();
  ArrowSchema** child_schemas = spriv->child_pointers.data();
  ROWJIT_RETURN_NOT_OK(Publish(std::move(priv), std::move(spriv), std::move(array), null_count, "+s", name, out, out_schema));
  out->n_children = static_cast<int64_t>(k);
  out->children = child_arrays;
  out_schema->n_children = static_cast<int64_t>(k);
  out_schema->children = child_schemas;
  return Status::OK();
}

// Validity, the offsets from the first row's (the values index the whole child), and the child
// exported whole: "item" of a list, "entries" (struct<key, value>) of a map.
Status ExportList(ArrayPtr array, ArrowArray* out, ArrowSchema* out_schema, const char* name) {
  const auto& list = static_cast<const ListArray&>(*array);
  const bool map = list.type().id == TypeId::kMap;
  auto priv = std::make_unique<ExportedArray>();
  auto spriv = std::make_unique<ExportedSchema>();
  int64_t null_count = 0;
  ROWJIT_ASSIGN_OR_RETURN(const void* validity, ExportValidity(list.validity(), list.length(), *priv, &null_count));
  const int64_t width = list.large() ? 8 : 4;
  priv->buffers = {validity, list.offsets_buffer()->data() + list.offset() * width};
  priv->children.resize(1);
  spriv->children.resize(1);
  ROWJIT_RETURN_NOT_OK(ExportNode(list.elements(), &priv->children[0], &spriv->children[0], map ? "entries" : "item"));
  priv->child_pointers = {&priv->children[0]};
  spriv->child_pointers = {&spriv->children[0]};
  ArrowArray** child_array = priv->child_pointers.data();
  ArrowSchema** child_schema = spriv->child_pointers.data();
  ArrowArray* child = &priv->children[0];
  ArrowSchema* child_s = &spriv->children[0];
  Status done = Publish(std::move(priv), std::move(spriv), std::move(array), null_count, map ? "+m" : width == 8 ? "+L" : "+l",
                        name, out, out_schema);
  if (!done.ok()) {
    child->release(child);
    child_s->release(child_s);
    return done;
  }
  out->n_children = 1;
  out->children = child_array;
  out_schema->n_children = 1;
  out_schema->children = child_schema;
  return Status::OK();
}

Status ExportNode(ArrayPtr array, ArrowArray* out, ArrowSchema* out_schema, const char* name) {
  switch (array->encoding()) {
    case Encoding::kList: return ExportList(array, out, out_schema, name);
    case Encoding::kFixedList: return ExportFixedList(array, out, out_schema, name);
    case Encoding::kStruct: return ExportStruct(array, out, out_schema, name);
    case Encoding::kPrimitive:
    case Encoding::kBool:
      return ExportFlat(array, out, out_schema, name, ArrowFormatOf(array->type()));
    case Encoding::kString: return ExportStrings(array, out, out_schema, name);
    case Encoding::kByteBool: {
      ROWJIT_ASSIGN_OR_RETURN(auto packed, static_cast<const ByteBoolArray&>(*array).ToBool());
      return ExportFlat(packed, out, out_schema, name, "b");
    }
    case Encoding::kConstant: {
      ROWJIT_ASSIGN_OR_RETURN(ArrayPtr flat,
                              ExpandConstant(static_cast<const ConstantArray&>(*array)));
      if (IsString(flat->type().id)) return ExportStrings(flat, out, out_schema, name);
      if (flat->type().id == TypeId::kFixedList) return ExportFixedList(flat, out, out_schema, name);
      return ExportFlat(flat, out, out_schema, name, ArrowFormatOf(flat->type()));
    }
    case Encoding::kDictionary: {
      const auto& d = static_cast<const DictionaryArray&>(*array);
      auto dict_array = std::make_unique<ArrowArray>();
      auto dict_schema = std::make_unique<ArrowSchema>();
      ROWJIT_RETURN_NOT_OK(ExportNode(d.values(), dict_array.get(), dict_schema.get(), ""));
      Status st = ExportFlat(d.codes(), out, out_schema, name, ArrowFormat(d.codes()->type().id));
      if (!st.ok()) {
        dict_array->release(dict_array.get());
        dict_schema->release(dict_schema.get());
        return st;
      }
      // The dictionary is owned by the parent's private data and released by the parent.
      auto* priv = static_cast<ExportedArray*>(out->private_data);
      auto* spriv = static_cast<ExportedSchema*>(out_schema->private_data);
      out->dictionary = dict_array.get();
      out_schema->dictionary = dict_schema.get();
      if (array->type().nullable) out_schema->flags |= ARROW_FLAG_NULLABLE;
      priv->dictionary = std::move(dict_array);
      spriv->dictionary = std::move(dict_schema);
      return Status::OK();
    }
  }
  return MakeError(ErrorCode::kInternal, "unknown encoding");
}

}  // namespace

Status ExportArray(const ArrayPtr& array, ArrowArray* out, ArrowSchema* out_schema,
                   const char* name) {
  if (array == nullptr || out == nullptr || out_schema == nullptr) {
    return MakeError(ErrorCode::kInvalidInput, "null argument to ExportArray");
  }
  return ExportNode(array, out, out_schema, name);
}

Status ExportRecordBatch(const RecordBatch& batch, ArrowArray* out, ArrowSchema* out_schema) {
  if (out == nullptr || out_schema == nullptr) {
    return MakeError(ErrorCode::kInvalidInput, "null argument to ExportRecordBatch");
  }
  const size_t n = batch.columns.size();
  auto priv = std::make_unique<ExportedArray>();
  auto spriv = std::make_unique<ExportedSchema>();
  priv->children.resize(n);
  spriv->children.resize(n);
  for (size_t i = 0; i < n; ++i) {
    Status st = ExportNode(batch.columns[i], &priv->children[i], &spriv->children[i],
                           batch.schema.fields[i].name.c_str());
    if (!st.ok()) {
      for (size_t j = 0; j < i; ++j) {
        priv->children[j].release(&priv->children[j]);
        spriv->children[j].release(&spriv->children[j]);
      }
      return st;
    }
    priv->child_pointers.push_back(&priv->children[i]);
    spriv->child_pointers.push_back(&spriv->children[i]);
  }
  priv->buffers = {nullptr};
  spriv->format = "+s";

  *out = ArrowArray{};
  out->length = batch.length;
  out->n_buffers = 1;
  out->n_children = static_cast<int64_t>(n);
  out->buffers = priv->buffers.data();
  out->children = priv->child_pointers.data();
  out->release = ReleaseExportedArray;
  out->private_data = priv.release();

  *out_schema = ArrowSchema{};
  out_schema->format = spriv->format.c_str();
  out_schema->name = spriv->name.c_str();
  out_schema->n_children = static_cast<int64_t>(n);
  out_schema->children = spriv->child_pointers.data();
  out_schema->release = ReleaseExportedSchema;
  out_schema->private_data = spriv.release();
  return Status::OK();
}

}  // namespace rowjit
