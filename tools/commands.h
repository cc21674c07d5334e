// The CLI's subcommands and the small argument helpers they share (tools layer: thin).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "jit/gates/kernel_request.h"
#include "runtime/array.h"
#include "runtime/random.h"

namespace rowjit::cli {

struct CsvInput;  // tools/csv_input.h

// Arguments after the subcommand: flags with values (--rows 10 or --rows=10), switches and
// positionals.
class Args {
 public:
  explicit Args(std::vector<std::string_view> raw) : raw_(std::move(raw)) {}
  bool Has(std::string_view flag) const;
  // All values of a repeatable flag.
  std::vector<std::string> Values(std::string_view flag) const;
  std::optional<std::string> Value(std::string_view flag) const;
  std::vector<std::string> Positionals(const std::vector<std::string_view>& flags_with_values) const;
  // The first of `flags_with_values` given last, with no value after it (and no "="), or empty.
  std::string MissingValue(const std::vector<std::string_view>& flags_with_values) const;
  // The first argument starting with "--" that is not in `known`, or empty.
  std::string Unknown(const std::vector<std::string_view>& known) const;

 private:
  std::vector<std::string_view> raw_;
};

// The most rows --rows and --offset may each name (2^40: the most an Arrow array may claim on
// import). eval also refuses, before allocating, a batch the machine cannot hold.
inline constexpr int64_t kMaxRows = int64_t{1} << 40;
// The longest random string --string-lengths may ask for, in bytes.
inline constexpr int64_t kMaxStringLength = int64_t{1} << 20;

struct EvalOptions {
  std::string expr;
  std::string schema;
  int64_t rows = 1000;
  double valid = 0.9;
  uint64_t seed = 1;
  int64_t offset = 0;
  std::vector<std::pair<std::string, std::string>> constants;
  std::string policy = "auto";
  std::string target = "native";
  jit::VectorWidths vector_widths;  // --vector-width: the native kernels' widths ({}: the host's)
  bool verify = false;
  bool json = false;
  std::string stage = "opt";
  std::string cache_dir;        // eval: the disk cache folder (default: the XDG cache folder)
  bool no_disk_cache = false;   // eval: no disk cache
  std::string tier = "optimized";  // eval: fast | optimized
  std::string filter;           // eval: a predicate; EXPR runs under the selection it keeps
  std::vector<std::string> more_exprs;  // eval: --expr, repeatable: a projection of every EXPR
  StringSpec strings;           // eval: --string-lengths, --alphabet, --match, --match-share
  bool schema_given = false;    // --schema was given (eval with --input may go without)
  std::string input;            // eval: --input FILE, a CSV file ("-": standard input); empty: random
  std::optional<int64_t> print_rows;  // eval: --print N, the first N result rows as a table
  std::string output;           // eval: --output FILE, every result row as CSV ("-": standard output)
  std::string null_text;        // eval: --null TEXT, the unquoted spelling of null in CSV ("": empty)
  std::vector<std::string> names;  // eval: the output column names (EXPR's, then each --expr's)
};

// Fills `o` from the flags shared by eval, ir, check and explain, each value checked (numbers
// against their ranges, --target against the known targets). Returns -1 to continue, or an exit
// code (2 on usage errors, printed on stderr).
int ParseEvalOptions(const Args& args, EvalOptions& o, const char* help);
// A usage error (2) when `target` is not one of jit::KnownTargets() (what ir, check and explain
// generate code for), else -1.
int RejectUnknownTarget(const std::string& target, const char* help);
// For the commands other than eval: a usage error (2) when --filter, --expr, --input, --print,
// --output or --null was given, else -1.
int RejectEvalOnlyOptions(const EvalOptions& o, const char* help);
// eval with --input: a usage error (2) when an option of the random input was given, else -1.
int RejectRandomOptions(const Args& args, const char* help);

// The options ir, check and explain share, for their help texts (a literal, so it concatenates).
#define ROWJIT_KERNEL_OPTIONS_HELP                                                              \
  "  --schema S         columns as NAME:TYPE, '?' for nullable (required)\n"                    \
  "  --const NAME=V     make column NAME a batch constant (passed as a scalar; V may be null)\n" \
  "  --policy P         auto | dense | dense-retry | branch-skip | filter-scatter (default auto)\n" \
  "  --target T         native | x86-64-v2 | x86-64-v3 | x86-64-v4 | aarch64 | aarch64-sve\n"   \
  "                     (default native)\n"                                                      \
  "  --vector-width W   the native kernels' vector width: W, or R/F for row kernels and folds\n" \
  "                     apart (128, 256, 512; default: the host's choice)\n"

// The kernel that ir/check/explain inspect, from the parsed options.
Result<jit::PlannedKernel> PlanFromOptions(const EvalOptions& o);

int PrintHelp(const char* help);
// Prints "rowjit: <message>" and the help on stderr; exit code 2.
int Usage(const std::string& message, const char* help);
// The exit code of an error: 1 when rows failed (the error names its row); 2 for usage, parse,
// type, input and i/o errors, unsupported input and out of memory; 1 otherwise.
int ExitCode(const Error& error);
// Prints "rowjit: <error>" on stderr; returns ExitCode(error).
int Fail(const Error& error);
// The same for an error about `text` (an expression or a schema): the text follows, with a caret
// under the error's span (FormatError).
int Fail(const Error& error, std::string_view text);
// An error of parsing and binding the options' schema and expression (ir, check, explain): shown
// under the schema when the schema is what does not parse, else under the expression.
int FailBinding(const EvalOptions& o, const Error& error);
// "<code>: <function> at row R: <message>", and with a CSV input the row's line after the row:
// "overflow: mul at row 2 (prices.csv line 4): ...".
std::string ErrorText(const Error& error, const CsvInput* input);
// "rows N, nulls N, checksum 0x..." or "error " and ErrorText.
void PrintSummary(std::string_view label, const Result<ArrayPtr>& result, const CsvInput* input = nullptr);

int Info(const Args& args);
int Eval(const Args& args);
int Ir(const Args& args);
int Check(const Args& args);
int Explain(const Args& args);
int Functions(const Args& args);

}  // namespace rowjit::cli
