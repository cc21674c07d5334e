// Compile latency (bench), apart from run time: cold compiles of 1-, 3- and 10-operator
// expressions (a literal that changes every iteration makes every key new), a kernel-cache hit,
// and a whole Evaluate of 64 rows that hits the cache.
#include <atomic>
#include <string>
#include <vector>

#include "bench_support.h"

namespace rowjit::bench {
namespace {

constexpr int64_t kRows = 64;
const char* const kSchema = "a:i32, b:i32, c:i32, d:i32";

// The expression with `ops` operators; `k` is a literal in it.
std::string Expression(int ops, int64_t k) {
  const std::string ks = std::to_string(k);
  if (ops == 1) return "a + " + ks;
  if (ops == 3) return "a * b + c - " + ks;
  return "(a * b + c - d) + (a - b) * 2 + (c * d - a) < " + ks;  // no overflow on moderate values
}

jit::Engine& CompileEngine() {
  static std::unique_ptr<jit::Engine> engine = MakeEngine();
  return *engine;
}

const std::vector<ArrayPtr>& Columns() {
  static const std::vector<ArrayPtr> cols = MakeColumns(
      std::vector<ColumnSpec>(4, ColumnSpec{TypeId::kI32, false, false}), kRows, 1.0, NullLayout::kScattered, 3);
  return cols;
}

void Cold(benchmark::State& state, int ops) {
  static std::atomic<int64_t> next{1000};
  double compile_ms = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const ir::ExprPtr expr = Bind(Expression(ops, next++), kSchema);
    state.ResumeTiming();
    jit::EvalReport report;
    auto r = CompileEngine().Evaluate(expr, Columns(), kRows, {}, &report);
    if (!r.ok()) {
      state.SkipWithError(r.error().ToString().c_str());
      return;
    }
    compile_ms += report.compile_ms;
  }
  state.counters["compile_ms"] = benchmark::Counter(compile_ms / static_cast<double>(state.iterations()));
}

const bool kRegistered = [] {
  for (int ops : {1, 3, 10}) {
    const std::string c = "ops" + std::to_string(ops);
    benchmark::RegisterBenchmark(Name("compile", c, "cold").c_str(), [ops](benchmark::State& s) { Cold(s, ops); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  benchmark::RegisterBenchmark(Name("compile", "ops3", "cache_hit").c_str(), [](benchmark::State& state) {
    const ir::ExprPtr expr = Bind(Expression(3, 1), kSchema);
    std::vector<ir::InputSpec> specs;
    for (const ArrayPtr& c : Columns()) specs.push_back(ir::DescribeInput(*c));
    const jit::CacheKey key = *jit::PlanKernel(expr, specs, ir::Policy::kDense);
    if (!CompileEngine().KernelFor(key).ok()) std::abort();
    for (auto _ : state) benchmark::DoNotOptimize(CompileEngine().KernelFor(key));
  })->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark(Name("compile", "ops3", "evaluate_64_rows").c_str(), [](benchmark::State& state) {
    const ir::ExprPtr expr = Bind(Expression(3, 1), kSchema);
    if (!CompileEngine().Evaluate(expr, Columns(), kRows).ok()) std::abort();
    for (auto _ : state) benchmark::DoNotOptimize(CompileEngine().Evaluate(expr, Columns(), kRows));
  })->Unit(benchmark::kMicrosecond);
  return true;
}();

}  // namespace
}  // namespace rowjit::bench
