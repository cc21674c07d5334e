// `rowjit eval --print N` and `--output FILE`: result columns as a readable table or as CSV,
// every value in the SQL text form the engine's `cast(v, utf8)` writes (decimals, dates,
// timestamps, intervals as text, not their storage) (tools layer).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "jit/api/engine.h"
#include "runtime/array.h"

namespace rowjit::cli {

// Named result columns of equal length: the expressions' outputs, or an aggregate's one row.
struct ResultRows {
  std::vector<std::string> names;
  std::vector<ArrayPtr> columns;
  int64_t length = 0;
};

// Prints the first `max_rows` rows to `out` as a table: a header of the names, values in SQL
// text form with null as `null`, binary as \x and hex digits, control characters escaped
// (\n, \t, \r, \xHH), numbers aligned right; then "(N more rows)" when rows were left out.
Status PrintTable(const ResultRows& rows, int64_t max_rows, jit::Engine& engine, std::FILE* out);

// Writes every row to `path` ("-": standard output) as CSV: a header of the names, then one
// record a row, LF-ended, values in SQL text form (binary as \x and hex digits), null as
// `null_text` (by default the empty field), a value quoted when it holds a comma, a quote or a
// line end, or equals `null_text`. kIoError when the file cannot be written.
Status WriteCsv(const ResultRows& rows, const std::string& path, const std::string& null_text,
                jit::Engine& engine);

}  // namespace rowjit::cli
