// CSV text (RFC 4180) for the CLI's --input and --output: a reader that keeps every field as
// bytes, column by column, with its null flag and the line each record starts on, and the
// quoting of one output field (tools layer; no types: eval types the columns with the engine).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/status.h"

namespace rowjit::cli {

// The fields of one column, back to back: field k is bytes[ends[k - 1], ends[k]) (the first
// starts at 0), and null[k] says whether it was the null spelling.
struct CsvColumn {
  std::string bytes;
  std::vector<int64_t> ends;
  std::vector<uint8_t> null;

  int64_t size() const { return static_cast<int64_t>(ends.size()); }
  std::string_view Field(int64_t k) const {
    const int64_t begin = k == 0 ? 0 : ends[static_cast<size_t>(k - 1)];
    return std::string_view(bytes).substr(
        static_cast<size_t>(begin), static_cast<size_t>(ends[static_cast<size_t>(k)] - begin));
  }
  bool IsNull(int64_t k) const { return null[static_cast<size_t>(k)] != 0; }
};

// A parsed file: the header's cells as written (quotes removed), one column per cell, and for
// each record the line it starts on (the header is line 1; a quoted field may span lines).
struct CsvTable {
  std::vector<std::string> header;
  std::vector<CsvColumn> columns;
  std::vector<int64_t> lines;

  int64_t rows() const { return static_cast<int64_t>(lines.size()); }
};

// Parses `text`: a header record, then records of as many fields, separated by commas and ended
// by LF or CRLF (the last one's end is optional). A field in double quotes may hold commas, line
// ends and doubled quotes (""); an unquoted field equal to `null_text` (by default the empty
// field) is null, a quoted one never is. A UTF-8 byte order mark before the header is skipped.
// An empty line is skipped when the header has several cells (it cannot be a record of them),
// and is a record of one empty field when it has one. Errors (kInvalidInput) name the line: an
// unclosed quote, text after a closing quote, a quote inside an unquoted field, a record with
// another number of fields than the header, no header at all.
// With `header_only`, the records are not read.
Result<CsvTable> ParseCsv(std::string_view text, std::string_view null_text = "",
                          bool header_only = false);

// Appends `value` as one CSV field: in double quotes (its quotes doubled) when it holds a comma,
// a quote, CR or LF, or equals `null_text` (so that it does not read back as null).
void AppendCsvField(std::string& out, std::string_view value, std::string_view null_text);

}  // namespace rowjit::cli
