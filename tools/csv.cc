// The CSV reader and field writer of the CLI (tools layer): one pass over the text, each field
// appended to its column's bytes, quotes undoubled on the way.
#include "tools/csv.h"

#include <algorithm>

namespace rowjit::cli {

namespace {

// What ended a field: a comma, a line end, or the end of the text.
enum class FieldEnd { kComma, kLine, kText };

class CsvParser {
 public:
  CsvParser(std::string_view text, std::string_view null_text)
      : text_(text), null_text_(null_text) {
    if (text_.starts_with("\xEF\xBB\xBF")) text_.remove_prefix(3);  // a UTF-8 byte order mark
  }

  Result<CsvTable> Parse(bool header_only);

 private:
  Result<FieldEnd> ReadField(std::string& out, bool& quoted);
  Result<FieldEnd> ReadQuoted(std::string& out);
  Result<FieldEnd> ReadUnquoted(std::string& out);
  Result<FieldEnd> FieldEndAt();
  Status ReadHeader(CsvTable& table);
  Status ReadRecord(CsvTable& table);
  bool AtEmptyLine() const {
    return text_.substr(pos_).starts_with('\n') || text_.substr(pos_).starts_with("\r\n");
  }

  std::string_view text_;
  std::string_view null_text_;
  size_t pos_ = 0;
  int64_t line_ = 1;
};

Result<FieldEnd> CsvParser::FieldEndAt() {
  if (pos_ == text_.size()) return FieldEnd::kText;
  if (text_[pos_] == ',') {
    ++pos_;
    return FieldEnd::kComma;
  }
  const size_t eol = text_[pos_] == '\n' ? 1 : text_.substr(pos_).starts_with("\r\n") ? 2 : 0;
  if (eol == 0) {
    return MakeError(ErrorCode::kInvalidInput,
                     "line {}: text after the closing quote of a field (a quote inside a quoted "
                     "field is doubled: \"a\"\"b\")",
                     line_);
  }
  pos_ += eol;
  ++line_;
  return FieldEnd::kLine;
}

Result<FieldEnd> CsvParser::ReadQuoted(std::string& out) {
  const int64_t start_line = line_;
  ++pos_;  // the opening quote
  while (true) {
    const size_t quote = text_.find('"', pos_);
    if (quote == std::string_view::npos) {
      return MakeError(ErrorCode::kInvalidInput, "line {}: a quoted field is not closed",
                       start_line);
    }
    const std::string_view run = text_.substr(pos_, quote - pos_);
    line_ += std::count(run.begin(), run.end(), '\n');
    out.append(run);
    pos_ = quote + 1;
    if (pos_ < text_.size() && text_[pos_] == '"') {  // a doubled quote stands for one
      out.push_back('"');
      ++pos_;
      continue;
    }
    return FieldEndAt();
  }
}

Result<FieldEnd> CsvParser::ReadUnquoted(std::string& out) {
  size_t end = pos_;
  while (end < text_.size() && text_[end] != ',' && text_[end] != '\n' &&
         !(text_[end] == '\r' && end + 1 < text_.size() && text_[end + 1] == '\n')) {
    if (text_[end] == '"') {
      return MakeError(
          ErrorCode::kInvalidInput,
          "line {}: a quote inside an unquoted field (quote the whole field and double the quote: "
          "\"a\"\"b\")",
          line_);
    }
    ++end;
  }
  out.append(text_.substr(pos_, end - pos_));
  pos_ = end;
  return FieldEndAt();
}

Result<FieldEnd> CsvParser::ReadField(std::string& out, bool& quoted) {
  quoted = pos_ < text_.size() && text_[pos_] == '"';
  return quoted ? ReadQuoted(out) : ReadUnquoted(out);
}

Status CsvParser::ReadHeader(CsvTable& table) {
  if (text_.empty()) {
    return MakeError(ErrorCode::kInvalidInput, "no header row (the input is empty)");
  }
  FieldEnd end = FieldEnd::kComma;
  while (end == FieldEnd::kComma) {
    std::string cell;
    bool quoted = false;
    ROWJIT_ASSIGN_OR_RETURN(end, ReadField(cell, quoted));
    table.header.push_back(std::move(cell));
  }
  table.columns.resize(table.header.size());
  return Status::OK();
}

// One record, each field appended to its column; its line is recorded once it is whole.
Status CsvParser::ReadRecord(CsvTable& table) {
  const int64_t line = line_;
  const size_t want = table.columns.size();
  size_t fields = 0;
  FieldEnd end = FieldEnd::kComma;
  while (end == FieldEnd::kComma) {
    if (fields == want) {
      return MakeError(ErrorCode::kInvalidInput, "line {}: more than {} fields, the header has {}",
                       line, want, want);
    }
    CsvColumn& column = table.columns[fields++];
    const size_t start = column.bytes.size();
    bool quoted = false;
    ROWJIT_ASSIGN_OR_RETURN(end, ReadField(column.bytes, quoted));
    const bool null = !quoted && std::string_view(column.bytes).substr(start) == null_text_;
    if (null) column.bytes.resize(start);
    column.ends.push_back(static_cast<int64_t>(column.bytes.size()));
    column.null.push_back(null ? 1 : 0);
  }
  if (fields < want) {
    return MakeError(ErrorCode::kInvalidInput, "line {}: {} field{}, the header has {}", line,
                     fields, fields == 1 ? "" : "s", want);
  }
  table.lines.push_back(line);
  return Status::OK();
}

Result<CsvTable> CsvParser::Parse(bool header_only) {
  CsvTable table;
  ROWJIT_RETURN_NOT_OK(ReadHeader(table));
  while (!header_only && pos_ < text_.size()) {
    if (table.columns.size() > 1 && AtEmptyLine()) {
      pos_ += text_[pos_] == '\n' ? 1 : 2;
      ++line_;
      continue;
    }
    ROWJIT_RETURN_NOT_OK(ReadRecord(table));
  }
  return table;
}

}  // namespace

Result<CsvTable> ParseCsv(std::string_view text, std::string_view null_text, bool header_only) {
  return NoThrow(
      [&]() -> Result<CsvTable> { return CsvParser(text, null_text).Parse(header_only); });
}

void AppendCsvField(std::string& out, std::string_view value, std::string_view null_text) {
  const bool quote = value == null_text || value.find_first_of(",\"\r\n") != std::string_view::npos;
  if (!quote) {
    out.append(value);
    return;
  }
  out.push_back('"');
  for (char c : value) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
}

}  // namespace rowjit::cli
