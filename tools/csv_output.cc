// Result rows as a table or CSV, values as text through the engine's cast to utf8 (tools layer).
#include "tools/csv_output.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "ir/binder.h"
#include "runtime/string_array.h"
#include "tools/csv.h"

namespace rowjit::cli {

namespace {

// One result column as text: a utf8 array (the column itself, or its cast to utf8), or binary
// bytes to be written as hex.
struct TextColumn {
  ArrayPtr text;
  bool hex = false;
  bool right = false;  // numbers align right in a table

  std::optional<std::string> At(int64_t i) const {
    const std::optional<std::string_view> v = StringAt(*text, i);
    if (!v || !hex) return v ? std::optional<std::string>(*v) : std::nullopt;
    std::string out = "\\x";
    for (unsigned char c : *v) out += fmt::format("{:02x}", c);
    return out;
  }
};

Result<TextColumn> AsText(const ArrayPtr& column, jit::Engine& engine);

bool IsNestedType(const DataType& t) {
  return IsNested(t.id) && t.id != TypeId::kFixedList;
}

// Each row of a nested column as text — [1, null], {'a': 1}, {x: 1, when: 2024-02-29} — its leaves
// written as a column of their type is (through the engine's cast to utf8, each leaf array once),
// strings quoted; nullopt for a null row.
Result<std::vector<std::optional<std::string>>> NestedRows(const ArrayPtr& column, jit::Engine& engine) {
  const int64_t n = column->length();
  std::vector<std::optional<std::string>> out(static_cast<size_t>(n));
  const DataType type = column->type();
  if (!IsNestedType(type)) {
    ROWJIT_ASSIGN_OR_RETURN(const TextColumn leaf, AsText(column, engine));
    for (int64_t i = 0; i < n; ++i) {
      std::optional<std::string> v = leaf.At(i);
      if (v && IsString(type.id) && !leaf.hex) v = QuoteString(*v);
      out[static_cast<size_t>(i)] = std::move(v);
    }
    return out;
  }
  const auto part = [](const std::optional<std::string>& v) { return v ? *v : std::string("null"); };
  if (type.id == TypeId::kStruct) {
    const auto& s = static_cast<const StructArray&>(*column);
    std::vector<std::vector<std::optional<std::string>>> fields;
    for (const ArrayPtr& c : s.children()) {
      ROWJIT_ASSIGN_OR_RETURN(auto rows, NestedRows(c, engine));
      fields.push_back(std::move(rows));
    }
    for (int64_t i = 0; i < n; ++i) {
      if (s.IsNull(i)) continue;
      std::string text = "{";
      for (size_t f = 0; f < fields.size(); ++f) {
        text += fmt::format("{}{}: {}", f ? ", " : "", StructFields(type)[f].name, part(fields[f][static_cast<size_t>(i)]));
      }
      out[static_cast<size_t>(i)] = text + "}";
    }
    return out;
  }
  const auto& l = static_cast<const ListArray&>(*column);
  const bool map = type.id == TypeId::kMap;
  std::vector<std::optional<std::string>> keys, values;
  if (map) {
    const auto& entries = static_cast<const StructArray&>(*l.elements());
    ROWJIT_ASSIGN_OR_RETURN(keys, NestedRows(entries.children()[0], engine));
    ROWJIT_ASSIGN_OR_RETURN(values, NestedRows(entries.children()[1], engine));
  } else {
    ROWJIT_ASSIGN_OR_RETURN(values, NestedRows(l.elements(), engine));
  }
  for (int64_t i = 0; i < n; ++i) {
    if (l.IsNull(i)) continue;
    std::string text = map ? "{" : "[";
    for (int64_t j = l.Start(i); j < l.End(i); ++j) {
      if (j > l.Start(i)) text += ", ";
      if (map) text += part(keys[static_cast<size_t>(j)]) + ": ";
      text += part(values[static_cast<size_t>(j)]);
    }
    out[static_cast<size_t>(i)] = text + (map ? "}" : "]");
  }
  return out;
}

Result<TextColumn> AsText(const ArrayPtr& column, jit::Engine& engine) {
  const DataType type = column->type();
  TextColumn out{
      column, type.id == TypeId::kBinary,
      type.logical == LogicalKind::kDecimal || (IsNumeric(type.id) && !type.is_logical())};
  if (IsString(type.id)) return out;
  if (IsNestedType(type)) {
    ROWJIT_ASSIGN_OR_RETURN(const auto rows, NestedRows(column, engine));
    std::vector<std::optional<std::string_view>> views;
    for (const auto& r : rows) views.push_back(r ? std::optional<std::string_view>(*r) : std::nullopt);
    ROWJIT_ASSIGN_OR_RETURN(auto text, MakeStringArray(DataType(TypeId::kUtf8, true), StringLayout::kOffsets32, views));
    out.text = std::move(text);
    out.hex = false;
    return out;
  }
  const Schema one{{Field{"v", type}}};
  ROWJIT_ASSIGN_OR_RETURN(ir::ExprPtr cast, ir::ParseAndBind("cast(v, utf8)", one));
  const std::vector<ArrayPtr> columns = {column};
  ROWJIT_ASSIGN_OR_RETURN(out.text, engine.Evaluate(cast, columns, column->length()));
  return out;
}

Result<std::vector<TextColumn>> AsText(const ResultRows& rows, int64_t length,
                                       jit::Engine& engine) {
  std::vector<TextColumn> out;
  for (const ArrayPtr& c : rows.columns) {
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr head,
                            length == c->length() ? Result<ArrayPtr>(c) : c->Slice(0, length));
    ROWJIT_ASSIGN_OR_RETURN(TextColumn text, AsText(head, engine));
    out.push_back(std::move(text));
  }
  return out;
}

// A value as a table shows it: control characters escaped, so that each row stays one line.
std::string Printable(std::string_view v) {
  std::string out;
  for (unsigned char c : v) {
    const char* named = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : nullptr;
    if (named != nullptr) {
      out += named;
    } else if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

// Characters on screen: UTF-8 lead bytes (wide characters count one).
size_t Width(std::string_view s) {
  return static_cast<size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

void PrintLine(const std::vector<std::string>& cells, const std::vector<size_t>& widths,
               const std::vector<TextColumn>& columns, std::FILE* out) {
  std::string line;
  for (size_t c = 0; c < cells.size(); ++c) {
    const std::string pad(widths[c] - Width(cells[c]), ' ');
    line += (c == 0 ? "" : "  ") + (columns[c].right ? pad + cells[c] : cells[c] + pad);
  }
  line.erase(line.find_last_not_of(' ') + 1);
  std::fputs((line + "\n").c_str(), out);
}

std::FILE* OpenOutput(const std::string& path) {
  return path == "-" ? stdout : std::fopen(path.c_str(), "wb");
}

Status CloseOutput(std::FILE* f, const std::string& path) {
  const bool failed =
      std::ferror(f) != 0 || (f == stdout ? std::fflush(f) != 0 : std::fclose(f) != 0);
  if (!failed) return Status::OK();
  return MakeError(ErrorCode::kIoError, "cannot write {}: {}",
                   path == "-" ? "standard output" : path, std::strerror(errno));
}

}  // namespace

Status PrintTable(const ResultRows& rows, int64_t max_rows, jit::Engine& engine, std::FILE* out) {
  const int64_t shown = std::min(max_rows, rows.length);
  ROWJIT_ASSIGN_OR_RETURN(const std::vector<TextColumn> columns, AsText(rows, shown, engine));
  std::vector<std::vector<std::string>> cells = {{}};
  std::vector<size_t> widths;
  for (const std::string& name : rows.names) {
    cells[0].push_back(Printable(name));
    widths.push_back(Width(cells[0].back()));
  }
  for (int64_t i = 0; i < shown; ++i) {
    std::vector<std::string>& row = cells.emplace_back();
    for (size_t c = 0; c < columns.size(); ++c) {
      const std::optional<std::string> v = columns[c].At(i);
      row.push_back(v ? Printable(*v) : "null");
      widths[c] = std::max(widths[c], Width(row.back()));
    }
  }
  for (const std::vector<std::string>& row : cells) PrintLine(row, widths, columns, out);
  if (shown < rows.length) {
    fmt::print(out, "({} more row{})\n", rows.length - shown, rows.length - shown == 1 ? "" : "s");
  }
  return Status::OK();
}

Status WriteCsv(const ResultRows& rows, const std::string& path, const std::string& null_text,
                jit::Engine& engine) {
  ROWJIT_ASSIGN_OR_RETURN(const std::vector<TextColumn> columns, AsText(rows, rows.length, engine));
  std::FILE* f = OpenOutput(path);
  if (f == nullptr) {
    return MakeError(ErrorCode::kIoError, "cannot open {}: {}", path, std::strerror(errno));
  }
  std::string buffer;
  for (size_t c = 0; c < rows.names.size(); ++c) {
    if (c > 0) buffer.push_back(',');
    AppendCsvField(buffer, rows.names[c], null_text);
  }
  buffer.push_back('\n');
  for (int64_t i = 0; i < rows.length; ++i) {
    for (size_t c = 0; c < columns.size(); ++c) {
      if (c > 0) buffer.push_back(',');
      const std::optional<std::string> v = columns[c].At(i);
      if (v) {
        AppendCsvField(buffer, *v, null_text);
      } else {
        buffer += null_text;
      }
    }
    buffer.push_back('\n');
    if (buffer.size() >= (size_t{1} << 20)) {  // written a megabyte at a time
      std::fwrite(buffer.data(), 1, buffer.size(), f);
      buffer.clear();
    }
  }
  std::fwrite(buffer.data(), 1, buffer.size(), f);
  return CloseOutput(f, path);
}

}  // namespace rowjit::cli
