// `rowjit eval`: evaluate an expression over random inputs with the JIT (and the reference with
// --verify) and summarise the result (tools).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <optional>

#include "ir/aggregate.h"
#include "ir/top_k.h"
#include "ir/binder.h"
#include "ir/query.h"
#include "ir/reference.h"
#include "jit/api/engine.h"
#include "jit/base/host.h"
#include "kernels/dispatch.h"
#include "runtime/random.h"
#include "jit/exec/static_chain.h"
#include "runtime/environment.h"
#include "tools/commands.h"
#include "tools/csv_input.h"
#include "tools/csv_output.h"
#include "tools/eval_internal.h"

namespace rowjit::cli {

namespace {

constexpr const char* kHelp = R"(usage: rowjit eval EXPR --schema 'a:i32?,b:i32' [options]
       rowjit eval EXPR --input FILE.csv [--schema S] [--print N] [--output FILE] [options]

Evaluates EXPR with the JIT over random columns for --schema, or over the columns of a CSV file
(--input), and prints a summary: rows, nulls, the first error (function and row) or a checksum,
the strategy, compile time and time per row. An aggregate (sum(a * b), min_max(a), count(x), ...)
prints its result instead, and an aggregate query ('sum(x), avg(y), count(*) filter (where y > 0)
group by g where p') its table: one row per group, the GROUP BY columns then the aggregates (the
first 20 groups in the summary; --print N and --output print rows). A top-k selection
('bottom_k(l2_distance(v, [0.5, -1.0]), 10) where a > 0', top_k for the largest) prints the rows
it keeps, best first (the first ten, or --print N). When every operator has
a static kernel (checked/wrapping add, sub, mul, comparisons), the same rows also run as a static
chain (one kernel per operator, intermediates materialized): its time per row is printed beside
the JIT's, and its values must equal the JIT's. With --print or --output the result rows are
printed instead of the summary.

Exit status: 0 when every row was computed; 1 when a row failed (the first failure is printed
with its row and function, and with --input its line) or --verify found a difference; 2 on a
usage, parse or type error, or input that cannot be read.

input and output:
  --input FILE       read the columns from a CSV file with a header row (- for standard input):
                     typed by --schema (columns matched by header name, the others ignored), by
                     NAME:TYPE header cells, or inferred (i64, f64, bool, else utf8; nullable when
                     a field is null). An empty unquoted field is null, "" is the empty string.
                     The random input's options (--rows, --valid, --seed, --offset, --const,
                     --string-lengths, --alphabet, --match, --match-share) are refused with it
  --null TEXT        the unquoted spelling of null in CSV input and output (default: empty)
  --print N          print the first N result rows as a table instead of the summary (values as
                     SQL text, null as null)
  --output FILE      write every result row as CSV (- for standard output; null as an empty
                     field, or --null's TEXT); EXPR's header is its text, or NAME for 'EXPR as NAME'

options:
  --schema S         columns as NAME:TYPE, '?' for nullable (required without --input)
  --rows N           rows to generate, 0 to 2^40 (default 1000)
  --valid F          fraction of non-null rows in nullable columns, 0 to 1 (default 0.9)
  --const NAME=V     make column NAME a batch constant of value V (V may be null); repeatable
  --seed S           random seed, 0 to 2^64 - 1 (default 1)
  --string-lengths A-B  random strings of A to B bytes, 0 <= A <= B <= 1048576 (default 0-16)
  --alphabet S       the characters random strings are made of (UTF-8; default
                     'abcxyzAB-_%' and three multibyte characters)
  --match TEXT       with --match-share F (0 to 1): that share of string rows equal TEXT (a
                     literal's matches)
  --offset K         slice every input at row (bit) offset K first, 0 to 2^40
  --policy P         auto | dense | dense-retry | branch-skip | filter-scatter (default auto)
  --target T         native (default), or an x86-64 level this CPU runs (x86-64-v2, x86-64-v3,
                     x86-64-v4, where the CPU has it): the JIT's and the static kernels are held
                     to that level (over ROWJIT_KERNEL_LEVEL). eval runs what it compiles: other
                     targets are for ir, check and explain
  --verify           also run the reference evaluator; exit 1 on any difference, printing the
                     first differing row (agreeing on the same error at the same row is a match)
  --tier T           optimized (default) | fast: the kernel tier to compile and run
  --vector-width W   the kernels' vector width: W, or R/F for row kernels and folds apart
                     (128, 256, 512; default: the host's choice)
  --cache-dir DIR    the disk cache of optimized kernels (default $ROWJIT_CACHE_DIR, else
                     $XDG_CACHE_HOME/rowjit, else ~/.cache/rowjit): a second run of the same
                     kernel reads it from there
  --no-disk-cache    compile without reading or writing the disk cache
  --filter P         a bool predicate: Engine::Filter keeps the rows where P is true (null is
                     false), then EXPR runs under that selection (one result row per kept row;
                     only kept rows can fail); --verify checks both against the reference
  --expr E           another expression (repeatable; EXPR may then be omitted): every one is
                     evaluated in one pass by Engine::Project (under --filter's selection if
                     given); --verify checks each output against the reference

The random batch (K + N rows of every column that is not a constant, strings at the average of
their lengths) is estimated before anything is allocated: past this machine's memory it is
refused (out of memory, exit 2), as is a utf8 or binary column whose strings would pass the
2^31 - 1 bytes its 32-bit offsets reach (exit 2).
)";

// The disk cache folder: --cache-dir, else the library's default (DefaultCacheDir: the same
// rule as the Python module's and the Dask helpers'); none with --no-disk-cache.
std::string CacheFolder(const EvalOptions& o) {
  if (o.no_disk_cache) return "";
  if (!o.cache_dir.empty()) return o.cache_dir;
  return DefaultCacheDir();
}

// eval runs the kernels it compiles, so it takes the targets this CPU runs: native (the
// default; ROWJIT_KERNEL_LEVEL may hold it to a lower x86-64 level), or an x86-64 level the CPU
// has, to which the JIT's kernels and the static ones are then held (kernels::SetKernelLevel, as
// ROWJIT_KERNEL_LEVEL does).
std::vector<std::string> RunnableTargets() {
  std::vector<std::string> out = {"native"};
  if (!jit::GetHostInfo().target_triple.starts_with("x86_64")) return out;
  for (kernels::KernelLevel level : kernels::AvailableKernelLevels()) {
    if (level != kernels::KernelLevel::kBaseline) out.push_back("x86-64-" + std::string(kernels::KernelLevelName(level)));
  }
  return out;
}

int UseTarget(const std::string& target) {
  if (target == "native") return -1;
  const std::vector<std::string> runnable = RunnableTargets();
  const std::optional<kernels::KernelLevel> level = kernels::ParseKernelLevel(target);
  if (std::find(runnable.begin(), runnable.end(), target) == runnable.end() || !level ||
      !kernels::SetKernelLevel(*level)) {
    std::string names;
    for (const std::string& t : runnable) names += (names.empty() ? "" : ", ") + t;
    return Usage(fmt::format("eval runs its kernels on this CPU: --target takes {} here, not '{}' (ir, check "
                             "and explain generate code for any target)",
                             names, target),
                 kHelp);
  }
  return -1;
}

// A random string's expected bytes: the middle of --string-lengths, and --match's share.
double AverageStringLength(const EvalOptions& o) {
  const double random = (static_cast<double>(o.strings.min_length) + static_cast<double>(o.strings.max_length)) / 2;
  return (1 - o.strings.match_share) * random + o.strings.match_share * static_cast<double>(o.strings.match.size());
}

double ValidShare(const EvalOptions& o, const Field& f) { return f.type.nullable ? o.valid : 1.0; }

bool IsConstant(const EvalOptions& o, const Field& f) {
  return std::any_of(o.constants.begin(), o.constants.end(), [&](const auto& c) { return c.first == f.name; });
}

// The bytes RandomBatch holds at its peak for one generated row of a column: a fixed-width row
// passes through a Scalar into its buffer; a string row is held twice (the rows, then the
// column's data) at the average length (null rows are empty), with its bookkeeping and its
// offset or view.
double RowBytes(const EvalOptions& o, const Field& f) {
  if (!IsString(f.type.id)) return static_cast<double>(sizeof(Scalar)) + ByteWidth(f.type.id) + 1;
  const double layout = f.layout == StringLayout::kViews ? 16 : f.layout == StringLayout::kOffsets64 ? 8 : 4;
  const double bookkeeping = 2 * sizeof(std::optional<std::string>) + sizeof(std::optional<std::string_view>) + 16;
  return 2 * AverageStringLength(o) * ValidShare(o, f) + bookkeeping + layout + 1;
}

// Refuses, before anything is allocated, a batch that cannot be built: a utf8 or binary column
// whose strings would pass its 32-bit offsets (a usage error), or a batch past this machine's
// memory (out of memory).
Status CheckBatchFits(const Schema& schema, const EvalOptions& o) {
  const double rows = static_cast<double>(o.rows) + static_cast<double>(o.offset);
  double bytes = 0, string_bytes = 0;
  int string_columns = 0;
  for (const Field& f : schema.fields) {
    if (IsConstant(o, f)) continue;
    bytes += rows * RowBytes(o, f);
    if (!IsString(f.type.id)) continue;
    ++string_columns;
    const double data = rows * AverageStringLength(o) * ValidShare(o, f);
    string_bytes += data;
    if (f.layout == StringLayout::kOffsets32 && data > static_cast<double>(std::numeric_limits<int32_t>::max())) {
      return MakeError(ErrorCode::kInvalidInput,
                       "column '{}' ({}) would hold about {:.1f} GiB of strings ({:.0f} rows of {:.0f} bytes on "
                       "average), past the 2^31 - 1 bytes its 32-bit offsets reach: use {} or {}, fewer rows or "
                       "shorter --string-lengths",
                       f.name, StringTypeName(f.type.id, f.layout), data / (1 << 30), rows, AverageStringLength(o),
                       StringTypeName(f.type.id, StringLayout::kOffsets64),
                       StringTypeName(f.type.id, StringLayout::kViews));
    }
  }
  const double have = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  if (have > 0 && bytes > have) {
    const std::string strings =
        string_columns == 0 ? ""
                            : fmt::format(", {:.1f} GiB of it strings of {:.0f} bytes on average in {} column{}",
                                          string_bytes / (1 << 30), AverageStringLength(o), string_columns,
                                          string_columns == 1 ? "" : "s");
    return MakeError(ErrorCode::kOutOfMemory,
                     "the random batch of {:.0f} rows (--rows {} and --offset {}) needs about {:.1f} GiB{}; this "
                     "machine has {:.1f} GiB",
                     rows, o.rows, o.offset, bytes / (1 << 30), strings, have / (1 << 30));
  }
  return Status::OK();
}

// The CLI compiles synchronously, so that the time it prints is the compile's.
Result<std::unique_ptr<jit::Engine>> MakeEngine(const EvalOptions& o) {
  return jit::Engine::Make({.vector_widths = o.vector_widths,
                            .cache_dir = CacheFolder(o), .compile = jit::EngineOptions::Compile::kSynchronous});
}

jit::Tier TierOf(const EvalOptions& o) { return o.tier == "fast" ? jit::Tier::kFast : jit::Tier::kOptimized; }

// Where the first call's kernel came from, and where its time went.
void PrintKernel(const jit::EvalReport& r) {
  if (!r.tier) return;
  const jit::CompilePhases& p = r.phases;
  if (r.source == jit::KernelSource::kDisk) {
    fmt::print("kernel    {}, read from the disk cache in {:.2f} ms (read {:.2f}, link {:.2f})\n",
               jit::TierName(*r.tier), p.total_ms(), p.read_ms, p.link_ms);
  } else if (r.source == jit::KernelSource::kCompiled) {
    fmt::print("kernel    {}, compiled in {:.2f} ms (IR {:.2f}, optimize {:.2f}, codegen {:.2f}, link {:.2f})\n",
               jit::TierName(*r.tier), p.total_ms(), p.emit_ms, p.optimize_ms, p.codegen_ms, p.link_ms);
  } else {
    fmt::print("kernel    {}, in memory\n", jit::TierName(*r.tier));
  }
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// Nanoseconds per row of a run of `seconds` over `rows` rows.
double PerRow(double seconds, int64_t rows) { return rows > 0 ? seconds * 1e9 / static_cast<double>(rows) : 0.0; }

// sum(a * b) and the other aggregates: the fused fold kernel, and the reference with --verify.
int EvalAggregate(const EvalOptions& o, const RecordBatch& batch, const CsvInput* input, jit::Engine& engine) {
  auto agg = ir::ParseAndBindAggregate(o.expr, batch.schema);
  if (!agg.ok()) return Fail(agg.error(), o.expr);
  fmt::print("aggregate {}\n", agg->ToString());
  jit::EvalReport report;
  auto start = std::chrono::steady_clock::now();
  const jit::EvalOptions eval_options{.tier = TierOf(o)};
  auto out = engine.Aggregate(*agg, batch.columns, batch.length, eval_options, &report);
  const double first = Seconds(start);
  const double compile_ms = report.compile_ms;
  PrintKernel(report);
  start = std::chrono::steady_clock::now();
  auto again = engine.Aggregate(*agg, batch.columns, batch.length, eval_options, &report);
  const double second = Seconds(start);
  auto text = [&](const Result<ir::AggregateResult>& r) {
    return r.ok() ? r->ToString(agg->kind) : "error " + ErrorText(r.error(), input);
  };
  fmt::print("jit       {}\n", text(out));
  fmt::print("time      compile {:.2f} ms, first run {:.2f} ms, cached run {:.3f} ms, {:.2f} ns/row\n",
             compile_ms, first * 1e3, second * 1e3,
             PerRow(second, batch.length));
  const int rows_rc = out.ok() ? 0 : ExitCode(out.error());
  if (!o.verify) return rows_rc;
  auto ref = ir::EvaluateAggregateReference(*agg, batch.columns, batch.length);
  fmt::print("reference {}\n", text(ref));
  if (text(out) != text(ref)) {
    fmt::print("verify    DIFFERENT\n");
    return 1;
  }
  fmt::print("verify    ok: {}\n", out.ok() ? "identical results" : "both report the same error");
  return rows_rc;
}

// top_k(score, k) / bottom_k(score, k) [where p]: Engine::TopK over the batch, its rows (the first
// ten, or --print N), and the reference with --verify.
int EvalTopK(const EvalOptions& o, const RecordBatch& batch, const CsvInput* input, jit::Engine& engine,
             const jit::EvalOptions& eval_options) {
  auto top = ir::ParseAndBindTopK(o.expr, batch.schema);
  if (!top.ok()) return Fail(top.error(), o.expr);
  fmt::print("select    {}\n", top->ToString());
  auto run = [&](jit::EvalReport* report) -> Result<ir::TopKResult> {
    ir::TopKState state(*top);
    ROWJIT_RETURN_NOT_OK(engine.TopK(*top, batch.columns, batch.length, state, 0, eval_options, report));
    return state.Finish();
  };
  jit::EvalReport report;
  auto start = std::chrono::steady_clock::now();
  auto out = run(&report);
  const double first = Seconds(start);
  start = std::chrono::steady_clock::now();
  auto again = run(nullptr);
  const double second = Seconds(start);
  if (!out.ok()) {
    fmt::print("jit       error {}\n", ErrorText(out.error(), input));
    return ExitCode(out.error());
  }
  const int64_t shown = std::min<int64_t>(out->rows->length(), o.print_rows.value_or(10));
  fmt::print("jit       {} row{} kept\n", out->rows->length(), out->rows->length() == 1 ? "" : "s");
  for (int64_t i = 0; i < shown; ++i) {
    const std::string score = out->scores->GetScalar(i).ToString();
    fmt::print("  {:<6} row {:<10} {}\n", i + 1, out->rows->GetScalar(i).value<int64_t>(), score.substr(0, score.find(':')));
  }
  fmt::print("time      first run {:.2f} ms, cached run {:.3f} ms, {:.2f} ns/row\n", first * 1e3, second * 1e3,
             PerRow(second, batch.length));
  if (!o.verify) return 0;
  auto ref = ir::TopKReference(*top, batch.columns, batch.length);
  if (!ref.ok()) return Fail(ref.error());
  const bool same = ArraysEqual(*out->rows, *ref->rows) && FirstDifference(*out->scores, *ref->scores) < 0;
  fmt::print("verify    {}\n", same ? "ok: the same rows and scores" : "DIFFERENT");
  return same ? 0 : 1;
}

// A query's groups, or its error.
std::string QueryText(const Result<ir::QueryResult>& r, const CsvInput* input) {
  if (!r.ok()) return "error " + ErrorText(r.error(), input);
  return fmt::format("{} group{}", r->groups, r->groups == 1 ? "" : "s");
}

// Where the JIT's and the reference's answers to a query part: "" when they agree (the same
// values, or the same error at the same row).
std::string QueryDifference(const Result<ir::QueryResult>& jit, const Result<ir::QueryResult>& ref) {
  if (jit.ok() != ref.ok()) return jit.ok() ? "the reference failed" : "the jit failed";
  if (!jit.ok()) {
    const bool same = jit.error().code() == ref.error().code() && jit.error().row() == ref.error().row();
    return same ? "" : "the errors differ";
  }
  if (jit->groups != ref->groups) return fmt::format("{} groups, the reference {}", jit->groups, ref->groups);
  for (size_t c = 0; c < jit->columns.size(); ++c) {
    const Array& a = *jit->columns[c];
    const Array& b = *ref->columns[c];
    const int64_t row = a.type() != b.type() ? 0 : FirstDifference(a, b);
    if (row >= 0) {
      return fmt::format("{} of group {}: jit {} reference {}", jit->names[c], row, a.GetScalar(row).ToString(),
                         b.GetScalar(row).ToString());
    }
  }
  return "";
}

// An aggregate query ('sum(x), avg(y) group by g where p'): Engine::Query, its table (the first
// groups), and the reference with --verify.
int EvalQuery(const EvalOptions& o, const RecordBatch& batch, const CsvInput* input, jit::Engine& engine,
              const jit::EvalOptions& eval_options) {
  auto query = ir::ParseAndBindQuery(o.expr, batch.schema);
  if (!query.ok()) return Fail(query.error(), o.expr);
  fmt::print("query     {}\n", query->ToString());
  auto start = std::chrono::steady_clock::now();
  auto out = engine.Query(*query, batch.columns, batch.length, eval_options);
  const double first = Seconds(start);
  start = std::chrono::steady_clock::now();
  { auto again = engine.Query(*query, batch.columns, batch.length, eval_options); }
  const double second = Seconds(start);
  fmt::print("jit       {}\n", QueryText(out, input));
  if (out.ok()) {
    constexpr int64_t kShownGroups = 20;
    if (Status shown = PrintTable(ResultRows{out->names, out->columns, out->groups}, kShownGroups, engine, stdout);
        !shown.ok()) {
      return Fail(shown.error());
    }
  }
  fmt::print("time      first run {:.2f} ms, cached run {:.3f} ms, {:.2f} ns/row\n", first * 1e3, second * 1e3,
             PerRow(second, batch.length));
  const int rows_rc = out.ok() ? 0 : ExitCode(out.error());
  if (!o.verify) return rows_rc;
  auto ref = ir::EvaluateQueryReference(*query, batch.columns, batch.length);
  fmt::print("reference {}\n", QueryText(ref, input));
  if (const std::string differs = QueryDifference(out, ref); !differs.empty()) {
    fmt::print("verify    DIFFERENT: {}\n", differs);
    return 1;
  }
  fmt::print("verify    ok: {}\n", out.ok() ? "identical results" : "both report the same error");
  return rows_rc;
}

// The static chain beside the JIT: its time per row, and whether its values equal the JIT's
// (1 when they differ). Expressions with an operator that has no static kernel are skipped.
int CompareStaticChain(const ir::Expr& expr, const RecordBatch& batch, const Result<ArrayPtr>& jit,
                       double jit_seconds, int64_t rows) {
  // Timed on its second run, its intermediates on the first run's memory (as the JIT's outputs).
  auto pool = std::make_shared<RecyclingPool>();
  if (auto first = jit::RunStaticChain(expr, batch, pool); !first.ok()) {
    fmt::print("static    no static chain: {}\n", first.error().message());
    return 0;
  }
  auto chain = jit::RunStaticChain(expr, batch, pool);
  if (!chain.ok()) return Fail(chain.error());
  const double ns = rows > 0 ? chain->seconds * 1e9 / static_cast<double>(rows) : 0.0;
  const double jit_ns = rows > 0 ? jit_seconds * 1e9 / static_cast<double>(rows) : 0.0;
  fmt::print("static    chain of {} kernels, {:.2f} ns/row", chain->kernels, ns);
  if (chain->failed_row >= 0 || !jit.ok()) {
    // Operator by operator, the chain stops at its first failing operator, which need not hold
    // the batch's first failing row: only agreement that some row fails is checked.
    const bool both = chain->failed_row >= 0 && !jit.ok();
    fmt::print(", {}\n", chain->failed_row >= 0 ? fmt::format("{} fails at row {}", chain->failed_function, chain->failed_row)
                                                : std::string("no row fails"));
    if (!both) fmt::print("static    DIFFERENT: the jit {}\n", jit.ok() ? "succeeded" : "failed");
    return both ? 0 : 1;
  }
  const int64_t diff = (*jit)->type() != chain->result->type() ? 0 : FirstDifference(**jit, *chain->result);
  if (diff >= 0) {
    fmt::print("\nstatic    DIFFERENT at row {}: jit {} static chain {}\n", diff,
               (*jit)->GetScalar(diff).ToString(), chain->result->GetScalar(diff).ToString());
    return 1;
  }
  fmt::print(" (the jit {:.2f}x faster), identical to the jit\n", jit_ns > 0 ? ns / jit_ns : 0.0);
  return 0;
}

// The reference under a filter: the rows where the predicate is true (or its error), and the
// expression over those rows (an error at its batch row).
struct FilteredReference {
  Result<SelectionVector> rows = Error(ErrorCode::kInternal, "not evaluated");
  Result<ArrayPtr> out = Error(ErrorCode::kInternal, "not evaluated");
};
FilteredReference ReferenceFiltered(const ir::Expr& pred, const ir::Expr& expr, const RecordBatch& batch) {
  FilteredReference r;
  r.rows = ReferenceSelection(pred, batch);
  r.out = r.rows.ok() ? ReferenceUnder(expr, batch, *r.rows) : Result<ArrayPtr>(r.rows.error());
  return r;
}

// `--filter P`: Engine::Filter, then EXPR under the selection it keeps; --verify against the
// reference of both.
int EvalFiltered(const EvalOptions& o, const ir::ExprPtr& expr, const RecordBatch& batch, const CsvInput* input,
                 jit::Engine& engine, const jit::EvalOptions& eval_options) {
  auto pred = ir::ParseAndBind(o.filter, batch.schema);
  if (!pred.ok()) return Fail(pred.error(), o.filter);
  fmt::print("filter    {}\n", (*pred)->ToString());
  auto sel = engine.Filter(*pred, batch.columns, batch.length, eval_options);
  if (!sel.ok()) {
    fmt::print("jit       filter error {}\n", ErrorText(sel.error(), input));
  } else {
    fmt::print("selection {} of {} rows\n", sel->size(), batch.length);
  }
  Result<ArrayPtr> out = sel.ok() ? engine.Evaluate(expr, batch.columns, batch.length, *sel, eval_options)
                                  : Result<ArrayPtr>(sel.error());
  if (sel.ok()) {
    const auto start = std::chrono::steady_clock::now();
    auto timed = engine.Filter(*pred, batch.columns, batch.length, eval_options);
    if (timed.ok()) auto again = engine.Evaluate(expr, batch.columns, batch.length, *timed, eval_options);
    fmt::print("time      filter and evaluate (cached) {:.3f} ms, {:.2f} ns/row of the batch\n", Seconds(start) * 1e3,
               PerRow(Seconds(start), batch.length));
  }
  PrintSummary("jit", out, input);
  const int rows_rc = out.ok() ? 0 : ExitCode(out.error());
  if (!o.verify) return rows_rc;
  const FilteredReference ref = ReferenceFiltered(**pred, *expr, batch);
  PrintSummary("reference", ref.out, input);
  const bool same_rows = ref.rows.ok() == sel.ok() &&
                         (!sel.ok() ? sel.error() == ref.rows.error()
                                    : std::equal(sel->indices().begin(), sel->indices().end(),
                                                 ref.rows->indices().begin(), ref.rows->indices().end()));
  const bool same_out = out.ok() == ref.out.ok() &&
                        (out.ok() ? FirstDifference(**out, **ref.out) < 0 : out.error() == ref.out.error());
  if (!same_rows || !same_out) {
    fmt::print("verify    DIFFERENT: {}\n", !same_rows ? "the selections differ" : "the results differ");
    return 1;
  }
  fmt::print("verify    ok: {}\n", out.ok() ? "identical selections and rows" : "both report the same error");
  return rows_rc;
}

// `--expr`: a projection of EXPR and every --expr, under --filter's selection if given; --verify
// against the reference expression by expression (the first failing row over all outputs).
int EvalProjection(const EvalOptions& o, const RecordBatch& batch, const CsvInput* input, jit::Engine& engine,
                   const jit::EvalOptions& eval_options) {
  const Schema& schema = batch.schema;
  std::vector<std::string> texts = {o.expr};
  texts.insert(texts.end(), o.more_exprs.begin(), o.more_exprs.end());
  std::vector<ir::ExprPtr> exprs;
  for (size_t k = 0; k < texts.size(); ++k) {
    auto e = ir::ParseAndBind(texts[k], schema);
    if (!e.ok()) return Fail(e.error(), texts[k]);
    fmt::print("expr {:<4} {}  ({})\n", k, (*e)->ToString(), (*e)->type().ToString());
    exprs.push_back(*e);
  }
  Result<SelectionVector> sel = SelectionVector::All(batch.length);
  if (!o.filter.empty()) {
    auto pred = ir::ParseAndBind(o.filter, schema);
    if (!pred.ok()) return Fail(pred.error(), o.filter);
    sel = engine.Filter(*pred, batch.columns, batch.length, eval_options);
    if (!sel.ok()) {
      fmt::print("jit       filter error {}\n", ErrorText(sel.error(), input));
      return ExitCode(sel.error());
    }
    fmt::print("filter    {}: {} of {} rows\n", (*pred)->ToString(), sel->size(), batch.length);
  }
  jit::EvalReport report;
  auto run = [&] {
    return o.filter.empty() ? engine.Project(exprs, batch.columns, batch.length, eval_options, &report)
                            : engine.Project(exprs, batch.columns, batch.length, *sel, eval_options, &report);
  };
  auto out = run();
  const auto start = std::chrono::steady_clock::now();
  { auto again = run(); }
  const bool one_kernel = report.route == jit::Route::kProjectOneKernel || report.route == jit::Route::kProjectDenseWithNulls;
  fmt::print("strategy  {} ({}), cached run {:.3f} ms\n", jit::StrategyName(report.strategy),
             one_kernel ? "one kernel for every output" : "output by output", Seconds(start) * 1e3);
  if (!out.ok()) {
    PrintSummary("jit", Result<ArrayPtr>(out.error()), input);
  } else {
    for (size_t k = 0; k < out->size(); ++k) PrintSummary(fmt::format("jit {}", k), (*out)[k], input);
  }
  const int rows_rc = out.ok() ? 0 : ExitCode(out.error());
  if (!o.verify) return rows_rc;
  // The reference: each expression over the selected rows; the projection's error is the lowest
  // failing row, at it the first failing output.
  std::optional<Error> first;
  size_t at = 0;
  std::vector<ArrayPtr> want;
  for (size_t k = 0; k < exprs.size(); ++k) {
    auto r = ReferenceUnder(*exprs[k], batch, *sel);
    if (r.ok()) {
      want.push_back(*r);
    } else if (!first || (r.error().row() && first->row() && *r.error().row() < *first->row())) {
      first = std::move(r).TakeError();
      at = k;
    }
  }
  bool same;
  if (first) {
    same = !out.ok() && out.error().row() == first->row() && out.error().code() == first->code() &&
           out.error().message() == fmt::format("expression {}: {}", at, first->message());
    fmt::print("reference error {} (expression {})\n", ErrorText(*first, input), at);
  } else {
    same = out.ok();
    for (size_t k = 0; same && k < want.size(); ++k) same = FirstDifference(*(*out)[k], *want[k]) < 0;
  }
  fmt::print("verify    {}\n", !same ? "DIFFERENT" : first ? "ok: both report the same error"
                                                           : "ok: every output identical to the reference");
  return same ? rows_rc : 1;
}

// --verify of one expression: the reference's result against the JIT's, row by row (the same
// error at the same row is agreement); 1 on a difference.
int VerifySingle(const Result<ArrayPtr>& out, const Result<ArrayPtr>& ref, const CsvInput* input) {
  PrintSummary("reference", ref, input);
  if (out.ok() != ref.ok()) {
    fmt::print("verify    DIFFERENT: jit {} but reference {}\n", out.ok() ? "succeeded" : ErrorText(out.error(), input),
               ref.ok() ? "succeeded" : ErrorText(ref.error(), input));
    return 1;
  }
  if (!out.ok()) {
    if (out.error() == ref.error()) {
      fmt::print("verify    ok: both report {}\n", ErrorText(out.error(), input));
      return 0;
    }
    fmt::print("verify    DIFFERENT errors\n");
    return 1;
  }
  const int64_t diff = (*out)->type() != (*ref)->type() ? 0 : FirstDifference(**out, **ref);
  if (diff >= 0) {
    fmt::print("verify    DIFFERENT at row {}: jit {} reference {}\n", diff, (*out)->GetScalar(diff).ToString(),
               (*ref)->GetScalar(diff).ToString());
    return 1;
  }
  fmt::print("verify    ok: {} rows identical\n", (*out)->length());
  return 0;
}

// One expression over the whole batch: the JIT's summary, its kernel and times, the static chain
// beside it, and the reference with --verify.
int EvalSingle(const EvalOptions& o, const RecordBatch& batch, const CsvInput* input, jit::Engine& engine,
               const jit::EvalOptions& eval_options) {
  auto expr = ir::ParseAndBind(o.expr, batch.schema);
  if (!expr.ok()) return Fail(expr.error(), o.expr);
  fmt::print("expr      {}\ntype      {}\n", (*expr)->ToString(), (*expr)->type().ToString());
  if (!o.filter.empty()) return EvalFiltered(o, *expr, batch, input, engine, eval_options);
  jit::EvalReport report;
  auto start = std::chrono::steady_clock::now();
  auto out = engine.Evaluate(*expr, batch, eval_options, &report);
  const double first = Seconds(start);
  const double compile_ms = report.compile_ms;
  const jit::EvalReport first_report = report;
  // Later runs hit the cache: their time is the kernel's, not the compiler's. The timed one runs
  // after a warm run whose result is dropped, so that its output lands on memory the engine's
  // pool already holds, as in a loop over batches.
  { auto warm = engine.Evaluate(*expr, batch, eval_options); }
  start = std::chrono::steady_clock::now();
  auto again = engine.Evaluate(*expr, batch, eval_options, &report);
  const double second = Seconds(start);
  PrintSummary("jit", out, input);
  const std::string route = report.route == jit::Route::kKernel ? "" : fmt::format(" (route {})", jit::RouteName(report.route));
  fmt::print("strategy  {}{}{}{}{}\n", jit::StrategyName(report.strategy), route,
             report.retried ? " (retried over valid rows)" : "",
             report.cold_pass ? " (cold pass located the row)" : "",
             first_report.rechecked ? " (wide operands: the exact kernel reran the speculative one's batch)" : "");
  PrintKernel(first_report);
  fmt::print("time      compile {:.2f} ms, first run {:.2f} ms, cached run {:.3f} ms, {:.2f} ns/row\n",
             compile_ms, first * 1e3, second * 1e3, PerRow(second, batch.length));
  const int chain_rc = CompareStaticChain(**expr, batch, out, second, batch.length);
  const int rows_rc = out.ok() ? 0 : ExitCode(out.error());
  if (chain_rc != 0) return chain_rc;
  if (!o.verify) return rows_rc;
  const int verify_rc = VerifySingle(out, ir::EvaluateReference(**expr, batch.columns, batch.length), input);
  return verify_rc != 0 ? verify_rc : rows_rc;
}

// The batch eval runs on: the CSV file of --input (typed by --schema, its header or inference),
// or random columns for --schema (checked to fit first).
Result<RecordBatch> LoadInput(const EvalOptions& o, jit::Engine& engine, std::optional<CsvInput>& csv) {
  std::optional<Schema> schema;
  if (o.schema_given) {
    ROWJIT_ASSIGN_OR_RETURN(schema, ParseSchema(o.schema));
  }
  if (!o.input.empty()) {
    ROWJIT_ASSIGN_OR_RETURN(csv, ReadCsvInput(o.input, schema, o.null_text, engine));
    return csv->batch;
  }
  ROWJIT_RETURN_NOT_OK(CheckBatchFits(*schema, o));
  return RandomBatch(*schema, o.rows, o.valid, o.seed, o.constants, o.offset, o.strings);
}

// Splits a trailing `as NAME` off EXPR and every --expr: the outputs' names.
// A query's columns are named by its own text (which `as` does not end).
void NameOutputs(EvalOptions& o) {
  if (ir::IsQueryText(o.expr)) return;
  auto [expr, name] = SplitName(o.expr);
  o.expr = expr;
  o.names = {name};
  for (std::string& e : o.more_exprs) {
    auto [more, more_name] = SplitName(e);
    e = more;
    o.names.push_back(more_name);
  }
}

}  // namespace

Result<SelectionVector> ReferenceSelection(const ir::Expr& pred, const RecordBatch& batch) {
  if (pred.type().id != TypeId::kBool) {  // as Engine::Filter refuses it
    return MakeError(ErrorCode::kTypeError, "a filter's predicate is bool, not {}", pred.type().ToString());
  }
  ROWJIT_ASSIGN_OR_RETURN(ArrayPtr keep, ir::EvaluateReference(pred, batch.columns, batch.length));
  std::vector<uint32_t> rows;
  for (int64_t i = 0; i < batch.length; ++i) {
    const Scalar v = keep->GetScalar(i);
    if (!v.is_null() && v.value<bool>()) rows.push_back(static_cast<uint32_t>(i));
  }
  return SelectionVector::FromIndices(rows, batch.length);
}
Result<ArrayPtr> ReferenceUnder(const ir::Expr& expr, const RecordBatch& batch, const SelectionVector& sel) {
  std::vector<ArrayPtr> taken(batch.columns.size());
  for (size_t c = 0; c < taken.size(); ++c) {
    ROWJIT_ASSIGN_OR_RETURN(taken[c], Take(*batch.columns[c], sel));
  }
  Result<ArrayPtr> out = ir::EvaluateReference(expr, taken, sel.size());
  if (out.ok() || !out.error().row()) return out;
  Error e = std::move(out).TakeError();
  std::string f = e.function();
  const int64_t row = sel[*e.row()];
  return std::move(e).WithRow(std::move(f), row);
}
std::pair<std::string, std::string> SplitName(const std::string& text) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; };
  auto blank = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  const size_t first = text.find_first_not_of(" \t\r\n");
  const std::string whole = first == std::string::npos ? text : text.substr(first, text.find_last_not_of(" \t\r\n") + 1 - first);
  // From the end: NAME, blanks, `as`, a blank.
  size_t i = whole.size();
  while (i > 0 && word(whole[i - 1])) --i;
  const size_t name = i;
  while (i > 0 && blank(whole[i - 1])) --i;
  const bool as = name < whole.size() && !std::isdigit(static_cast<unsigned char>(whole[name])) && i < name && i >= 3 &&
                  (whole[i - 2] | 0x20) == 'a' && (whole[i - 1] | 0x20) == 's' && blank(whole[i - 3]);
  if (!as) return {text, whole};
  // `as` must stand outside parentheses and quotes (`cast(x as i64)` names nothing).
  std::string expr = whole.substr(0, i - 2);
  int depth = 0;
  bool quoted = false;
  for (char c : expr) {
    if (c == '\'') quoted = !quoted;
    if (!quoted) depth += c == '(' ? 1 : c == ')' ? -1 : 0;
  }
  if (depth != 0 || quoted) return {text, whole};
  expr.erase(expr.find_last_not_of(" \t\r\n") + 1);
  return {expr, whole.substr(name)};
}

int Eval(const Args& args) {
  if (args.Has("--help")) return PrintHelp(kHelp);
  EvalOptions o;
  if (int rc = ParseEvalOptions(args, o, kHelp); rc >= 0) return rc;
  if (!o.input.empty()) {
    if (int rc = RejectRandomOptions(args, kHelp); rc >= 0) return rc;
  }
  if (int rc = UseTarget(o.target); rc >= 0) return rc;
  NameOutputs(o);
  auto policy = ir::ParsePolicy(o.policy);
  if (!policy.ok()) return Fail(policy.error());
  const bool query = ir::IsQueryText(o.expr);
  if ((query || ir::IsAggregateText(o.expr)) && (!o.filter.empty() || !o.more_exprs.empty())) {
    return Fail(Error(ErrorCode::kInvalidInput, query ? "--filter and --expr take row expressions, not an aggregate "
                                                        "query (its WHERE clause filters its rows)"
                                                      : "--filter and --expr take row expressions, not an aggregate"));
  }
  if (o.schema_given) {
    if (auto schema = ParseSchema(o.schema); !schema.ok()) return Fail(schema.error(), o.schema);
  }
  auto engine = MakeEngine(o);
  if (!engine.ok()) return Fail(engine.error());
  std::optional<CsvInput> csv;
  auto batch = LoadInput(o, **engine, csv);
  if (!batch.ok()) return Fail(batch.error());
  const CsvInput* input = csv ? &*csv : nullptr;
  const jit::EvalOptions eval_options{.policy = *policy, .tier = TierOf(o)};
  if (ir::IsTopKText(o.expr)) return EvalTopK(o, *batch, input, **engine, eval_options);
  if (o.print_rows || !o.output.empty()) return EvalRows(o, *batch, input, **engine, eval_options);
  if (input) fmt::print("input     {}: {} row{} of {}\n", input->name, batch->length, batch->length == 1 ? "" : "s",
                        batch->schema.ToString());
  if (query) return EvalQuery(o, *batch, input, **engine, eval_options);
  if (ir::IsAggregateText(o.expr)) return EvalAggregate(o, *batch, input, **engine);
  if (!o.more_exprs.empty()) return EvalProjection(o, *batch, input, **engine, eval_options);
  return EvalSingle(o, *batch, input, **engine, eval_options);
}

}  // namespace rowjit::cli
