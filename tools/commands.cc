// Argument helpers and summaries shared by the subcommands (tools layer).
#include "tools/commands.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

#include "ir/version.h"
#include "jit/base/host.h"
#include "jit/base/target.h"
#include "runtime/random.h"
#include "tools/csv_input.h"

namespace rowjit::cli {

bool Args::Has(std::string_view flag) const {
  for (auto a : raw_) {
    if (a == flag || (a.starts_with(flag) && a.size() > flag.size() && a[flag.size()] == '=')) {
      return true;
    }
  }
  return false;
}

std::vector<std::string> Args::Values(std::string_view flag) const {
  std::vector<std::string> out;
  for (size_t i = 0; i < raw_.size(); ++i) {
    if (raw_[i] == flag && i + 1 < raw_.size()) {
      out.emplace_back(raw_[++i]);
    } else if (raw_[i].starts_with(flag) && raw_[i].size() > flag.size() &&
               raw_[i][flag.size()] == '=') {
      out.emplace_back(raw_[i].substr(flag.size() + 1));
    }
  }
  return out;
}

std::optional<std::string> Args::Value(std::string_view flag) const {
  auto v = Values(flag);
  if (v.empty()) return std::nullopt;
  return v.back();
}

std::vector<std::string> Args::Positionals(
    const std::vector<std::string_view>& flags_with_values) const {
  std::vector<std::string> out;
  for (size_t i = 0; i < raw_.size(); ++i) {
    std::string_view a = raw_[i];
    if (a.starts_with("--")) {
      for (auto f : flags_with_values) {
        if (a == f) {
          ++i;
          break;
        }
      }
      continue;
    }
    out.emplace_back(a);
  }
  return out;
}

std::string Args::MissingValue(const std::vector<std::string_view>& flags_with_values) const {
  if (raw_.empty()) return "";
  for (auto f : flags_with_values) {
    if (raw_.back() == f) return std::string(f);
  }
  return "";
}

std::string Args::Unknown(const std::vector<std::string_view>& known) const {
  for (auto a : raw_) {
    if (!a.starts_with("--")) continue;
    std::string_view name = a.substr(0, a.find('='));
    bool ok = false;
    for (auto k : known) ok = ok || name == k;
    if (!ok) return std::string(a);
  }
  return "";
}

namespace {

// The whole of `s` as a number of type T: no sign for unsigned types, no leading space, no
// "inf" or "nan", nothing past the type's range (a float that underflows to 0 included).
template <typename T>
bool ParseNumber(const std::string& s, T& out) {
  T value{};
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || p != s.data() + s.size()) return false;
  if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite(value)) return false;
  }
  out = value;
  return true;
}

// An integer flag's value in [lo, hi] into `out`, or a usage error naming the range and the value.
template <typename T>
int ParseIntegerFlag(const Args& args, std::string_view flag, T lo, T hi, T& out, const char* help) {
  const std::optional<std::string> v = args.Value(flag);
  if (!v) return -1;
  T value{};
  if (!ParseNumber(*v, value) || value < lo || value > hi) {
    return Usage(fmt::format("{} takes an integer in [{}, {}], not '{}'", flag, lo, hi, *v), help);
  }
  out = value;
  return -1;
}

// A fraction flag's value in [0, 1] into `out`, or a usage error.
int ParseFractionFlag(const Args& args, std::string_view flag, double& out, const char* help) {
  const std::optional<std::string> v = args.Value(flag);
  if (!v) return -1;
  double value = 0;
  if (!ParseNumber(*v, value) || !(value >= 0 && value <= 1)) {
    return Usage(fmt::format("{} takes a fraction in [0, 1], not '{}'", flag, *v), help);
  }
  out = value;
  return -1;
}

// --string-lengths MIN-MAX, each in [0, kMaxStringLength], MIN <= MAX.
int ParseStringLengths(const Args& args, StringSpec& spec, const char* help) {
  const std::optional<std::string> v = args.Value("--string-lengths");
  if (!v) return -1;
  const size_t dash = v->find('-');
  int64_t lo = 0, hi = 0;
  if (dash == std::string::npos || !ParseNumber(v->substr(0, dash), lo) || !ParseNumber(v->substr(dash + 1), hi) ||
      lo < 0 || hi < lo || hi > kMaxStringLength) {
    return Usage(fmt::format("--string-lengths takes MIN-MAX bytes (0 <= MIN <= MAX <= {}), not '{}'",
                             kMaxStringLength, *v),
                 help);
  }
  spec.min_length = lo;
  spec.max_length = hi;
  return -1;
}

// "a, b or c"
std::string OneOf(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += i == 0 ? "" : i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

}  // namespace

int Usage(const std::string& message, const char* help) {
  // The help's first line is the command's usage line; the options are one --help away.
  const std::string_view text(help);
  const std::string_view usage = text.substr(0, text.find('\n'));
  const size_t at = usage.find("rowjit ");
  const std::string_view command =
      at == std::string_view::npos ? std::string_view("rowjit") : usage.substr(at, usage.find(' ', at + 7) - at);
  fmt::print(stderr, "rowjit: {}\n{}\n({} --help lists the options)\n", message, usage, command);
  return 2;
}

int RejectUnknownTarget(const std::string& target, const char* help) {
  const std::vector<std::string>& known = jit::KnownTargets();
  if (std::find(known.begin(), known.end(), target) != known.end()) return -1;
  return Usage(fmt::format("unknown target '{}': --target takes {}", target, OneOf(known)), help);
}

namespace {

// EXPR (or the first --expr) and the other --expr; EXPR "-" is read from standard input.
int ParseExpressions(const Args& args, const std::vector<std::string_view>& with_values, EvalOptions& o,
                     const char* help) {
  auto pos = args.Positionals(with_values);
  o.more_exprs = args.Values("--expr");
  if (pos.size() > 1 || (pos.empty() && o.more_exprs.empty())) return Usage("expected one expression", help);
  if (pos.empty()) {
    o.expr = o.more_exprs.front();
    o.more_exprs.erase(o.more_exprs.begin());
  } else {
    o.expr = pos[0];
  }
  if (o.expr == "-") {  // generated expressions outgrow a command line
    if (args.Value("--input") == "-") return Usage("EXPR and --input cannot both be standard input", help);
    std::string text;
    char buffer[1 << 16];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, stdin)) > 0) text.append(buffer, n);
    if (std::ferror(stdin)) return Usage("cannot read the expression from standard input", help);
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    o.expr = std::move(text);
  }
  return -1;
}

// The random input's options: rows, offset, seed, valid share, strings, constants.
int ParseRandomOptions(const Args& args, EvalOptions& o, const char* help) {
  if (int rc = ParseIntegerFlag(args, "--rows", int64_t{0}, kMaxRows, o.rows, help); rc >= 0) return rc;
  if (int rc = ParseIntegerFlag(args, "--offset", int64_t{0}, kMaxRows, o.offset, help); rc >= 0) return rc;
  if (int rc = ParseIntegerFlag(args, "--seed", uint64_t{0}, std::numeric_limits<uint64_t>::max(), o.seed, help);
      rc >= 0) {
    return rc;
  }
  if (int rc = ParseFractionFlag(args, "--valid", o.valid, help); rc >= 0) return rc;
  if (int rc = ParseStringLengths(args, o.strings, help); rc >= 0) return rc;
  if (int rc = ParseFractionFlag(args, "--match-share", o.strings.match_share, help); rc >= 0) return rc;
  if (auto v = args.Value("--alphabet")) {
    if (v->empty()) return Usage("--alphabet takes at least one character", help);
    o.strings.alphabet = *v;
  }
  if (auto v = args.Value("--match")) o.strings.match = *v;
  for (const std::string& c : args.Values("--const")) {
    const size_t eq = c.find('=');
    if (eq == std::string::npos || eq == 0) return Usage("--const takes NAME=VALUE", help);
    o.constants.emplace_back(c.substr(0, eq), c.substr(eq + 1));
  }
  return -1;
}

// eval's rows in and out: --input, --print, --output, --null.
int ParseRowsOptions(const Args& args, EvalOptions& o, const char* help) {
  if (auto v = args.Value("--input")) {
    if (v->empty()) return Usage("--input takes a file (- for standard input)", help);
    o.input = *v;
  }
  int64_t print_rows = 0;
  if (int rc = ParseIntegerFlag(args, "--print", int64_t{0}, kMaxRows, print_rows, help); rc >= 0) return rc;
  if (args.Has("--print")) o.print_rows = print_rows;
  if (auto v = args.Value("--output")) {
    if (v->empty()) return Usage("--output takes a file (- for standard output)", help);
    o.output = *v;
  }
  if (o.print_rows && o.output == "-") return Usage("--print and --output - would both write to standard output", help);
  if (auto v = args.Value("--null")) o.null_text = *v;
  return -1;
}

}  // namespace

int ParseEvalOptions(const Args& args, EvalOptions& o, const char* help) {
  static const std::vector<std::string_view> kWithValues = {
      "--schema", "--rows", "--valid", "--const", "--seed", "--offset", "--policy", "--target", "--vector-width",
      "--stage", "--cache-dir", "--tier", "--filter", "--expr", "--string-lengths", "--alphabet",
      "--match", "--match-share", "--input", "--print", "--output", "--null"};
  std::vector<std::string_view> known = kWithValues;
  known.insert(known.end(), {"--verify", "--json", "--help", "--catalog", "--no-disk-cache"});
  if (auto u = args.Unknown(known); !u.empty()) return Usage("unknown option '" + u + "'", help);
  if (auto m = args.MissingValue(kWithValues); !m.empty()) return Usage(m + " takes a value", help);
  if (int rc = ParseExpressions(args, kWithValues, o, help); rc >= 0) return rc;
  auto schema = args.Value("--schema");
  if (!schema && !args.Has("--input")) return Usage("--schema is required", help);
  o.schema_given = schema.has_value();
  o.schema = schema.value_or("");
  if (int rc = ParseRandomOptions(args, o, help); rc >= 0) return rc;
  if (int rc = ParseRowsOptions(args, o, help); rc >= 0) return rc;
  if (auto v = args.Value("--policy")) o.policy = *v;
  if (auto v = args.Value("--target")) o.target = *v;
  if (int rc = RejectUnknownTarget(o.target, help); rc >= 0) return rc;
  if (auto v = args.Value("--vector-width")) {
    Result<jit::VectorWidths> widths = jit::ParseVectorWidths(*v);
    if (!widths.ok()) return Usage(widths.error().message(), help);
    o.vector_widths = *widths;
  }
  if (auto v = args.Value("--stage")) o.stage = *v;
  if (auto v = args.Value("--cache-dir")) o.cache_dir = *v;
  if (auto v = args.Value("--tier")) o.tier = *v;
  if (auto v = args.Value("--filter")) o.filter = *v;
  if (o.tier != "fast" && o.tier != "optimized") return Usage("--tier takes fast or optimized", help);
  o.no_disk_cache = args.Has("--no-disk-cache");
  o.verify = args.Has("--verify");
  o.json = args.Has("--json");
  return -1;
}

int RejectEvalOnlyOptions(const EvalOptions& o, const char* help) {
  if (!o.filter.empty() || !o.more_exprs.empty() || !o.input.empty() || o.print_rows || !o.output.empty() ||
      !o.null_text.empty()) {
    return Usage("--filter, --expr, --input, --print, --output and --null are options of eval", help);
  }
  return -1;
}

int RejectRandomOptions(const Args& args, const char* help) {
  for (std::string_view flag : {"--rows", "--valid", "--seed", "--offset", "--const", "--string-lengths",
                                "--alphabet", "--match", "--match-share"}) {
    if (args.Has(flag)) {
      return Usage(fmt::format("{} makes random input: it cannot be given with --input", flag), help);
    }
  }
  return -1;
}

int PrintHelp(const char* help) {
  std::fputs(help, stdout);
  return 0;
}

int ExitCode(const Error& error) {
  if (error.row()) return 1;
  switch (error.code()) {
    case ErrorCode::kInvalidInput:
    case ErrorCode::kTypeError:
    case ErrorCode::kUnsupported:
    case ErrorCode::kIoError:
    case ErrorCode::kOutOfMemory: return 2;
    default: return 1;
  }
}

int Fail(const Error& error) {
  std::fflush(stdout);  // what was printed before the error comes before it in a shared log
  fmt::print(stderr, "rowjit: {}\n", error.ToString());
  return ExitCode(error);
}

int Fail(const Error& error, std::string_view text) {
  std::fflush(stdout);
  fmt::print(stderr, "rowjit: {}\n", FormatError(text, error));
  return ExitCode(error);
}

int FailBinding(const EvalOptions& o, const Error& error) {
  if (!error.span()) return Fail(error);
  const bool schema_fails = !o.schema.empty() && !ParseSchema(o.schema).ok();
  return Fail(error, schema_fails ? std::string_view(o.schema) : std::string_view(o.expr));
}

std::string ErrorText(const Error& error, const CsvInput* input) {
  if (input == nullptr || !error.row()) return error.ToString();
  std::string out(ErrorCodeName(error.code()));
  if (!error.function().empty()) out += ": " + error.function();
  out += fmt::format(" at row {} ({})", *error.row(), input->Where(*error.row()));
  if (!error.message().empty()) out += ": " + error.message();
  return out;
}

void PrintSummary(std::string_view label, const Result<ArrayPtr>& result, const CsvInput* input) {
  if (!result.ok()) {
    fmt::print("{:<10}error {}\n", label, ErrorText(result.error(), input));
    return;
  }
  const Array& a = **result;
  fmt::print("{:<10}rows {}, nulls {}, checksum {:#018x}\n", label, a.length(), a.NullCount(),
             ArrayChecksum(a));
}

int Info(const Args& args) {
  if (args.Has("--help")) {
    return PrintHelp("usage: rowjit info\n\nPrints the target triple, CPU name and CPU features "
                     "that LLVM detects on this host, what kernels are compiled for (native, or "
                     "the x86-64 level ROWJIT_KERNEL_LEVEL forces: baseline|v2|v3|v4), and the vector "
                     "widths chosen for this CPU: row kernels, integer row kernels, and folds with the math "
                     "kernels.\n");
  }
  const auto host = jit::GetHostInfo();
  fmt::print("rowjit {}\nllvm {}\ntriple {}\ncpu {}\nfeatures {}\nkernels {}\n", Version(), host.llvm_version,
             host.target_triple, host.cpu_name, host.features, host.kernel_target);
  if (Result<jit::TargetSpec> native = jit::ResolveTarget("native"); native.ok()) {
    fmt::print("vectors rows {} bits, integer rows {} bits, folds and math {} bits\n", native->prefer_vector_width,
               native->IntegerRowsWidth(), native->sum_fold_vector_width);
  }
  return 0;
}

}  // namespace rowjit::cli
