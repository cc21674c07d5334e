// `rowjit eval --input FILE`: a CSV file as a typed record batch (tools layer). The schema comes
// from --schema, from types in the header's cells, or is inferred from the values; every column
// is read as text and converted by the engine's own cast, so values parse as in expressions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jit/api/engine.h"
#include "runtime/array.h"
#include "tools/csv.h"

namespace rowjit::cli {

struct CsvInput {
  std::string name;  // the path as given, or "standard input" for "-"
  RecordBatch batch;
  std::vector<int64_t> lines;  // the line each row starts on

  // "prices.csv line 4" for batch row 2.
  std::string Where(int64_t row) const;
};

// Reads `path` ("-": standard input) as CSV, with `null_text` the unquoted spelling of null.
// With `schema`, its columns are read from the header cells of their names (other cells are not
// read); without, every cell is a column, typed by the cell or inferred. Errors: kIoError when the
// file cannot be read; kInvalidInput, naming the file, for malformed CSV, a header that does not
// fit the schema, and a field that does not parse as its column's type (naming its line and
// column).
Result<CsvInput> ReadCsvInput(const std::string& path, const std::optional<Schema>& schema,
                              const std::string& null_text, jit::Engine& engine);

// The type inferred for a column of text fields (nulls skipped): i64 when every value is an
// integer that fits it, else f64 when every value is a decimal number (inf and nan do not count),
// else bool when every value is true or false (any case), else utf8; ASCII blanks around a value
// are ignored, as the casts ignore them. Nullable when any field is null; a column with no value
// is utf8.
DataType InferColumnType(const CsvColumn& column);

}  // namespace rowjit::cli
