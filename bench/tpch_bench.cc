// TPC-H Q6 and Q1 over generated lineitem columns at the scale factor ROWJIT_TPCH_SF names
// (default 1; the data made once per process), as `tpch/q6|q1/impl/rows:N` (bench): the JIT's
// fused aggregates per batch (2,048 and 65,536 rows, zero-copy slices, and the whole table as one
// batch) beside the plain C++ loop (`static`) and a read of the bytes the query reads (`floor`).
// Every JIT answer is checked against the C++ loop's, exactly, before it is timed.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench_support.h"
#include "ir/aggregate.h"
#include "jit/plan/route.h"
#include "tpch_lineitem.h"

namespace {

namespace tpch = rowjit::bench::tpch;
using rowjit::ArrayPtr;
using Batches = std::vector<std::vector<ArrayPtr>>;

// Q6 as one fused aggregate: the predicate picks the rows, a null drops the others.
constexpr const char* kQ6 =
    "sum(if(l_shipdate >= '1994-01-01' and l_shipdate < '1995-01-01' and "
    "l_discount between 0.05 and 0.07 and l_quantity < 24, l_extendedprice * l_discount, null))";
constexpr const char* kQ1Where = "l_shipdate <= '1998-09-02'";
// Q1's sums over one group's rows, in Q1Group's order; the averages are these over the count.
constexpr const char* kQ1Sums[] = {"l_quantity", "l_extendedprice", "l_extendedprice * (1 - l_discount)",
                                   "l_extendedprice * (1 - l_discount) * (1 + l_tax)", "l_discount"};
// The groups Q1 finds, as (returnflag code, linestatus code): a returned line (A, R) was received,
// so shipped, before 1995-06-17 and is F; N lines are F or O.
constexpr std::pair<int, int> kQ1Groups[] = {{0, 0}, {1, 0}, {1, 1}, {2, 0}};

const rowjit::Schema& LineitemSchema() {
  static const rowjit::Schema schema = *rowjit::ParseSchema(tpch::kSchema);
  return schema;
}

rowjit::jit::Engine& Engine() { return rowjit::bench::SharedEngine(); }

// The table cut into batches of `batch_rows` rows (0: one batch), zero-copy slices made once.
const Batches& BatchesOf(int64_t batch_rows) {
  static std::map<int64_t, Batches> cache;
  auto it = cache.find(batch_rows);
  if (it != cache.end()) return it->second;
  const tpch::Lineitem& table = tpch::SharedLineitem();
  Batches batches;
  const int64_t step = batch_rows == 0 ? table.rows : batch_rows;
  for (int64_t offset = 0; offset < table.rows; offset += step) {
    std::vector<ArrayPtr> batch;
    for (const ArrayPtr& c : table.columns) batch.push_back(*c->Slice(offset, std::min(step, table.rows - offset)));
    batches.push_back(std::move(batch));
  }
  return cache.emplace(batch_rows, std::move(batches)).first->second;
}

__int128 ExpectedQ6() {
  static const __int128 answer = tpch::Q6Loop(*tpch::SharedLineitem().data);
  return answer;
}
const tpch::Q1Answer& ExpectedQ1() {
  static const tpch::Q1Answer answer = tpch::Q1Loop(*tpch::SharedLineitem().data);
  return answer;
}

// One prepared aggregate over every batch: the exact total of its batches' results (a batch
// without a row to sum gives null, which adds nothing).
rowjit::Result<__int128> SumOverBatches(rowjit::jit::PreparedAggregate& aggregate, const Batches& batches) {
  __int128 total = 0;
  for (const std::vector<ArrayPtr>& batch : batches) {
    auto r = aggregate.Aggregate(batch, batch[0]->length());
    if (!r.ok()) return r.error();
    if (!r->value.is_null()) total += r->value.int128();
  }
  return total;
}

// The route the aggregate's call takes on the first batch (jit/plan/route.h), as the benchmark's
// label: which plans run as one fold kernel and which do not.
std::string RouteOf(rowjit::jit::PreparedAggregate& aggregate, const Batches& batches) {
  rowjit::jit::EvalReport report;
  (void)aggregate.Aggregate(batches[0], batches[0][0]->length(), &report);
  return std::string(rowjit::jit::RouteName(report.route));
}

std::unique_ptr<rowjit::jit::PreparedAggregate> Prepare(const std::string& text, benchmark::State& state) {
  auto aggregate = rowjit::ir::ParseAndBindAggregate(text, LineitemSchema());
  auto handle = aggregate.ok() ? Engine().PrepareAggregate(*aggregate)
                               : rowjit::Result<std::unique_ptr<rowjit::jit::PreparedAggregate>>(aggregate.error());
  if (!handle.ok()) {
    state.SkipWithError((text + ": " + handle.error().ToString()).c_str());
    return nullptr;
  }
  return std::move(*handle);
}

void SetCounters(benchmark::State& state, int64_t bytes_per_row) {
  const int64_t rows = tpch::SharedLineitem().rows;
  state.SetItemsProcessed(state.iterations() * rows);
  state.SetBytesProcessed(state.iterations() * rows * bytes_per_row);
}

// `jit`: Q6's fused aggregate through one PreparedAggregate, batch after batch.
void RunQ6Jit(benchmark::State& state, int64_t batch_rows) {
  const Batches& batches = BatchesOf(batch_rows);
  auto handle = Prepare(kQ6, state);
  if (handle == nullptr) return;
  auto first = SumOverBatches(*handle, batches);  // compiles the kernel; the answer checked
  if (!first.ok()) {
    state.SkipWithError(first.error().ToString().c_str());
    return;
  }
  if (*first != ExpectedQ6()) {
    state.SkipWithError(("Q6: the JIT's sum " + rowjit::DecimalText(*first, 4) + " differs from the C++ loop's " +
                         rowjit::DecimalText(ExpectedQ6(), 4)).c_str());
    return;
  }
  state.SetLabel(RouteOf(*handle, batches));
  for (auto _ : state) benchmark::DoNotOptimize(SumOverBatches(*handle, batches));
  SetCounters(state, tpch::kQ6BytesPerRow);
}

// How a masked plan picks a group's rows: by the key strings (the dictionary columns), or by
// their codes (the u8 code columns), as a host that knows its dictionaries can.
enum class GroupTest { kStrings, kCodes };

std::string GroupPredicate(int flag, int status, GroupTest test) {
  if (test == GroupTest::kCodes) {
    return "l_returnflag_code = " + std::to_string(flag) + " and l_linestatus_code = " + std::to_string(status) +
           " and " + kQ1Where;
  }
  return std::string("l_returnflag = '") + tpch::kReturnFlags[flag] + "' and l_linestatus = '" +
         tpch::kLineStatuses[status] + "' and " + kQ1Where;
}

// Q1 as today's host writes it without grouping: per group and per sum, a fused masked sum
// (4 groups x 6 = 24 prepared aggregates, each called on every batch).
struct Q1Masked {
  std::vector<std::unique_ptr<rowjit::jit::PreparedAggregate>> handles;  // group-major, kQ1Sums then count

  static Q1Masked Make(benchmark::State& state, GroupTest test) {
    Q1Masked q;
    for (auto [flag, status] : kQ1Groups) {
      const std::string where = GroupPredicate(flag, status, test);
      std::vector<std::string> texts;
      for (const char* sum : kQ1Sums) texts.push_back("sum(if(" + where + ", " + sum + ", null))");
      texts.push_back("count(if(" + where + ", l_quantity, null))");
      for (const std::string& text : texts) {
        q.handles.push_back(Prepare(text, state));
        if (q.handles.back() == nullptr) return {};
      }
    }
    return q;
  }

  // Every handle on a batch before the next batch: the batch is read 24 times while it is in
  // cache (at 65,536 rows, 2.4 MB: in L2 or L3, not in L1).
  rowjit::Result<tpch::Q1Answer> Run(const Batches& batches) const {
    std::vector<__int128> totals(handles.size(), 0);
    for (const std::vector<ArrayPtr>& batch : batches) {
      for (size_t h = 0; h < handles.size(); ++h) {
        auto r = handles[h]->Aggregate(batch, batch[0]->length());
        if (!r.ok()) return r.error();
        if (!r->value.is_null()) totals[h] += r->value.int128();
      }
    }
    tpch::Q1Answer answer;
    constexpr size_t kPerGroup = std::size(kQ1Sums) + 1;
    for (size_t g = 0; g < std::size(kQ1Groups); ++g) {
      tpch::Q1Group& out = answer.groups[kQ1Groups[g].first * 2 + kQ1Groups[g].second];
      const __int128* t = &totals[g * kPerGroup];
      out = {.sum_qty = t[0], .sum_price = t[1], .sum_disc_price = t[2], .sum_charge = t[3], .sum_disc = t[4],
             .count = static_cast<int64_t>(t[5])};
    }
    return answer;
  }
};

void RunQ1Masked(benchmark::State& state, int64_t batch_rows, GroupTest test) {
  const Batches& batches = BatchesOf(batch_rows);
  const Q1Masked q1 = Q1Masked::Make(state, test);
  if (q1.handles.empty()) return;
  auto first = q1.Run(batches);
  if (!first.ok()) {
    state.SkipWithError(first.error().ToString().c_str());
    return;
  }
  if (!(*first == ExpectedQ1())) {
    state.SkipWithError("Q1: the JIT's group sums differ from the C++ loop's");
    return;
  }
  state.SetLabel(RouteOf(*q1.handles[0], batches));
  for (auto _ : state) benchmark::DoNotOptimize(q1.Run(batches));
  SetCounters(state, tpch::kQ1BytesPerRow);
}

// `static` and `floor`: the C++ loops over the whole table (tpch_loops.cc, -O3 -march=native).
template <typename Fn>
void RunLoop(benchmark::State& state, Fn fn, int64_t bytes_per_row) {
  const tpch::LineitemData& data = *tpch::SharedLineitem().data;
  for (auto _ : state) benchmark::DoNotOptimize(fn(data));
  SetCounters(state, bytes_per_row);
}

const bool kRegistered = [] {
  // Named by the rows the table will have, counted without making it: listing the benchmarks
  // does not generate the data.
  const std::string rows = "/rows:" + std::to_string(tpch::LineitemRows(tpch::ScaleFactorFromEnvironment()));
  auto add = [&](const std::string& name, auto fn) {
    benchmark::RegisterBenchmark((name + rows).c_str(), fn)->Unit(benchmark::kMillisecond);
  };
  add("tpch/q6/static", [](benchmark::State& s) { RunLoop(s, tpch::Q6Loop, tpch::kQ6BytesPerRow); });
  add("tpch/q6/floor", [](benchmark::State& s) { RunLoop(s, tpch::Q6Floor, tpch::kQ6BytesPerRow); });
  add("tpch/q6/jit", [](benchmark::State& s) { RunQ6Jit(s, 0); });
  add("tpch/q6/jit_batch65536", [](benchmark::State& s) { RunQ6Jit(s, 65536); });
  add("tpch/q6/jit_batch2048", [](benchmark::State& s) { RunQ6Jit(s, 2048); });
  add("tpch/q1/static", [](benchmark::State& s) { RunLoop(s, tpch::Q1Loop, tpch::kQ1BytesPerRow); });
  add("tpch/q1/floor", [](benchmark::State& s) { RunLoop(s, tpch::Q1Floor, tpch::kQ1BytesPerRow); });
  // Masked plans in batches only: over the whole table as one batch each of the 24 passes
  // would read it from memory. Over the strings at 65,536 rows alone: it is the slow form.
  add("tpch/q1/jit_masked_codes_batch65536", [](benchmark::State& s) { RunQ1Masked(s, 65536, GroupTest::kCodes); });
  add("tpch/q1/jit_masked_codes_batch2048", [](benchmark::State& s) { RunQ1Masked(s, 2048, GroupTest::kCodes); });
  add("tpch/q1/jit_masked_strings_batch65536",
      [](benchmark::State& s) { RunQ1Masked(s, 65536, GroupTest::kStrings); });
  return true;
}();

}  // namespace

