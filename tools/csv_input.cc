// `rowjit eval --input FILE`: CSV text to a typed record batch through the engine's casts (tools
// layer).
#include "tools/csv_input.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>

#include "ir/binder.h"
#include "kernels/strings.h"
#include "runtime/string_array.h"

namespace rowjit::cli {

namespace {

constexpr std::string_view kBlanks = " \t\n\v\f\r";  // what the text casts ignore around a value

std::string_view TrimBlanks(std::string_view s) {
  const size_t first = s.find_first_not_of(kBlanks);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kBlanks) - first + 1);
}

Result<std::string> ReadAll(const std::string& path, const std::string& name) {
  std::FILE* f = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    return MakeError(ErrorCode::kIoError, "cannot open {}: {}", name, std::strerror(errno));
  }
  std::string text;
  char buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) text.append(buffer, n);
  const bool failed = std::ferror(f) != 0;
  const int read_errno = errno;
  if (f != stdin) std::fclose(f);
  if (failed) {
    return MakeError(ErrorCode::kIoError, "cannot read {}: {}", name, std::strerror(read_errno));
  }
  return text;
}

// A header cell: a name, and a type when the cell carries one ("a:i32?", as a --schema entry).
struct HeaderCell {
  std::string name;
  std::optional<Field> typed;
};

Result<std::vector<HeaderCell>> ParseHeader(const std::vector<std::string>& header) {
  std::vector<HeaderCell> cells;
  for (size_t i = 0; i < header.size(); ++i) {
    const std::string_view cell = TrimBlanks(header[i]);
    if (cell.find(':') == std::string_view::npos) {
      // An empty cell still names its column (as DuckDB does), so that the others can be read.
      cells.push_back(
          {cell.empty() ? fmt::format("column{}", i + 1) : std::string(cell), std::nullopt});
      continue;
    }
    if (std::count(cell.begin(), cell.end(), '(') > std::count(cell.begin(), cell.end(), ')')) {
      return MakeError(ErrorCode::kInvalidInput,
                       "header cell {} '{}' ends at a comma inside its type: quote a cell whose "
                       "type holds a comma "
                       "(\"price:decimal(10,2)?\")",
                       i + 1, cell);
    }
    Result<Schema> one = ParseSchema(cell);
    if (!one.ok() || one->fields.size() != 1) {
      return MakeError(ErrorCode::kInvalidInput,
                       "header cell {} '{}' is neither a name nor NAME:TYPE{}", i + 1, cell,
                       one.ok() ? " (it names several columns)" : ": " + one.error().message());
    }
    cells.push_back({one->fields[0].name, one->fields[0]});
  }
  return cells;
}

// The header cell called `name`, or an error when there is none or several.
Result<size_t> FindHeaderCell(const std::vector<HeaderCell>& cells, const std::string& name) {
  std::optional<size_t> at;
  for (size_t i = 0; i < cells.size(); ++i) {
    if (cells[i].name != name) continue;
    if (at) return MakeError(ErrorCode::kInvalidInput, "the header names column '{}' twice", name);
    at = i;
  }
  if (at) return *at;
  std::string names;
  for (const HeaderCell& c : cells) names += (names.empty() ? "" : ", ") + c.name;
  return MakeError(ErrorCode::kInvalidInput,
                   "column '{}' of --schema is not in the header (its columns: {})", name, names);
}

std::string FieldTypeText(const Field& f) {
  return IsString(f.type.id) ? StringTypeName(f.type.id, f.layout) + (f.type.nullable ? "?" : "")
                             : f.type.ToString();
}

// The schema --schema gives, each field taken from the header cell of its name (its other cells
// are not read); a cell that carries a type must agree with it.
Result<Schema> SchemaFromText(const Schema& schema, const std::vector<HeaderCell>& cells,
                              std::vector<size_t>& source) {
  for (const Field& f : schema.fields) {
    ROWJIT_ASSIGN_OR_RETURN(size_t at, FindHeaderCell(cells, f.name));
    if (cells[at].typed && !(*cells[at].typed == f)) {
      return MakeError(ErrorCode::kInvalidInput,
                       "the header types column '{}' as {}, --schema as {}", f.name,
                       FieldTypeText(*cells[at].typed), FieldTypeText(f));
    }
    source.push_back(at);
  }
  return schema;
}

// Every header cell a column: typed by the cell, or inferred from its values.
Result<Schema> SchemaFromHeader(const std::vector<HeaderCell>& cells, const CsvTable& table,
                                std::vector<size_t>& source) {
  Schema schema;
  for (size_t i = 0; i < cells.size(); ++i) {
    ROWJIT_ASSIGN_OR_RETURN(size_t at, FindHeaderCell(cells, cells[i].name));
    if (at != i) {
      return MakeError(ErrorCode::kInvalidInput, "the header names column '{}' twice",
                       cells[i].name);
    }
    schema.fields.push_back(
        cells[i].typed ? *cells[i].typed : Field{cells[i].name, InferColumnType(table.columns[i])});
    source.push_back(i);
  }
  return schema;
}

bool FitsI64(std::string_view s) {
  const std::string_view digits = s.starts_with('+') || s.starts_with('-') ? s.substr(1) : s;
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos) {
    return false;
  }
  if (s.starts_with('+')) s.remove_prefix(1);
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  return ec == std::errc() && end == s.data() + s.size();
}

// Decimal notation only ([+-] digits [. digits] [e [+-] digits]) that a double holds without
// overflow or underflow to zero; inf and nan are read by an f64 column but do not make one.
bool IsDecimalNumber(std::string_view s) {
  std::string_view body = s.starts_with('+') || s.starts_with('-') ? s.substr(1) : s;
  const size_t e = body.find_first_of("eE");
  const std::string_view mantissa = body.substr(0, e);
  const size_t point = mantissa.find('.');
  const std::string_view whole = mantissa.substr(0, point);
  const std::string_view fraction =
      point == std::string_view::npos ? "" : mantissa.substr(point + 1);
  auto digits = [](std::string_view d) {
    return d.find_first_not_of("0123456789") == std::string_view::npos;
  };
  if (whole.size() + fraction.size() == 0 || !digits(whole) || !digits(fraction)) return false;
  if (e != std::string_view::npos) {
    std::string_view exponent = body.substr(e + 1);
    if (exponent.starts_with('+') || exponent.starts_with('-')) exponent.remove_prefix(1);
    if (exponent.empty() || !digits(exponent)) return false;
  }
  double value = 0;
  const std::string_view parse = s.starts_with('+') ? s.substr(1) : s;
  const auto [end, ec] = std::from_chars(parse.data(), parse.data() + parse.size(), value);
  return ec == std::errc() && end == parse.data() + parse.size();
}

bool IsBoolWord(std::string_view s) {
  auto equals = [&](std::string_view word) {
    return s.size() == word.size() && std::equal(s.begin(), s.end(), word.begin(),
                                                 [](char a, char b) { return (a | 0x20) == b; });
  };
  return equals("true") || equals("false");
}

// A column as utf8 text (64-bit offsets past what 32-bit ones reach), of `type`'s layout when
// it is a string type; nulls where the CSV had them.
Result<ArrayPtr> TextArray(const CsvColumn& column, DataType type, StringLayout layout) {
  std::vector<std::optional<std::string_view>> rows;
  rows.reserve(static_cast<size_t>(column.size()));
  for (int64_t k = 0; k < column.size(); ++k) {
    rows.push_back(column.IsNull(k) ? std::nullopt
                                    : std::optional<std::string_view>(column.Field(k)));
  }
  if (layout == StringLayout::kOffsets32 && column.bytes.size() > static_cast<size_t>(INT32_MAX)) {
    layout = StringLayout::kOffsets64;
  }
  ROWJIT_ASSIGN_OR_RETURN(auto array, MakeStringArray(type, layout, rows));
  return ArrayPtr(std::move(array));
}

// The first null of a column its type says cannot hold one, and the first field of a utf8
// column that is not UTF-8: an error naming the line.
Status CheckFields(const CsvColumn& column, const Field& f, const CsvInput& input,
                   const std::string& null_text) {
  const bool utf8 = f.type.id == TypeId::kUtf8;
  for (int64_t k = 0; k < column.size(); ++k) {
    if (column.IsNull(k) && !f.type.nullable) {
      return MakeError(ErrorCode::kInvalidInput,
                       "{}, column '{}': {} in a column that is not nullable (declare it {}?)",
                       input.Where(k), f.name,
                       null_text.empty() ? "an empty field (null)" : "a null ('" + null_text + "')",
                       f.name + ":" + FieldTypeText(f));
    }
    if (!utf8 || column.IsNull(k)) continue;
    const std::string_view v = column.Field(k);
    const size_t bad =
        kernels::FirstInvalidUtf8(reinterpret_cast<const uint8_t*>(v.data()), v.size());
    if (bad != v.size()) {
      return MakeError(
          ErrorCode::kInvalidInput,
          "{}, column '{}': the field is not UTF-8 (byte {} of it); read such a column as binary",
          input.Where(k), f.name, bad + 1);
    }
  }
  return Status::OK();
}

// A column of its field's type: string types as they are, the others through the engine's
// `cast(v, T)` from utf8 (so that text parses exactly as it does in expressions). A field that
// does not parse is an error naming its line.
Result<ArrayPtr> TypeColumn(const CsvColumn& column, const Field& f, const CsvInput& input,
                            jit::Engine& engine) {
  if (IsString(f.type.id)) return TextArray(column, f.type, f.layout);
  if (IsNested(f.type.id)) {
    return MakeError(ErrorCode::kUnsupported, "column '{}' is {}: a CSV file holds no nested values (use a schema's "
                                              "random columns, or the Arrow C Data Interface)", f.name, f.type.ToString());
  }
  const DataType text_type(TypeId::kUtf8, f.type.nullable);
  ROWJIT_ASSIGN_OR_RETURN(ArrayPtr text, TextArray(column, text_type, StringLayout::kOffsets32));
  const Schema one{{Field{"v", text_type}}};
  ROWJIT_ASSIGN_OR_RETURN(
      ir::ExprPtr cast,
      ir::ParseAndBind(fmt::format("cast(v, {})", f.type.WithNullable(false).ToString()), one));
  const std::vector<ArrayPtr> columns = {text};
  Result<ArrayPtr> typed = engine.Evaluate(cast, columns, column.size());
  if (!typed.ok() && typed.error().row()) {
    return MakeError(ErrorCode::kInvalidInput, "{}, column '{}': {}",
                     input.Where(*typed.error().row()), f.name, typed.error().message());
  }
  // A decimal(P,S) of at most 18 digits is read as the cast gives it, decimal64(P,S): the same
  // values, and the arithmetic a 16-byte one of those digits gets (docs/semantics.md).
  const auto same_decimal = [&](const DataType& t) {
    return t.logical == LogicalKind::kDecimal && f.type.logical == LogicalKind::kDecimal &&
           t.precision == f.type.precision && t.scale == f.type.scale &&
           t.nullable == f.type.nullable;
  };
  if (typed.ok() && (*typed)->type() != f.type && !same_decimal((*typed)->type())) {
    return MakeError(ErrorCode::kInternal, "column '{}': the cast gave {}, not {}", f.name,
                     (*typed)->type().ToString(), f.type.ToString());
  }
  return typed;
}

Result<CsvInput> ReadCsv(const std::string& path, const std::optional<Schema>& given,
                         const std::string& null_text, jit::Engine& engine) {
  CsvInput input;
  input.name = path == "-" ? "standard input" : path;
  ROWJIT_ASSIGN_OR_RETURN(const std::string text, ReadAll(path, input.name));
  // The header first: a cell that a comma in its type cut is named before the records it shifts.
  ROWJIT_ASSIGN_OR_RETURN(const CsvTable header, ParseCsv(text, null_text, /*header_only=*/true));
  ROWJIT_ASSIGN_OR_RETURN(const std::vector<HeaderCell> cells, ParseHeader(header.header));
  ROWJIT_ASSIGN_OR_RETURN(CsvTable table, ParseCsv(text, null_text));
  input.lines = std::move(table.lines);
  std::vector<size_t> source;
  ROWJIT_ASSIGN_OR_RETURN(Schema schema, given ? SchemaFromText(*given, cells, source)
                                               : SchemaFromHeader(cells, table, source));
  std::vector<ArrayPtr> columns;
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    CsvColumn& column = table.columns[source[i]];
    ROWJIT_RETURN_NOT_OK(CheckFields(column, schema.fields[i], input, null_text));
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr array, TypeColumn(column, schema.fields[i], input, engine));
    schema.fields[i].type = array->type();
    columns.push_back(std::move(array));
    column = CsvColumn();  // its text is no longer needed
  }
  ROWJIT_ASSIGN_OR_RETURN(input.batch, RecordBatch::Make(std::move(schema), std::move(columns)));
  input.batch.length = static_cast<int64_t>(input.lines.size());  // also without columns
  return input;
}

}  // namespace

DataType InferColumnType(const CsvColumn& column) {
  bool any_value = false, any_null = false, all_i64 = true, all_number = true, all_bool = true;
  for (int64_t k = 0; k < column.size(); ++k) {
    if (column.IsNull(k)) {
      any_null = true;
      continue;
    }
    if (!all_i64 && !all_number && !all_bool) continue;  // utf8 already; only the nulls matter
    const std::string_view v = TrimBlanks(column.Field(k));
    any_value = true;
    all_i64 = all_i64 && FitsI64(v);
    all_number = all_number && IsDecimalNumber(v);
    all_bool = all_bool && IsBoolWord(v);
  }
  const TypeId id = !any_value   ? TypeId::kUtf8
                    : all_i64    ? TypeId::kI64
                    : all_number ? TypeId::kF64
                    : all_bool   ? TypeId::kBool
                                 : TypeId::kUtf8;
  return DataType(id, any_null);
}

Result<CsvInput> ReadCsvInput(const std::string& path, const std::optional<Schema>& schema,
                              const std::string& null_text, jit::Engine& engine) {
  Result<CsvInput> input = NoThrow([&] { return ReadCsv(path, schema, null_text, engine); });
  if (input.ok() || input.error().code() == ErrorCode::kIoError) return input;
  // Every other error is the file's: name it (the typed fields' errors name it already).
  const std::string& message = input.error().message();
  const std::string name = path == "-" ? "standard input" : path;
  if (message.starts_with(name)) return input;
  return Error(input.error().code(), name + ": " + message);
}

std::string CsvInput::Where(int64_t row) const {
  if (row < 0 || row >= static_cast<int64_t>(lines.size())) return name;
  return fmt::format("{} line {}", name, lines[static_cast<size_t>(row)]);
}

}  // namespace rowjit::cli
