// TPC-H Q1 and Q6 through the query API (bench): ir::ParseAndBindQuery and Engine::Query over
// the whole table as one batch, Engine::FoldQuery batch after batch into one QueryState; Q1
// grouped by the key strings (dictionary columns) or by their u8 codes, Q6 as
// `sum(l_extendedprice * l_discount) where ...` (`tpch/q6/jit_query*`). Answers checked against
// the C++ loops' (tpch_lineitem.h) before timing: sums and counts exactly, the f64 averages to
// 1e-12. `compile/q1_query/{fast,optimized}`: a new engine's first Q1 over 16,384 rows, its
// kernel compiled in that tier (every iteration a cold compile; no disk cache).
// Built when jit/api/query.cc is there (bench/CMakeLists.txt).
#include <benchmark/benchmark.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench_support.h"
#include "ir/query.h"
#include "runtime/string_array.h"
#include "tpch_lineitem.h"

namespace {

namespace tpch = rowjit::bench::tpch;
using rowjit::ArrayPtr;

constexpr const char* kAggregates =
    "sum(l_quantity), sum(l_extendedprice), sum(l_extendedprice * (1 - l_discount)), "
    "sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)), avg(l_quantity), avg(l_extendedprice), "
    "avg(l_discount), count(*)";
constexpr const char* kWhere = " where l_shipdate <= '1998-09-02'";

enum class Keys { kStrings, kCodes };

std::string QueryText(Keys keys) {
  return std::string(kAggregates) +
         (keys == Keys::kCodes ? " group by l_returnflag_code, l_linestatus_code" : " group by l_returnflag, l_linestatus") +
         kWhere;
}

// A key cell's code: the codes columns hold it, the string columns hold the dictionary value.
template <size_t N>
int KeyCode(const rowjit::Array& column, int64_t row, const char* const (&values)[N]) {
  if (column.type().id != rowjit::TypeId::kUtf8) return static_cast<int>(column.GetScalar(row).int128());
  const auto text = rowjit::StringAt(column, row);
  for (size_t k = 0; k < N; ++k) {
    if (text && *text == values[k]) return static_cast<int>(k);
  }
  return -1;
}

// Empty when `result` holds the C++ loop's answer, else what differs.
std::string Check(const rowjit::ir::QueryResult& result) {
  static const tpch::Q1Answer expected = tpch::Q1Loop(*tpch::SharedLineitem().data);
  if (result.columns.size() != 10) return "Q1: expected 2 key and 8 aggregate columns";
  int64_t groups = 0;
  for (const tpch::Q1Group& g : expected.groups) groups += g.count > 0;
  if (result.groups != groups) return "Q1: " + std::to_string(result.groups) + " groups, the loop finds " + std::to_string(groups);
  for (int64_t row = 0; row < result.groups; ++row) {
    const int flag = KeyCode(*result.columns[0], row, tpch::kReturnFlags);
    const int status = KeyCode(*result.columns[1], row, tpch::kLineStatuses);
    if (flag < 0 || status < 0) return "Q1: a group key the data does not hold";
    const tpch::Q1Group& g = expected.groups[flag * 2 + status];
    auto cell = [&](int c) { return result.columns[c]->GetScalar(row); };
    const __int128 sums[] = {g.sum_qty, g.sum_price, g.sum_disc_price, g.sum_charge};
    for (int c = 0; c < 4; ++c) {
      if (cell(2 + c).int128() != sums[c]) return "Q1: " + result.names[2 + c] + " differs from the C++ loop's";
    }
    if (cell(9).int128() != g.count) return "Q1: count(*) differs from the C++ loop's";
    const __int128 averaged[] = {g.sum_qty, g.sum_price, g.sum_disc};
    for (int c = 0; c < 3; ++c) {
      const long double exact = static_cast<long double>(averaged[c]) / 100 / g.count;
      const double got = cell(6 + c).value<double>();
      if (std::fabs(static_cast<long double>(got) - exact) > 1e-12L * std::fabs(exact)) {
        return "Q1: " + result.names[6 + c] + " differs from the C++ loop's";
      }
    }
  }
  return "";
}

using Batches = std::vector<std::vector<ArrayPtr>>;

// The table as zero-copy slices of `batch_rows` rows, made before timing as tpch_bench.cc's are.
Batches Slices(int64_t batch_rows) {
  const tpch::Lineitem& table = tpch::SharedLineitem();
  Batches out;
  for (int64_t offset = 0; offset < table.rows; offset += batch_rows) {
    std::vector<ArrayPtr> batch;
    for (const ArrayPtr& c : table.columns) batch.push_back(*c->Slice(offset, std::min(batch_rows, table.rows - offset)));
    out.push_back(std::move(batch));
  }
  return out;
}

// Engine::Query over the whole table (no batches), or FoldQuery per batch and Finish.
rowjit::Result<rowjit::ir::QueryResult> RunQuery(const std::shared_ptr<const rowjit::ir::Query>& query,
                                                 const Batches& batches) {
  rowjit::jit::Engine& engine = rowjit::bench::SharedEngine();
  if (batches.empty()) return engine.Query(*query, tpch::SharedLineitem().columns, tpch::SharedLineitem().rows);
  rowjit::ir::QueryState state(query);
  for (const std::vector<ArrayPtr>& batch : batches) {
    if (auto st = engine.FoldQuery(state, batch, batch[0]->length()); !st.ok()) return st.error();
  }
  return state.Finish();
}

constexpr const char* kQ6Query =
    "sum(l_extendedprice * l_discount) where l_shipdate >= '1994-01-01' and l_shipdate < '1995-01-01' and "
    "l_discount between 0.05 and 0.07 and l_quantity < 24";

std::string CheckQ6(const rowjit::ir::QueryResult& result) {
  static const __int128 expected = tpch::Q6Loop(*tpch::SharedLineitem().data);
  if (result.columns.size() != 1 || result.groups != 1) return "Q6: expected one aggregate in one row";
  return result.columns[0]->GetScalar(0).int128() == expected ? "" : "Q6: the sum differs from the C++ loop's";
}

void RunQuery(benchmark::State& state, const std::string& text, int64_t batch_rows, int64_t bytes_per_row,
              std::string (*check)(const rowjit::ir::QueryResult&)) {
  auto bound = rowjit::ir::ParseAndBindQuery(text, *rowjit::ParseSchema(tpch::kSchema));
  if (!bound.ok()) {
    state.SkipWithError(bound.error().ToString().c_str());
    return;
  }
  const auto query = std::make_shared<const rowjit::ir::Query>(std::move(*bound));
  const Batches batches = batch_rows == 0 ? Batches{} : Slices(batch_rows);
  auto first = RunQuery(query, batches);
  if (!first.ok()) {
    state.SkipWithError(first.error().ToString().c_str());
    return;
  }
  if (const std::string wrong = check(*first); !wrong.empty()) {
    state.SkipWithError(wrong.c_str());
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(RunQuery(query, batches));
  const int64_t rows = tpch::SharedLineitem().rows;
  state.SetItemsProcessed(state.iterations() * rows);
  state.SetBytesProcessed(state.iterations() * rows * bytes_per_row);
}

void FirstQuery(benchmark::State& state, rowjit::jit::Tier tier) {
  auto bound = rowjit::ir::ParseAndBindQuery(QueryText(Keys::kStrings), *rowjit::ParseSchema(tpch::kSchema));
  if (!bound.ok()) {
    state.SkipWithError(bound.error().ToString().c_str());
    return;
  }
  const Batches batch = Slices(16384);
  for (auto _ : state) {
    state.PauseTiming();
    auto engine = rowjit::bench::MakeEngine();
    state.ResumeTiming();
    auto result = engine->Query(*bound, batch[0], batch[0][0]->length(), {.tier = tier});
    if (!result.ok()) {
      state.SkipWithError(result.error().ToString().c_str());
      return;
    }
    state.PauseTiming();
    engine.reset();
    state.ResumeTiming();
  }
}

const bool kRegistered = [] {
  const std::string rows = "/rows:" + std::to_string(tpch::LineitemRows(tpch::ScaleFactorFromEnvironment()));
  auto add = [&](const std::string& name, Keys keys, int64_t batch_rows) {
    benchmark::RegisterBenchmark((name + rows).c_str(), [keys, batch_rows](benchmark::State& s) {
      RunQuery(s, QueryText(keys), batch_rows, tpch::kQ1BytesPerRow, Check);
    })->Unit(benchmark::kMillisecond);
  };
  auto add_q6 = [&](const std::string& name, int64_t batch_rows) {
    benchmark::RegisterBenchmark((name + rows).c_str(), [batch_rows](benchmark::State& s) {
      RunQuery(s, kQ6Query, batch_rows, tpch::kQ6BytesPerRow, CheckQ6);
    })->Unit(benchmark::kMillisecond);
  };
  benchmark::RegisterBenchmark("compile/q1_query/fast", [](benchmark::State& s) {
    FirstQuery(s, rowjit::jit::Tier::kFast);
  })->Unit(benchmark::kMillisecond)->Iterations(5);
  benchmark::RegisterBenchmark("compile/q1_query/optimized", [](benchmark::State& s) {
    FirstQuery(s, rowjit::jit::Tier::kOptimized);
  })->Unit(benchmark::kMillisecond)->Iterations(5);
  add_q6("tpch/q6/jit_query", 0);
  add_q6("tpch/q6/jit_query_batch65536", 65536);
  add_q6("tpch/q6/jit_query_batch2048", 2048);
  add("tpch/q1/jit", Keys::kStrings, 0);
  add("tpch/q1/jit_batch65536", Keys::kStrings, 65536);
  add("tpch/q1/jit_batch2048", Keys::kStrings, 2048);
  add("tpch/q1/jit_codes", Keys::kCodes, 0);
  add("tpch/q1/jit_codes_batch65536", Keys::kCodes, 65536);
  return true;
}();

}  // namespace
