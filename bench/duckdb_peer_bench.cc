// DuckDB beside rowjit on the same rows (bench): `duckdb/<case>/<impl>` over 1,048,576 rows,
// registered only when ROWJIT_LIBDUCKDB names libduckdb.so (tools/bench-report --peers fetches it
// from DuckDB's npm package, @duckdb/node-bindings-linux-x64, and sets it). DuckDB's C API is
// loaded with dlopen, so the project builds and runs without it.
//   duckdb          `SELECT <sql> FROM t` through duckdb_query at threads=1: the result
//                   materialized (DuckDB's query result holds every row), then destroyed
//   jit             rowjit over the whole batch: PreparedExpression::Evaluate (a result array
//                   allocated per call, as DuckDB's); a fold PreparedAggregate::Aggregate; a query
//                   (count(*) where ..., avg) Engine::FoldQuery into a fresh state, then Finish
//   jit_chunks2048  the same in 2,048-row calls (DuckDB's vector size) over zero-copy slices:
//                   a result per call; a fold's partial result per call; a query's calls folding
//                   into one state
// Table t is loaded once, through DuckDB's Arrow scan, from the Arrow export of the very arrays
// rowjit reads (no nulls): i, j, k i32 and l, m i64 (moderate values: no overflow); x, y f64 in
// [-1000, 1000); s 4-64 ASCII letters (1 % holding 'needle', 10 % starting 'AB'); s2 1-8
// letters; n integer text; d1, d2 decimal(15,2) in 8-byte rows (Arrow's decimal64: DuckDB keeps a
// DECIMAL of at most 18 digits in 8 bytes), w1, w2 their values in 16-byte rows (decimal128,
// DuckDB's default Arrow export; the decimal128_* cases, which read twice the bytes DuckDB
// computes on); dt date32 over 1970-2038; ts timestamp(us) over the same years.
// Every case's rowjit and DuckDB answers are compared before timing: the row count of a row
// expression, the value of a fold (as text); a difference skips the case with both answers.
// duckdb/list_*, map_*, struct_*: DuckDB's own nested columns (table n) read through its Arrow
// export, compared by count and sum of the values before timing.
#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <optional>

#include "bench_support.h"
#include "ir/query.h"
#include "runtime/arrow_c.h"
#include "runtime/string_array.h"

namespace rowjit::bench {
namespace {

constexpr int64_t kRows = int64_t{1} << 20;
constexpr int64_t kChunk = 2048;

// duckdb.h's declarations of the calls used here (the C API's ABI, stable across 1.x).
struct DuckResult {  // duckdb_result: deprecated fields, then the internal data
  uint64_t column_count, row_count, rows_changed;
  void *columns, *error, *internal;
};
struct DuckApi {
  int (*open)(const char*, void**);
  int (*connect)(void*, void**);
  int (*query)(void*, const char*, DuckResult*);
  void (*destroy_result)(DuckResult*);
  const char* (*result_error)(DuckResult*);
  uint64_t (*row_count)(DuckResult*);
  char* (*value_varchar)(DuckResult*, uint64_t, uint64_t);
  void (*free)(void*);
  int (*arrow_scan)(void*, const char*, ArrowArrayStream*);
  const char* (*library_version)();
  // A result as Arrow record batches (duckdb_arrow): the schema and each batch written into the
  // ArrowSchema and ArrowArray the pointed-to pointers name.
  int (*query_arrow)(void*, const char*, void**);
  int (*query_arrow_schema)(void*, ArrowSchema**);
  int (*query_arrow_array)(void*, ArrowArray**);
  const char* (*query_arrow_error)(void*);
  void (*destroy_arrow)(void**);
};

struct Table {
  Schema schema;
  std::vector<ArrayPtr> columns;
};

std::string Letters(std::mt19937_64& rng, size_t n) {
  std::string s(n, ' ');
  for (char& c : s) c = static_cast<char>((rng() % 2 ? 'a' : 'A') + rng() % 26);
  return s;
}

ArrayPtr Strings(uint64_t seed, std::string (*row)(std::mt19937_64&)) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> rows(kRows);
  for (std::string& r : rows) r = row(rng);
  const std::vector<std::optional<std::string_view>> views(rows.begin(), rows.end());
  return *MakeStringArray(DataType(TypeId::kUtf8), StringLayout::kOffsets32, views);
}

// `kRows` values of `type` (its storage of `bytes` a row) drawn by `draw`, in fresh buffers.
template <typename T, typename Draw>
ArrayPtr Fixed(const char* type, uint64_t seed, Draw draw) {
  std::mt19937_64 rng(seed);
  const DataType t = *ParseDataType(type);
  BufferPtr values = *Buffer::Allocate(kRows * ByteWidth(t.id));
  for (int64_t i = 0; i < kRows; ++i) {
    const T v = draw(rng);
    std::memcpy(values->mutable_data() + i * ByteWidth(t.id), &v, sizeof(T));
  }
  return *PrimitiveArray::Make(t, kRows, values, Validity::AllValid());
}

const Table& Data() {
  static const Table table = [] {
    Table t;
    t.schema = *ParseSchema(
        "i:i32, j:i32, k:i32, l:i64, m:i64, x:f64, y:f64, s:utf8, s2:utf8, n:utf8, d1:decimal64(15,2), "
        "d2:decimal64(15,2), w1:decimal(15,2), w2:decimal(15,2), dt:date32, ts:timestamp(us)");
    std::vector<ColumnSpec> numbers = {{TypeId::kI32}, {TypeId::kI32}, {TypeId::kI32}, {TypeId::kI64},
                                       {TypeId::kI64}, {TypeId::kF64}, {TypeId::kF64}};
    t.columns = MakeColumns(numbers, kRows, 1.0, NullLayout::kScattered, 11);
    t.columns.push_back(Strings(12, [](std::mt19937_64& rng) {
      std::string r = Letters(rng, 4 + rng() % 61);
      if (rng() % 10 == 0) r.replace(0, 2, "AB");
      if (r.size() >= 8 && rng() % 100 == 0) std::memcpy(&r[2 + rng() % (r.size() - 7)], "needle", 6);
      return r;
    }));
    t.columns.push_back(Strings(13, [](std::mt19937_64& rng) { return Letters(rng, 1 + rng() % 8); }));
    t.columns.push_back(Strings(14, [](std::mt19937_64& rng) {
      return std::to_string(static_cast<int64_t>(rng() % 2'000'000'000) - 1'000'000'000);
    }));
    auto cents = [](std::mt19937_64& rng) { return static_cast<int64_t>(rng() % 2'000'000) - 1'000'000; };
    for (uint64_t seed : {15, 16}) t.columns.push_back(Fixed<int64_t>("decimal64(15,2)", seed, cents));
    for (uint64_t seed : {15, 16}) {  // the same values in 16-byte rows: the value and its sign
      t.columns.push_back(Fixed<__int128>("decimal(15,2)", seed, [&](std::mt19937_64& rng) { return __int128{cents(rng)}; }));
    }
    t.columns.push_back(Fixed<int32_t>("date32", 17, [](std::mt19937_64& rng) {
      return static_cast<int32_t>(rng() % 25'000);
    }));
    t.columns.push_back(Fixed<int64_t>("timestamp(us)", 18, [](std::mt19937_64& rng) {
      return static_cast<int64_t>(rng() % (int64_t{25'000} * 86'400'000'000));
    }));
    return t;
  }();
  return table;
}

// Table n, DuckDB's own nested columns (rowjit reads them through DuckDB's Arrow export): lists of
// 0-8 i32 with null rows and null elements, of 0-5 f64, of 0-3 strings; a map of 0-3 string keys
// to i64; a struct of an i32 and a list of i16.
constexpr const char* kNestedTable = R"(CREATE TABLE n AS SELECT
  CASE WHEN i % 17 = 0 THEN NULL ELSE
    [CASE WHEN (i + x) % 11 = 0 THEN NULL ELSE ((i * 7 + x * 13) % 1000 - 500)::INTEGER END FOR x IN range(i % 9)] END AS l,
  [((i * 3 + x) % 2000) / 7.0 FOR x IN range(i % 6)] AS f,
  ['k' || ((i + x) % 5) FOR x IN range(i % 4)] AS t,
  MAP(['k' || x FOR x IN range(i % 4)], [(i * x)::BIGINT FOR x IN range(i % 4)]) AS m,
  {'a': (i % 100)::INTEGER, 'tags': [(x + i % 3)::SMALLINT FOR x IN range(i % 3)]} AS s
FROM range(1048576) r(i))";

// One batch handed to DuckDB's Arrow scan: get_next exports the record batch once, then ends.
struct BatchStream {
  const Table* table;
  bool done = false;
  std::string error;

  static BatchStream& Of(ArrowArrayStream* s) { return *static_cast<BatchStream*>(s->private_data); }
  static int Schema(ArrowArrayStream* s, ArrowSchema* out) {
    ArrowArray array;
    if (!Export(Of(s), &array, out)) return EINVAL;
    array.release(&array);
    return 0;
  }
  static int Next(ArrowArrayStream* s, ArrowArray* out) {
    BatchStream& self = Of(s);
    if (self.done) {
      out->release = nullptr;
      return 0;
    }
    ArrowSchema schema;
    if (!Export(self, out, &schema)) return EINVAL;
    schema.release(&schema);
    self.done = true;
    return 0;
  }
  static const char* LastError(ArrowArrayStream* s) { return Of(s).error.c_str(); }
  static void Release(ArrowArrayStream* s) { s->release = nullptr; }
  static bool Export(BatchStream& self, ArrowArray* out, ArrowSchema* schema) {
    auto batch = RecordBatch::Make(self.table->schema, self.table->columns);
    Status st = batch.ok() ? ExportRecordBatch(*batch, out, schema) : batch.error();
    if (!st.ok()) self.error = st.ToString();
    return st.ok();
  }
};

// The loaded library with one connection holding table t; null (and the reason on stderr) when
// ROWJIT_LIBDUCKDB is unset or the library or the load fails.
class DuckDB {
 public:
  static DuckDB* Get() {
    static DuckDB* db = Load();
    return db;
  }
  const DuckApi& api() const { return api_; }
  void* connection() const { return con_; }
  std::string version() const { return api_.library_version(); }

  // Runs `sql`: "" when it ran, else DuckDB's error. `rows`: the result's row count; `first`:
  // its first value as text.
  std::string Run(const std::string& sql, uint64_t* rows = nullptr, std::string* first = nullptr) const {
    DuckResult r{};
    std::string error;
    if (api_.query(con_, sql.c_str(), &r) != 0) {
      const char* e = api_.result_error(&r);
      error = e ? e : "query failed";
    } else {
      if (rows) *rows = api_.row_count(&r);
      if (first) {
        char* v = api_.value_varchar(&r, 0, 0);
        *first = v ? v : "NULL";
        api_.free(v);
      }
    }
    api_.destroy_result(&r);
    return error;
  }

 private:
  static DuckDB* Load() {
    const char* path = std::getenv("ROWJIT_LIBDUCKDB");
    if (!path || !*path) return nullptr;
    void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      std::fprintf(stderr, "duckdb peer: %s\n", dlerror());
      return nullptr;
    }
    auto db = std::make_unique<DuckDB>();
    DuckApi& a = db->api_;
    const std::pair<void**, const char*> symbols[] = {
        {reinterpret_cast<void**>(&a.open), "duckdb_open"},
        {reinterpret_cast<void**>(&a.connect), "duckdb_connect"},
        {reinterpret_cast<void**>(&a.query), "duckdb_query"},
        {reinterpret_cast<void**>(&a.destroy_result), "duckdb_destroy_result"},
        {reinterpret_cast<void**>(&a.result_error), "duckdb_result_error"},
        {reinterpret_cast<void**>(&a.row_count), "duckdb_row_count"},
        {reinterpret_cast<void**>(&a.value_varchar), "duckdb_value_varchar"},
        {reinterpret_cast<void**>(&a.free), "duckdb_free"},
        {reinterpret_cast<void**>(&a.arrow_scan), "duckdb_arrow_scan"},
        {reinterpret_cast<void**>(&a.library_version), "duckdb_library_version"},
        {reinterpret_cast<void**>(&a.query_arrow), "duckdb_query_arrow"},
        {reinterpret_cast<void**>(&a.query_arrow_schema), "duckdb_query_arrow_schema"},
        {reinterpret_cast<void**>(&a.query_arrow_array), "duckdb_query_arrow_array"},
        {reinterpret_cast<void**>(&a.query_arrow_error), "duckdb_query_arrow_error"},
        {reinterpret_cast<void**>(&a.destroy_arrow), "duckdb_destroy_arrow"}};
    for (const auto& [slot, name] : symbols) {
      *slot = dlsym(lib, name);
      if (!*slot) {
        std::fprintf(stderr, "duckdb peer: %s has no %s\n", path, name);
        return nullptr;
      }
    }
    void* database = nullptr;
    if (a.open(nullptr, &database) != 0 || a.connect(database, &db->con_) != 0) {
      std::fprintf(stderr, "duckdb peer: duckdb_open or duckdb_connect failed\n");
      return nullptr;
    }
    BatchStream source{&Data(), false, ""};
    ArrowArrayStream stream{BatchStream::Schema, BatchStream::Next, BatchStream::LastError, BatchStream::Release,
                            &source};
    std::string error = db->Run("SET threads=1");
    if (error.empty() && a.arrow_scan(db->con_, "source", &stream) != 0) error = "duckdb_arrow_scan failed";
    if (error.empty()) error = db->Run("CREATE TABLE t AS SELECT * FROM source");
    if (error.empty()) error = db->Run("DROP VIEW source");
    if (error.empty()) error = db->Run(kNestedTable);
    if (!error.empty()) {
      std::fprintf(stderr, "duckdb peer: loading the table: %s\n", error.c_str());
      return nullptr;
    }
    return db.release();  // kept for the process's life, as the benchmarks that use it
  }

  DuckApi api_{};
  void* con_ = nullptr;
};

// A case: rowjit's text (an expression, a fold or a query) and DuckDB's SELECT list.
enum class Form { kRows, kFold, kQuery };
struct Case {
  const char* name;
  Form form;
  const char* rowjit;
  const char* sql;
};

// The slices of kChunk rows of every column (zero-copy), made once.
const std::vector<std::vector<ArrayPtr>>& Chunks() {
  static const auto chunks = [] {
    std::vector<std::vector<ArrayPtr>> out;
    for (int64_t at = 0; at < kRows; at += kChunk) {
      std::vector<ArrayPtr> slice;
      for (const ArrayPtr& c : Data().columns) slice.push_back(*c->Slice(at, std::min(kChunk, kRows - at)));
      out.push_back(std::move(slice));
    }
    return out;
  }();
  return chunks;
}

std::string Text(const Scalar& s) { return s.is_null() ? "NULL" : s.ToString(); }

// Whether rowjit's fold or query value and DuckDB's text agree: equal text once rowjit's type
// suffix (":decimal(15,2)") is dropped, or numbers within 1e-9 of each other (float sums add in
// different orders).
bool SameValue(std::string rowjit_value, const std::string& duckdb_value) {
  if (const size_t colon = rowjit_value.find(':'); colon != std::string::npos) rowjit_value.resize(colon);
  if (rowjit_value == duckdb_value) return true;
  char *end_a = nullptr, *end_b = nullptr;
  const double a = std::strtod(rowjit_value.c_str(), &end_a), b = std::strtod(duckdb_value.c_str(), &end_b);
  return *end_a == 0 && *end_b == 0 && std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

// The one value of a query's first column (i64 or f64) as text.
std::string QueryValue(const ir::QueryResult& r) {
  const ArrayPtr& c = r.columns.at(0);
  if (c->IsNull(0)) return "NULL";
  return c->type().id == TypeId::kF64 ? fmt::format("{}", Values<double>(c)[0]) : std::to_string(Values<int64_t>(c)[0]);
}

std::string DuckSql(const Case& c, const char* table = "t") {
  return c.form == Form::kRows ? fmt::format("SELECT {} FROM {}", c.sql, table) : c.sql;
}

// "" when rowjit's answer (its row count, or its value) is DuckDB's, else both.
std::string Compare(const Case& c, const std::string& rowjit_value, int64_t rowjit_rows) {
  uint64_t rows = 0;
  std::string value;
  if (std::string error = DuckDB::Get()->Run(DuckSql(c), &rows, &value); !error.empty()) return "DuckDB: " + error;
  if (c.form == Form::kRows) {
    return static_cast<int64_t>(rows) == rowjit_rows ? "" : fmt::format("{} rows, DuckDB {}", rowjit_rows, rows);
  }
  return SameValue(rowjit_value, value) ? "" : fmt::format("rowjit {}, DuckDB {}", rowjit_value, value);
}

void RunDuckDB(benchmark::State& state, const Case& c, const char* table = "t") {
  const DuckDB& db = *DuckDB::Get();
  const std::string sql = DuckSql(c, table);
  for (auto _ : state) {
    if (const std::string error = db.Run(sql); !error.empty()) {
      state.SkipWithError(error.c_str());
      return;
    }
  }
  state.SetLabel("DuckDB " + db.version());
}

// The whole batch, or its 2,048-row slices.
std::vector<std::span<const ArrayPtr>> Batches(bool chunked) {
  if (!chunked) return {std::span<const ArrayPtr>(Data().columns)};
  std::vector<std::span<const ArrayPtr>> out;
  for (const auto& slice : Chunks()) out.emplace_back(slice);
  return out;
}

// Times `call(columns, rows)` of a prepared handle over the batch whole or in its slices, after
// its answer over the whole batch (`answer(result)`: a fold's value as text and a row count) was
// found equal to DuckDB's and every slice's layout was held by one untimed call.
template <typename Call, typename Answer>
void TimePrepared(benchmark::State& state, const Case& c, bool chunked, Call call, Answer answer) {
  const auto batches = Batches(chunked);
  auto whole = call(std::span<const ArrayPtr>(Data().columns), kRows);
  if (!whole.ok()) return state.SkipWithError(whole.error().ToString().c_str());
  const auto [value, rows] = answer(*whole);
  if (std::string diff = Compare(c, value, rows); !diff.empty()) return state.SkipWithError(diff.c_str());
  for (const auto& b : batches) {
    if (!call(b, b[0]->length()).ok()) return state.SkipWithError("a chunk failed");
  }
  for (auto _ : state) {
    for (const auto& b : batches) benchmark::DoNotOptimize(call(b, b[0]->length()));
  }
}

void RunRows(benchmark::State& state, const Case& c, bool chunked) {
  auto expr = ir::ParseAndBind(c.rowjit, Data().schema);
  auto prepared = expr.ok() ? SharedEngine().PrepareExpression(*expr) : expr.error();
  if (!prepared.ok()) return state.SkipWithError(prepared.error().ToString().c_str());
  jit::PreparedExpression& p = **prepared;
  TimePrepared(
      state, c, chunked, [&](std::span<const ArrayPtr> cols, int64_t n) { return p.Evaluate(cols, n); },
      [](const ArrayPtr& r) { return std::pair<std::string, int64_t>("", r->length()); });
  // The label: the strategy of a timed call, and whether it ran the held kernel directly.
  const std::span<const ArrayPtr> first = Batches(chunked)[0];
  jit::EvalReport report;
  if (!p.Evaluate(first, first[0]->length(), &report).ok()) return;
  state.SetLabel(std::string(jit::StrategyName(report.strategy)) + (report.direct ? ", direct" : ""));
}

void RunFold(benchmark::State& state, const Case& c, bool chunked) {
  auto agg = ir::ParseAndBindAggregate(c.rowjit, Data().schema);
  auto prepared = agg.ok() ? SharedEngine().PrepareAggregate(*agg) : agg.error();
  if (!prepared.ok()) return state.SkipWithError(prepared.error().ToString().c_str());
  jit::PreparedAggregate& p = **prepared;
  TimePrepared(
      state, c, chunked, [&](std::span<const ArrayPtr> cols, int64_t n) { return p.Aggregate(cols, n); },
      [](const ir::AggregateResult& r) { return std::pair<std::string, int64_t>(Text(r.value), 1); });
}

void RunQuery(benchmark::State& state, const Case& c, bool chunked) {
  auto bound = ir::ParseAndBindQuery(c.rowjit, Data().schema);
  if (!bound.ok()) return state.SkipWithError(bound.error().ToString().c_str());
  const auto query = std::make_shared<const ir::Query>(std::move(*bound));
  jit::Engine& engine = SharedEngine();
  const auto batches = Batches(chunked);
  auto fold = [&]() -> Result<ir::QueryResult> {
    ir::QueryState partial(query);
    for (const auto& b : batches) {
      if (Status st = engine.FoldQuery(partial, b, b[0]->length()); !st.ok()) return st;
    }
    return partial.Finish();
  };
  {
    auto whole = engine.Query(*query, Data().columns, kRows);
    if (!whole.ok()) return state.SkipWithError(whole.error().ToString().c_str());
    if (std::string diff = Compare(c, QueryValue(*whole), 1); !diff.empty()) return state.SkipWithError(diff.c_str());
    if (!fold().ok()) return state.SkipWithError("a chunk failed");
  }
  for (auto _ : state) benchmark::DoNotOptimize(fold());
}

// The family: arithmetic, comparisons and logic, strings, decimals, temporal, folds.
constexpr Case kCases[] = {
    {"i32_mul_add", Form::kRows, "i * j + k", "i * j + k"},
    {"i64_add", Form::kRows, "l + m", "l + m"},
    {"i64_mul_sub", Form::kRows, "l * 3 - m", "l * 3 - m"},
    {"f64_mul_add", Form::kRows, "x * y + x", "x * y + x"},
    {"f64_div", Form::kRows, "x / y", "x / y"},
    {"i32_mod", Form::kRows, "i % 7", "i % 7"},
    {"i32_abs_sub", Form::kRows, "abs(i - j)", "abs(i - j)"},
    {"i32_to_f64_mul", Form::kRows, "cast(i, f64) * 0.5", "CAST(i AS DOUBLE) * 0.5"},
    {"f64_sqrt_abs", Form::kRows, "sqrt(abs(x))", "sqrt(abs(x))"},
    {"i32_lt", Form::kRows, "i < j", "i < j"},
    {"lt_and_gt", Form::kRows, "i < j and x > 0.5", "i < j AND x > 0.5"},
    {"eq_or_eq", Form::kRows, "i = 3 or j = 5", "i = 3 OR j = 5"},
    {"between", Form::kRows, "i between 10 and 100", "i BETWEEN 10 AND 100"},
    {"in_list", Form::kRows, "i in (1, 2, 3, 5, 8, 13)", "i IN (1, 2, 3, 5, 8, 13)"},
    {"case_when", Form::kRows, "case when i > 0 then x else y end", "CASE WHEN i > 0 THEN x ELSE y END"},
    {"like_needle", Form::kRows, "s like '%needle%'", "s LIKE '%needle%'"},
    {"ilike_needle", Form::kRows, "s ilike '%NEEDLE%'", "s ILIKE '%NEEDLE%'"},
    {"like_prefix", Form::kRows, "s like 'AB%'", "s LIKE 'AB%'"},
    {"starts_with", Form::kRows, "starts_with(s, 'AB')", "starts_with(s, 'AB')"},
    {"str_eq", Form::kRows, "s = s2", "s = s2"},
    {"length", Form::kRows, "length(s)", "strlen(s)"},
    {"char_length", Form::kRows, "char_length(s)", "length(s)"},
    {"text_to_i64", Form::kRows, "cast(n, i64)", "CAST(n AS BIGINT)"},
    {"i32_to_text", Form::kRows, "cast(i, utf8)", "CAST(i AS VARCHAR)"},
    {"substr", Form::kRows, "substr(s, 2, 5)", "substr(s, 2, 5)"},
    {"concat", Form::kRows, "concat(s, '-', s2)", "concat(s, '-', s2)"},
    {"lower", Form::kRows, "lower(s)", "lower(s)"},
    {"upper", Form::kRows, "upper(s)", "upper(s)"},
    {"trim", Form::kRows, "trim(s)", "trim(s)"},
    {"replace", Form::kRows, "replace(s, 'a', 'xy')", "replace(s, 'a', 'xy')"},
    {"decimal_round", Form::kRows, "round(d1, 1)", "round(d1, 1)"},
    {"decimal_mul", Form::kRows, "d1 * d2", "d1 * d2"},
    {"decimal_add", Form::kRows, "d1 + d2", "d1 + d2"},
    {"decimal_gt", Form::kRows, "d1 > d2", "d1 > d2"},
    {"decimal_to_f64", Form::kRows, "cast(d1, f64)", "CAST(d1 AS DOUBLE)"},
    {"decimal128_round", Form::kRows, "round(w1, 1)", "round(w1, 1)"},
    {"decimal128_mul", Form::kRows, "w1 * w2", "w1 * w2"},
    {"decimal128_add", Form::kRows, "w1 + w2", "w1 + w2"},
    {"decimal128_gt", Form::kRows, "w1 > w2", "w1 > w2"},
    {"year_date", Form::kRows, "year(dt)", "year(dt)"},
    {"month_date", Form::kRows, "month(dt)", "month(dt)"},
    {"day_date", Form::kRows, "day(dt)", "day(dt)"},
    {"trunc_month_date", Form::kRows, "date_trunc('month', dt)", "date_trunc('month', dt)"},
    {"hour_timestamp", Form::kRows, "hour(ts)", "hour(ts)"},
    {"year_timestamp", Form::kRows, "year(ts)", "year(ts)"},
    {"sum_f64_mul", Form::kFold, "sum(x * y)", "SELECT sum(x * y) FROM t"},
    {"sum_i32", Form::kFold, "sum(i)", "SELECT sum(i) FROM t"},
    {"min_f64", Form::kFold, "min(x)", "SELECT min(x) FROM t"},
    {"max_decimal", Form::kFold, "max(d1)", "SELECT max(d1) FROM t"},
    {"sum_decimal", Form::kFold, "sum(d1)", "SELECT sum(d1) FROM t"},
    {"max_decimal128", Form::kFold, "max(w1)", "SELECT max(w1) FROM t"},
    {"sum_decimal128", Form::kFold, "sum(w1)", "SELECT sum(w1) FROM t"},
    {"avg_f64", Form::kQuery, "avg(x)", "SELECT avg(x) FROM t"},
    {"count_like_needle", Form::kQuery, "count(*) where s like '%needle%'",
     "SELECT count(*) FROM t WHERE s LIKE '%needle%'"},
};

// Nested cases: DuckDB's table n read through its Arrow export, in the record batches it produces
// (imported zero-copy, once), each function's answers compared first (DuckDB's count and sum of
// the values, or count of the rows where a predicate holds, against rowjit's over the same
// batches), then timed: DuckDB's `SELECT <sql> FROM n` materialized, rowjit's prepared expression
// over each batch.
struct NestedCase {
  const char* name;
  const char* rowjit;
  const char* sql;
  bool predicate;  // compared by the rows where it is true, not by a sum
};

constexpr NestedCase kNestedCases[] = {
    {"list_len", "len(l)", "len(l)", false},
    {"list_first", "l[1]", "l[1]", false},
    {"list_last", "l[-1]", "l[-1]", false},
    {"list_contains", "list_contains(l, 7)", "list_contains(l, 7)", true},
    {"list_sum", "list_sum(l)", "list_sum(l)", false},
    {"list_max_f64", "list_max(f)", "list_max(f)", false},
    {"list_avg_f64", "list_avg(f)", "list_avg(f)", false},
    {"list_text_eq", "t[1] = 'k2'", "t[1] = 'k2'", true},
    {"map_value", "m['k1']", "map_extract_value(m, 'k1')", false},
    {"struct_list", "len(s.tags) + s.a", "len(s.tags) + s.a", false},
};

struct NestedData {
  Schema schema;
  std::vector<std::vector<ArrayPtr>> batches;
  std::string error;
};

// Table n as DuckDB exports it, imported once.
const NestedData& Nested() {
  static const NestedData data = [] {
    NestedData d;
    const DuckDB* db = DuckDB::Get();
    const DuckApi& a = db->api();
    void* result = nullptr;
    if (a.query_arrow(db->connection(), "SELECT l, f, t, m, s FROM n", &result) != 0) {
      d.error = std::string("DuckDB: ") + a.query_arrow_error(result);
      a.destroy_arrow(&result);
      return d;
    }
    for (;;) {
      ArrowSchema schema{};
      ArrowArray array{};
      ArrowSchema* sp = &schema;
      ArrowArray* ap = &array;
      if (a.query_arrow_schema(result, &sp) != 0 || a.query_arrow_array(result, &ap) != 0) {
        d.error = "DuckDB's Arrow export failed";
        break;
      }
      if (array.release == nullptr || array.length == 0) {
        if (array.release) array.release(&array);
        if (schema.release) schema.release(&schema);
        break;
      }
      auto batch = ImportRecordBatch(&array, &schema);
      if (!batch.ok()) {
        d.error = "import: " + batch.error().ToString();
        break;
      }
      d.schema = batch->schema;
      d.batches.push_back(std::move(batch->columns));
    }
    a.destroy_arrow(&result);
    return d;
  }();
  return data;
}

// "" when rowjit's count and sum of the case's values (or count of rows where it holds) over the
// batches are DuckDB's, else both.
std::string CompareNested(const NestedCase& c) {
  const NestedData& d = Nested();
  const std::string rowjit_text = c.predicate ? fmt::format("count(*) where {}", c.rowjit)
                                              : fmt::format("count({0}), sum({0})", c.rowjit);
  auto bound = ir::ParseAndBindQuery(rowjit_text, d.schema);
  if (!bound.ok()) return bound.error().ToString();
  const auto query = std::make_shared<const ir::Query>(std::move(*bound));
  ir::QueryState state(query);
  for (const auto& b : d.batches) {
    if (Status st = SharedEngine().FoldQuery(state, b, b[0]->length()); !st.ok()) return st.ToString();
  }
  auto r = state.Finish();
  if (!r.ok()) return r.error().ToString();
  const std::string sql = c.predicate ? fmt::format("SELECT count(*) FROM n WHERE {}", c.sql)
                                      : fmt::format("SELECT count({0}), sum({0}) FROM n", c.sql);
  for (size_t k = 0; k < r->columns.size(); ++k) {
    const std::string column_sql = k == 0 || c.predicate ? sql : fmt::format("SELECT sum({}) FROM n", c.sql);
    uint64_t rows = 0;
    std::string value;
    if (std::string error = DuckDB::Get()->Run(column_sql, &rows, &value); !error.empty()) return "DuckDB: " + error;
    const std::string ours = Text(r->columns[k]->GetScalar(0));
    if (!SameValue(ours, value)) return fmt::format("{}: rowjit {}, DuckDB {}", column_sql, ours, value);
  }
  return "";
}

void RunNestedJit(benchmark::State& state, const NestedCase& c) {
  const NestedData& d = Nested();
  if (!d.error.empty()) return state.SkipWithError(d.error.c_str());
  if (std::string diff = CompareNested(c); !diff.empty()) return state.SkipWithError(diff.c_str());
  auto expr = ir::ParseAndBind(c.rowjit, d.schema);
  auto prepared = expr.ok() ? SharedEngine().PrepareExpression(*expr) : expr.error();
  if (!prepared.ok()) return state.SkipWithError(prepared.error().ToString().c_str());
  jit::PreparedExpression& p = **prepared;
  int64_t rows = 0;
  for (const auto& b : d.batches) {
    if (!p.Evaluate(b, b[0]->length()).ok()) return state.SkipWithError("a batch failed");
    rows += b[0]->length();
  }
  for (auto _ : state) {
    for (const auto& b : d.batches) benchmark::DoNotOptimize(p.Evaluate(b, b[0]->length()));
  }
  state.SetItemsProcessed(state.iterations() * rows);
  state.SetLabel(fmt::format("{} DuckDB batches", d.batches.size()));
}

[[maybe_unused]] const bool kRegistered = [] {
  const char* path = std::getenv("ROWJIT_LIBDUCKDB");
  if (!path || !*path) return false;
  for (const Case& c : kCases) {
    const std::string family = std::string("duckdb/") + c.name + "/";
    benchmark::RegisterBenchmark((family + "duckdb").c_str(), [&c](benchmark::State& state) {
      if (!DuckDB::Get()) return state.SkipWithError("DuckDB did not load (see stderr)");
      RunDuckDB(state, c);
      state.SetItemsProcessed(state.iterations() * kRows);
    })->Unit(benchmark::kMillisecond);
    for (const bool chunked : {false, true}) {
      benchmark::RegisterBenchmark((family + (chunked ? "jit_chunks2048" : "jit")).c_str(), [&c, chunked](benchmark::State& state) {
        if (!DuckDB::Get()) return state.SkipWithError("DuckDB did not load (see stderr)");
        if (c.form == Form::kRows) RunRows(state, c, chunked);
        if (c.form == Form::kFold) RunFold(state, c, chunked);
        if (c.form == Form::kQuery) RunQuery(state, c, chunked);
        state.SetItemsProcessed(state.iterations() * kRows);
      })->Unit(benchmark::kMillisecond);
    }
  }
  for (const NestedCase& c : kNestedCases) {
    const std::string family = std::string("duckdb/") + c.name + "/";
    benchmark::RegisterBenchmark((family + "duckdb").c_str(), [&c](benchmark::State& state) {
      if (!DuckDB::Get()) return state.SkipWithError("DuckDB did not load (see stderr)");
      RunDuckDB(state, Case{c.name, Form::kRows, c.rowjit, c.sql}, "n");
      state.SetItemsProcessed(state.iterations() * kRows);
    })->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((family + "jit_duckdb_batches").c_str(), [&c](benchmark::State& state) {
      if (!DuckDB::Get()) return state.SkipWithError("DuckDB did not load (see stderr)");
      RunNestedJit(state, c);
    })->Unit(benchmark::kMillisecond);
  }
  return true;
}();

}  // namespace
}  // namespace rowjit::bench
