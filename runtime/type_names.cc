// Type names read from text: rowjit's names, SQL's for cast targets, time zones checked against
// the tz database; every error with the span it is about and a suggestion when one is close
// (runtime layer). A schema and a cast read a type through the same function, so a mistake gets
// the same message in either.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

#include "runtime/suggest.h"
#include "runtime/timezone.h"
#include "runtime/types.h"

namespace rowjit {

namespace {

// A part of the text being read and where it starts in the whole, so errors can point at it.
struct Piece {
  std::string_view text;
  size_t offset = 0;

  Piece Sub(size_t from, size_t count = std::string_view::npos) const {
    from = std::min(from, text.size());
    return {text.substr(from, count), offset + from};
  }
  Piece Trimmed() const {
    size_t begin = 0, end = text.size();
    while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
    while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
    return Sub(begin, end - begin);
  }
  SourceSpan span() const { return {offset, text.size()}; }
};

Error At(const Piece& p, Error e) { return std::move(e).WithSpan(p.span()); }

// rowjit's names without parameters and the names that take them.
constexpr std::string_view kPlainNames[] = {"bool",   "i8",     "i16",    "i32",    "i64",
                                            "u8",     "u16",    "u32",    "u64",    "f32",
                                            "f64",    "utf8",   "string", "binary", "date32",
                                            "date64", "interval_months", "interval_day_time",
                                            "interval_month_day_nano"};
constexpr std::string_view kParameterizedNames[] = {"decimal", "decimal64", "decimal32", "time32",
                                                    "time64",  "timestamp", "duration"};

struct Spelling {
  std::string_view name;  // lower case
  std::string_view ours;
};
// SQL's names (PostgreSQL's and DuckDB's), read in any case where SQL is written (a cast).
constexpr Spelling kSqlNames[] = {
    {"tinyint", "i8"},       {"int1", "i8"},        {"smallint", "i16"},   {"int2", "i16"},
    {"integer", "i32"},      {"int", "i32"},        {"int4", "i32"},       {"bigint", "i64"},
    {"int8", "i64"},         {"utinyint", "u8"},    {"usmallint", "u16"},  {"uinteger", "u32"},
    {"ubigint", "u64"},      {"real", "f32"},       {"float4", "f32"},     {"double", "f64"},
    {"double precision", "f64"}, {"float8", "f64"}, {"float", "f64"},      {"boolean", "bool"},
    {"varchar", "utf8"},     {"text", "utf8"},      {"string", "utf8"},    {"blob", "binary"},
    {"bytea", "binary"},     {"date", "date32"},    {"time", "time64(us)"},
    {"timestamp", "timestamp(us)"}, {"timestamp without time zone", "timestamp(us)"},
    {"timestamptz", "timestamp(us, UTC)"}, {"timestamp with time zone", "timestamp(us, UTC)"},
    {"interval", "interval_month_day_nano"}, {"decimal", "decimal(18,3)"}, {"numeric", "decimal(18,3)"}};
// Other systems' spellings (numpy's, Arrow's, pandas', Polars'), never read, only suggested:
// numpy's int8 is rowjit's i8 while SQL's is i64, so guessing would be wrong for someone.
constexpr Spelling kOtherNames[] = {
    {"int8", "i8"},      {"int16", "i16"},    {"int32", "i32"},     {"int64", "i64"},
    {"uint8", "u8"},     {"uint16", "u16"},   {"uint32", "u32"},    {"uint64", "u64"},
    {"float32", "f32"},  {"float64", "f64"},  {"bool_", "bool"},    {"str", "utf8"},
    {"bytes", "binary"}, {"large_string", "large_utf8"},            {"datetime64", "timestamp(ns)"},
    {"timedelta64", "duration(ns)"}};

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// SQL's multi-word names with one space between the words: "double  precision" is read as
// "double precision".
std::string Collapsed(std::string_view s) {
  std::string out;
  for (char c : Lower(s)) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

// The comma-separated parameters of "name(a, b)", each trimmed.
std::vector<Piece> Parameters(const Piece& inside) {
  std::vector<Piece> out;
  size_t start = 0;
  while (true) {
    const size_t comma = inside.text.find(',', start);
    out.push_back(inside.Sub(start, comma == std::string_view::npos ? std::string_view::npos : comma - start).Trimmed());
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

Result<int> SmallInt(const Piece& p, std::string_view what) {
  int v = 0;
  const auto [end, ec] = std::from_chars(p.text.data(), p.text.data() + p.text.size(), v);
  if (p.text.empty() || ec != std::errc() || end != p.text.data() + p.text.size()) {
    return At(p, MakeError(ErrorCode::kInvalidInput, "{} '{}' is not a number", what, p.text));
  }
  return v;
}

Result<DataType> ReadDecimal(std::string_view name, const Piece& inside) {
  const std::vector<Piece> params = Parameters(inside);
  if (params.size() > 2) {
    return At(params[2], MakeError(ErrorCode::kInvalidInput, "{} takes a precision and a scale: {}(P,S)", name, name));
  }
  ROWJIT_ASSIGN_OR_RETURN(const int precision, SmallInt(params[0], "decimal precision"));
  int scale = 0;
  if (params.size() == 2) {
    ROWJIT_ASSIGN_OR_RETURN(scale, SmallInt(params[1], "decimal scale"));
  }
  const TypeId storage = name == "decimal" ? TypeId::kI128 : name == "decimal64" ? TypeId::kI64 : TypeId::kI32;
  auto type = DataType::Decimal(precision, scale, storage);
  if (type.ok()) return type;
  // DataType::Decimal names what is out of range: the precision first.
  const int max = storage == TypeId::kI32 ? 9 : storage == TypeId::kI64 ? 18 : 38;
  return At(precision < 1 || precision > max ? params[0] : params[1], std::move(type).TakeError());
}

Result<TimeUnit> ReadUnit(const Piece& p, std::string_view name) {
  for (TimeUnit u : {TimeUnit::kSecond, TimeUnit::kMilli, TimeUnit::kMicro, TimeUnit::kNano}) {
    if (p.text == TimeUnitName(u)) return u;
  }
  return At(p, MakeError(ErrorCode::kInvalidInput, "{}: unknown unit '{}' (s, ms, us or ns)", name, p.text));
}

// A zone as written in a type, quoted or not: known to the tz database (or UTC, or an offset).
Result<uint16_t> ReadZone(const Piece& p) {
  std::string_view name = p.text;
  if (name.size() >= 2 && name.front() == '\'' && name.back() == '\'') name = name.substr(1, name.size() - 2);
  if (name.empty()) return At(p, MakeError(ErrorCode::kInvalidInput, "timestamp(UNIT, ZONE): the zone is empty"));
  if (auto rules = LoadZoneRules(name); !rules.ok()) {
    std::vector<std::string_view> known(KnownTimeZoneNames().begin(), KnownTimeZoneNames().end());
    // A name the tz database lacks is unknown, with a suggestion when one is close; without a
    // database, or for a zone file it holds but cannot be read, the loader's error says why.
    const bool listed = std::find(known.begin(), known.end(), name) != known.end();
    if (known.empty() || listed) return At(p, std::move(rules).TakeError());
    return At(p, MakeError(ErrorCode::kInvalidInput, "unknown time zone '{}'{}", name, DidYouMean(name, known)));
  }
  auto tz = InternTimeZone(name);
  if (!tz.ok()) return At(p, std::move(tz).TakeError());
  return tz;
}

Error TooMany(std::string_view name, const Piece& extra, std::string_view form) {
  return At(extra, MakeError(ErrorCode::kInvalidInput, "{} takes {}", name, form));
}

// rowjit's parameterized names: decimal(P,S), time32(s), timestamp(us, UTC), duration(ns).
Result<DataType> ReadParameterized(std::string_view name, const Piece& inside) {
  if (name == "decimal" || name == "decimal64" || name == "decimal32") return ReadDecimal(name, inside);
  const std::vector<Piece> params = Parameters(inside);
  ROWJIT_ASSIGN_OR_RETURN(const TimeUnit unit, ReadUnit(params[0], name));
  if (name == "timestamp") {
    if (params.size() > 2) return TooMany(name, params[2], "a unit and a zone: timestamp(us, UTC)");
    uint16_t tz = 0;
    if (params.size() == 2) {
      ROWJIT_ASSIGN_OR_RETURN(tz, ReadZone(params[1]));
    }
    return DataType::Temporal(LogicalKind::kTimestamp, unit, tz);
  }
  if (params.size() > 1) return TooMany(name, params[1], "one unit");
  if (name == "duration") return DataType::Temporal(LogicalKind::kDuration, unit);
  const bool short_unit = unit == TimeUnit::kSecond || unit == TimeUnit::kMilli;
  if ((name == "time32") != short_unit) {
    return At(params[0], MakeError(ErrorCode::kTypeError, "{} has no unit {} (time32: s or ms; time64: us or ns)",
                                   name, params[0].text));
  }
  return DataType::Temporal(LogicalKind::kTime, unit);
}

bool IsParameterized(std::string_view name) {
  return std::find(std::begin(kParameterizedNames), std::end(kParameterizedNames), name) != std::end(kParameterizedNames);
}

// rowjit's names; nullopt when `head` is none of them (or is SQL's spelling of the same word
// where SQL is read: a bare `timestamp`, `decimal`, or timestamp(3)).
Result<std::optional<DataType>> ReadRowjit(const Piece& head, const std::optional<Piece>& inside, TypeNames names) {
  using Out = std::optional<DataType>;
  // A string layout's name inside a nested type (list<large_utf8>): the type; the layout is the
  // array's (a schema's top-level field keeps it: ParseSchema).
  if (!inside && (head.text == "large_utf8" || head.text == "utf8_view")) return Out(DataType(TypeId::kUtf8));
  if (!inside && (head.text == "large_binary" || head.text == "binary_view")) return Out(DataType(TypeId::kBinary));
  const bool plain = std::find(std::begin(kPlainNames), std::end(kPlainNames), head.text) != std::end(kPlainNames);
  if (plain && !inside) {
    for (TypeId id : kAllTypeIds) {
      if (TypeIdName(id) == head.text) return Out(DataType(id));
    }
    if (head.text == "utf8" || head.text == "string") return Out(DataType(TypeId::kUtf8));
    if (head.text == "binary") return Out(DataType(TypeId::kBinary));
    if (head.text == "date32") return Out(*DataType::Temporal(LogicalKind::kDate, TimeUnit::kDay));
    if (head.text == "date64") return Out(*DataType::Temporal(LogicalKind::kDate, TimeUnit::kMilli));
    for (IntervalUnit u : {IntervalUnit::kMonths, IntervalUnit::kDayTime, IntervalUnit::kMonthDayNano}) {
      if (head.text == DataType::Interval(u).ToString()) return Out(DataType::Interval(u));
    }
  }
  const bool sql = names == TypeNames::kSql;
  if (plain) {
    if (sql && head.text == "string") return Out();  // varchar(10)'s message
    return At(*inside, MakeError(ErrorCode::kInvalidInput, "{} takes no parameters", head.text));
  }
  if (!IsParameterized(head.text)) return Out();
  if (!inside) {
    if (sql && (head.text == "timestamp" || head.text == "decimal")) return Out();
    return At(head, MakeError(ErrorCode::kInvalidInput, "{} needs its parameters: {}", head.text,
                              head.text == "timestamp"  ? "timestamp(UNIT[, ZONE])"
                              : head.text.starts_with("decimal") ? "decimal(P,S)"
                                                                 : fmt::format("{}(UNIT)", head.text)));
  }
  const std::string_view first = inside->Trimmed().text;
  if (sql && head.text == "timestamp" && !first.empty() && std::isdigit(static_cast<unsigned char>(first[0]))) {
    return Out();  // SQL's timestamp(3): fractional digits
  }
  ROWJIT_ASSIGN_OR_RETURN(DataType t, ReadParameterized(head.text, *inside));
  return Out(t);
}

// SQL's names (TypeNames::kSql); nullopt when `head` is none of them.
Result<std::optional<DataType>> ReadSql(const Piece& head, const std::optional<Piece>& inside) {
  using Out = std::optional<DataType>;
  const std::string name = Collapsed(head.text);
  if ((name == "decimal" || name == "numeric") && inside) {  // numeric(12, 2), numeric(12): scale 0
    ROWJIT_ASSIGN_OR_RETURN(DataType t, ReadDecimal("decimal", *inside));
    return Out(t);
  }
  const bool zoned = name == "timestamptz" || name == "timestamp with time zone";
  if ((zoned || name == "timestamp" || name == "timestamp without time zone") && inside) {
    const Piece digits = inside->Trimmed();
    const std::string_view unit = digits.text == "0" ? "s" : digits.text == "3" ? "ms" : digits.text == "6" ? "us"
                                  : digits.text == "9" ? "ns" : "";
    if (unit.empty()) {
      return At(digits, MakeError(ErrorCode::kInvalidInput,
                                  "timestamp({}): the fractional digits are 0, 3, 6 or 9 (s, ms, us, ns)", digits.text));
    }
    return Out(ParseDataType(fmt::format("timestamp({}{})", unit, zoned ? ", UTC" : "")).value());
  }
  for (const Spelling& s : kSqlNames) {
    if (s.name != name) continue;
    if (inside) {
      const bool text = s.ours == "utf8" || s.ours == "binary";
      return At(*inside, MakeError(ErrorCode::kInvalidInput, "{} takes no parameters{}", head.text,
                                   text ? " (strings have no length limit)" : ""));
    }
    return Out(ParseDataType(s.ours).value());
  }
  return Out();
}

// The error for a name that is no type: a suggestion from other systems' spellings, or the
// nearest known name, or the list of names.
Error UnknownName(const Piece& head, TypeNames names) {
  const std::string lower = Collapsed(head.text);
  std::vector<std::string> mapped;
  auto add = [&](std::string_view ours) {
    if (std::find(mapped.begin(), mapped.end(), ours) == mapped.end()) mapped.emplace_back(ours);
  };
  for (const Spelling& s : kOtherNames) {
    if (s.name == lower) add(s.ours);
  }
  if (names == TypeNames::kRowjit) {  // SQL's names are suggested where they are not read
    for (const Spelling& s : kSqlNames) {
      if (s.name == lower) add(s.ours);
    }
  }
  std::string hint = DidYouMean(mapped);
  if (hint.empty()) {
    std::vector<std::string_view> known(std::begin(kPlainNames), std::end(kPlainNames));
    known.insert(known.end(), std::begin(kParameterizedNames), std::end(kParameterizedNames));
    if (names == TypeNames::kSql) {
      for (const Spelling& s : kSqlNames) known.push_back(s.name);
    }
    hint = DidYouMean(head.text, known);
  }
  if (hint.empty()) {
    hint = " (bool, i8..i64, u8..u64, f32, f64, utf8, binary, decimal(P,S), date32, date64, time32(U), time64(U), "
           "timestamp(U[, ZONE]), duration(U), interval_months, interval_day_time, interval_month_day_nano or "
           "fixed_size_list<T, N>, struct<NAME:TYPE, ...>, list<T>, large_list<T>, map<K, V>";
    hint += names == TypeNames::kSql ? ", or SQL's names)" : ", with '?' for nullable)";
  }
  return At(head, MakeError(ErrorCode::kInvalidInput, "unknown type '{}'{}", head.text, hint));
}

constexpr int kMaxStructDepth = 64;

// One level of a nested type's text (struct<...>, list<...>, i32[], map<...>): the recursion
// over an untrusted text is bounded as Arrow import bounds its depth.
class Nesting {
 public:
  Nesting() { ++depth(); }
  ~Nesting() { --depth(); }
  Nesting(const Nesting&) = delete;
  Nesting& operator=(const Nesting&) = delete;
  bool too_deep() const { return depth() > kMaxStructDepth; }

 private:
  static int& depth() {
    static thread_local int d = 0;
    return d;
  }
};

Result<DataType> ListOf(const Piece& elem_text, const Piece& size_text, TypeNames names) {
  // f16 and bf16 are element types only: no column or value is one.
  const bool half = elem_text.text == "f16" || elem_text.text == "bf16";
  auto elem = half ? Result<DataType>(DataType(elem_text.text == "f16" ? TypeId::kF16 : TypeId::kBF16))
                   : ParseDataType(elem_text.text, names);
  if (!elem.ok()) return std::move(elem).TakeError().ShiftSpan(elem_text.offset);
  if (elem->nullable || elem->is_logical() || !(IsNumeric(elem->id) || half)) {
    return At(elem_text, MakeError(ErrorCode::kTypeError,
                                   "a fixed_size_list holds numbers that are not null (i8..i64, u8..u64, f16, bf16, f32, "
                                   "f64), "
                                   "not {}", elem->ToString()));
  }
  int64_t size = 0;
  const auto [end, ec] = std::from_chars(size_text.text.data(), size_text.text.data() + size_text.text.size(), size);
  const bool digits = !size_text.text.empty() && std::all_of(size_text.text.begin(), size_text.text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
  if (digits && ec == std::errc::result_out_of_range) {
    size = kMaxListSize + 1;  // refused below, by its range
  } else if (!digits || ec != std::errc() || end != size_text.text.data() + size_text.text.size()) {
    return At(size_text, MakeError(ErrorCode::kInvalidInput, "the size of a fixed_size_list '{}' is not a number", size_text.text));
  }
  auto type = DataType::FixedList(elem->id, size);
  if (!type.ok() && digits && size > kMaxListSize) {
    return At(size_text, MakeError(ErrorCode::kUnsupported, "a fixed_size_list holds 1 to {} elements a row, not {}",
                                   kMaxListSize, size_text.text));
  }
  if (!type.ok()) return At(size_text, std::move(type).TakeError());
  return type;
}

// A vector type: fixed_size_list<f32, 768>, or SQL's (DuckDB's) array spelling f32[768], FLOAT[768].
// nullopt when `whole` is neither.
Result<std::optional<DataType>> ReadList(const Piece& whole, TypeNames names) {
  using Out = std::optional<DataType>;
  const std::string_view t = whole.text;
  if (t.ends_with(']')) {
    const size_t open = t.rfind('[');
    if (open == std::string_view::npos || open == 0) return Out();
    if (whole.Sub(open + 1, t.size() - open - 2).Trimmed().text.empty()) {  // SQL's (DuckDB's) list: i32[]
      const Nesting level;
      if (level.too_deep()) return At(whole, MakeError(ErrorCode::kUnsupported, "types nest at most {} deep", kMaxStructDepth));
      const Piece elem_text = whole.Sub(0, open).Trimmed();
      auto elem = ParseDataType(elem_text.text, names);
      if (!elem.ok()) return std::move(elem).TakeError().ShiftSpan(elem_text.offset);
      auto type = DataType::List(*elem);
      if (!type.ok()) return At(elem_text, std::move(type).TakeError());
      return Out(*type);
    }
    ROWJIT_ASSIGN_OR_RETURN(DataType type, ListOf(whole.Sub(0, open).Trimmed(),
                                                  whole.Sub(open + 1, t.size() - open - 2).Trimmed(), names));
    return Out(type);
  }
  const size_t open = t.find('<');
  if (open == std::string_view::npos || Lower(whole.Sub(0, open).Trimmed().text) != "fixed_size_list") return Out();
  if (!t.ends_with('>')) {
    return MakeError(ErrorCode::kInvalidInput, "fixed_size_list<T, N> is not closed with '>'")
        .WithSpan({whole.offset + t.size(), 0});
  }
  const Piece inside = whole.Sub(open + 1, t.size() - open - 2);
  const std::vector<Piece> params = Parameters(inside);
  if (params.size() != 2) {
    return At(inside, MakeError(ErrorCode::kInvalidInput, "fixed_size_list takes an element type and a size: "
                                                          "fixed_size_list<f32, 768>"));
  }
  ROWJIT_ASSIGN_OR_RETURN(DataType type, ListOf(params[0], params[1], names));
  return Out(type);
}

// The parts of `inside` between its top-level commas (brackets of any kind nest), each trimmed.
std::vector<Piece> TopLevelParts(const Piece& inside) {
  std::vector<Piece> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= inside.text.size(); ++i) {
    const char c = i < inside.text.size() ? inside.text[i] : ',';
    if (c == '<' || c == '(' || c == '[') ++depth;
    if ((c == '>' || c == ')' || c == ']') && depth > 0) --depth;
    if (c == ',' && depth == 0) {
      out.push_back(inside.Sub(start, i - start).Trimmed());
      start = i + 1;
    }
  }
  return out;
}

// struct<x:i32, y:f64?>; nullopt when `whole` is none.
Result<std::optional<DataType>> ReadStruct(const Piece& whole, TypeNames names) {
  using Out = std::optional<DataType>;
  const std::string_view t = whole.text;
  const size_t open = t.find('<');
  if (open == std::string_view::npos || Lower(whole.Sub(0, open).Trimmed().text) != "struct") return Out();
  if (!t.ends_with('>')) {
    return MakeError(ErrorCode::kInvalidInput, "struct<NAME:TYPE, ...> is not closed with '>'").WithSpan({whole.offset + t.size(), 0});
  }
  const Nesting level;
  if (level.too_deep()) return At(whole, MakeError(ErrorCode::kUnsupported, "types nest at most {} deep", kMaxStructDepth));
  std::vector<StructField> fields;
  for (const Piece& part : TopLevelParts(whole.Sub(open + 1, t.size() - open - 2))) {
    const size_t colon = part.text.find(':');
    const Piece name = part.Sub(0, colon).Trimmed();
    const bool identifier = !name.text.empty() && (std::isalpha(static_cast<unsigned char>(name.text[0])) || name.text[0] == '_') &&
                            std::all_of(name.text.begin(), name.text.end(), [](char c) {
                              return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                            });
    if (colon == std::string_view::npos || !identifier) {
      return At(part, MakeError(ErrorCode::kInvalidInput, "a struct's field is NAME:TYPE, not '{}'", part.text));
    }
    const Piece type_text = part.Sub(colon + 1).Trimmed();
    auto type = ParseDataType(type_text.text, names);
    if (!type.ok()) return std::move(type).TakeError().ShiftSpan(type_text.offset);
    fields.push_back({std::string(name.text), *type});
  }
  auto type = DataType::Struct(fields);
  if (!type.ok()) return At(whole, std::move(type).TakeError());
  return Out(*type);
}

// list<T>, large_list<T> (a list: the offsets' width is a column's layout) and map<K, V>;
// nullopt when `whole` is none.
Result<std::optional<DataType>> ReadListOrMap(const Piece& whole, TypeNames names) {
  using Out = std::optional<DataType>;
  const std::string_view t = whole.text;
  const size_t open = t.find('<');
  if (open == std::string_view::npos) return Out();
  const std::string head = Lower(whole.Sub(0, open).Trimmed().text);
  if (head != "list" && head != "large_list" && head != "map") return Out();
  if (!t.ends_with('>')) {
    return MakeError(ErrorCode::kInvalidInput, "{}<...> is not closed with '>'", head).WithSpan({whole.offset + t.size(), 0});
  }
  const Nesting level;
  if (level.too_deep()) return At(whole, MakeError(ErrorCode::kUnsupported, "types nest at most {} deep", kMaxStructDepth));
  const std::vector<Piece> parts = TopLevelParts(whole.Sub(open + 1, t.size() - open - 2));
  const size_t want = head == "map" ? 2 : 1;
  if (parts.size() != want) {
    return At(whole, MakeError(ErrorCode::kInvalidInput, "{} takes {}: {}", head, want == 2 ? "a key and a value type" : "one element type",
                               want == 2 ? "map<utf8, i64>" : "list<i32?>"));
  }
  std::vector<DataType> types;
  for (const Piece& part : parts) {
    auto type = ParseDataType(part.text, names);
    if (!type.ok()) return std::move(type).TakeError().ShiftSpan(part.offset);
    types.push_back(*type);
  }
  auto type = want == 2 ? DataType::Map(types[0], types[1]) : DataType::List(types[0]);
  if (!type.ok()) return At(whole, std::move(type).TakeError());
  return Out(*type);
}

}  // namespace

Result<DataType> ParseDataType(std::string_view text, TypeNames names) {
  Piece whole = Piece{text, 0}.Trimmed();
  bool nullable = false;
  if (!whole.text.empty() && whole.text.back() == '?') {
    nullable = true;
    whole = whole.Sub(0, whole.text.size() - 1).Trimmed();
  }
  if (whole.text.empty()) {
    return MakeError(ErrorCode::kInvalidInput, "expected a type name").WithSpan({whole.offset, 0});
  }
  ROWJIT_ASSIGN_OR_RETURN(std::optional<DataType> list, ReadList(whole, names));
  if (list) return list->WithNullable(nullable);
  ROWJIT_ASSIGN_OR_RETURN(std::optional<DataType> record, ReadStruct(whole, names));
  if (record) return record->WithNullable(nullable);
  ROWJIT_ASSIGN_OR_RETURN(std::optional<DataType> nested, ReadListOrMap(whole, names));
  if (nested) return nested->WithNullable(nullable);
  const size_t open = whole.text.find('(');
  const Piece head = whole.Sub(0, open).Trimmed();
  std::optional<Piece> inside;
  if (open != std::string_view::npos) {
    if (whole.text.back() != ')') {
      return MakeError(ErrorCode::kInvalidInput, "the parameters of {} are not closed with ')'", head.text)
          .WithSpan({whole.offset + whole.text.size(), 0});
    }
    inside = whole.Sub(open + 1, whole.text.size() - open - 2);
  }
  ROWJIT_ASSIGN_OR_RETURN(std::optional<DataType> type, ReadRowjit(head, inside, names));
  if (!type && names == TypeNames::kSql) {
    ROWJIT_ASSIGN_OR_RETURN(type, ReadSql(head, inside));
  }
  if (!type) return UnknownName(head, names);
  return type->WithNullable(nullable);
}

}  // namespace rowjit
