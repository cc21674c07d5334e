// IN lists (bench). `in_list/<list>/<impl>` over 65,536 i64 rows (all valid), a seventh of them in
// the list: `jit`, Engine::Evaluate of `x in (...)` (one kernel, the literals a constant set:
// ir::InListLookup); `chain`, the same list written as `x = v1 or x = v2 or ...` — what the text
// means without in_list, staged into kernels of EngineOptions::max_kernel_nodes — and
// `static`, a C++ loop compiled -O3 for the build's target: std::binary_search over the sorted
// values into a preallocated byte a row. Lists: 10 values spread wide (compared in turn), 100 and
// 1,000 spread wide (searched), 200 consecutive (a bitmap).
#include <benchmark/benchmark.h>

#include <algorithm>

#include "bench_support.h"

namespace rowjit::bench {
namespace {

constexpr int64_t kRows = 65536;

struct List {
  const char* name;
  int64_t count;
  int64_t step;  // values 0, step, 2 step, ...
};
constexpr List kLists[] = {{"wide10", 10, 7}, {"wide100", 100, 7}, {"wide1000", 1000, 7}, {"near200", 200, 1}};

std::vector<int64_t> Values(const List& l) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < l.count; ++i) v.push_back(i * l.step);
  return v;
}

// Rows uniform in [0, 7 * count): a seventh of them in the list (wide lists hold every multiple
// of 7 there, the near one the first seventh).
std::vector<int64_t> Rows(const List& l) {
  std::mt19937_64 rng(17);
  std::vector<int64_t> out(kRows);
  for (int64_t& x : out) x = static_cast<int64_t>(rng() % static_cast<uint64_t>(l.count * 7));
  return out;
}

ArrayPtr Column(const std::vector<int64_t>& rows) {
  BufferPtr b = *Buffer::Allocate(kRows * 8);
  std::memcpy(b->mutable_data(), rows.data(), kRows * 8);
  return ArrayPtr(*PrimitiveArray::Make(DataType(TypeId::kI64), kRows, b, Validity::AllValid()));
}

std::string Text(const List& l, bool chain) {
  std::string text = chain ? "" : "x in (";
  const std::vector<int64_t> v = Values(l);
  for (size_t i = 0; i < v.size(); ++i) {
    text += chain ? fmt::format("{}x = {}", i ? " or " : "", v[i]) : fmt::format("{}{}", i ? ", " : "", v[i]);
  }
  return chain ? text : text + ")";
}

void RunJit(benchmark::State& state, const List& l, bool chain) {
  const Schema schema = *ParseSchema("x:i64");
  auto expr = ir::ParseAndBind(Text(l, chain), schema);
  if (!expr.ok()) {
    state.SkipWithError(expr.error().ToString().c_str());
    return;
  }
  const std::vector<ArrayPtr> cols = {Column(Rows(l))};
  jit::Engine& engine = SharedEngine();
  if (Status warm = engine.Evaluate(*expr, cols, kRows).status(); !warm.ok()) {
    state.SkipWithError(warm.ToString().c_str());
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(engine.Evaluate(*expr, cols, kRows));
  state.SetItemsProcessed(state.iterations() * kRows);
}

void RunStatic(benchmark::State& state, const List& l) {
  const std::vector<int64_t> values = Values(l), rows = Rows(l);
  std::vector<uint8_t> out(kRows);
  for (auto _ : state) {
    for (int64_t i = 0; i < kRows; ++i) out[i] = std::binary_search(values.begin(), values.end(), rows[i]);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kRows);
}

const bool kRegistered = [] {
  for (const List& l : kLists) {
    benchmark::RegisterBenchmark(fmt::format("in_list/{}/jit", l.name).c_str(),
                                 [&l](benchmark::State& state) { RunJit(state, l, false); });
    benchmark::RegisterBenchmark(fmt::format("in_list/{}/chain", l.name).c_str(),
                                 [&l](benchmark::State& state) { RunJit(state, l, true); });
    benchmark::RegisterBenchmark(fmt::format("in_list/{}/static", l.name).c_str(),
                                 [&l](benchmark::State& state) { RunStatic(state, l); });
  }
  return true;
}();

}  // namespace
}  // namespace rowjit::bench
