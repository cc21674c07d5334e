// Compile economics (bench), apart from run time. Every compile benchmark makes a new key per
// iteration (a literal that changes), so every compile is cold:
//   compile/opsN/cold           optimized compile of an N-operator expression (1 ... 1,000; past
//                               one kernel's size it runs in stages), with counters per phase
//   compile/opsN/fast           the fast tier's compile of the same
//   compile/ops3/first_result   a tiered engine's first Evaluate of a never-seen expression on
//                               65,536 rows (the static tier answers; the optimized compile
//                               starts); first_result_fast: the fast tier forced
//   compile/ops3/disk_hit       a fresh engine (a new JIT, empty memory cache) whose disk cache
//                               holds the kernel: its first Evaluate of 64 rows
//   compile/ops3/loop16_{new,warm}  16 batches of 65,536 rows over a new expression through a
//                               tiered engine, and over an expression already compiled
//   compile/ops3/cache_hit, evaluate_64_rows   the memory cache's costs
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench_support.h"

namespace rowjit::bench {
namespace {

constexpr int64_t kRows = 64;
const char* const kSchema = "a:i32, b:i32, c:i32, d:i32";
const char* const kLongSchema = "a:i64, b:i64, c:i64, d:i64";  // long sums stay far from overflow

// The expression with `ops` operators; `k` is a literal in it. Long ones alternate adding and
// subtracting i64 columns (no overflow on moderate values), with a multiplication by `k` every
// eighth term, so that no stage of a staged expression is in the cache already.
std::string Expression(int ops, int64_t k) {
  const std::string ks = std::to_string(k);
  if (ops == 1) return "a + " + ks;
  if (ops == 3) return "a * b + c - " + ks;
  if (ops == 10) return "(a * b + c - d) + (a - b) * 2 + (c * d - a) < " + ks;
  std::string e = "a";
  const char cols[] = {'a', 'b', 'c', 'd'};
  for (int i = 0; i < ops; ++i) {
    if (i % 8 == 0 && i + 1 < ops) {  // the literal in every stage of a staged expression
      e += fmt::format(" + {} * {}", cols[i % 4], ks);
      ++i;
    } else {
      e += fmt::format(" {} {}", i % 2 ? '-' : '+', cols[i % 4]);
    }
  }
  return e;
}

const std::vector<ArrayPtr>& Columns(int64_t rows, TypeId type = TypeId::kI32) {
  static std::map<std::pair<int64_t, TypeId>, std::vector<ArrayPtr>> cache;
  auto& cols = cache[{rows, type}];
  if (cols.empty()) {
    cols = MakeColumns(std::vector<ColumnSpec>(4, ColumnSpec{type, false, false}), rows, 1.0,
                       NullLayout::kScattered, 3);
  }
  return cols;
}

std::atomic<int64_t> g_next_literal{1000};

jit::Engine& SynchronousEngine() {
  static std::unique_ptr<jit::Engine> engine = MakeEngine();
  return *engine;
}

// Cold compiles in tier `tier`, with the mean time of each phase as counters.
void Cold(benchmark::State& state, int ops, jit::Tier tier) {
  jit::CompilePhases sum;
  for (auto _ : state) {
    state.PauseTiming();
    const bool long_sum = ops > 10;
    const ir::ExprPtr expr = Bind(Expression(ops, g_next_literal++), long_sum ? kLongSchema : kSchema);
    const auto& columns = Columns(kRows, long_sum ? TypeId::kI64 : TypeId::kI32);
    state.ResumeTiming();
    jit::EvalReport report;
    auto r = SynchronousEngine().Evaluate(expr, columns, kRows, {.tier = tier}, &report);
    if (!r.ok()) {
      state.SkipWithError(r.error().ToString().c_str());
      return;
    }
    sum += report.phases;
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["emit_ms"] = sum.emit_ms / n;
  state.counters["optimize_ms"] = sum.optimize_ms / n;
  state.counters["codegen_ms"] = sum.codegen_ms / n;
  state.counters["link_ms"] = sum.link_ms / n;
  state.counters["compile_ms"] = sum.total_ms() / n;
}

constexpr int64_t kBatchRows = 65536;

// A tiered engine's first Evaluate of a never-seen expression on 65,536 rows: the fast tier
// compiles and runs while the optimized compile starts on the pool (waited for outside the
// timing, so that compiles do not pile up).
void FirstResult(benchmark::State& state, std::optional<jit::Tier> tier) {
  static std::unique_ptr<jit::Engine> engine = MakeEngine(jit::EngineOptions{});
  int64_t unoptimized = 0;
  for (auto _ : state) {
    state.PauseTiming();
    engine->WaitForCompiles();
    const ir::ExprPtr expr = Bind(Expression(3, g_next_literal++), kSchema);
    state.ResumeTiming();
    jit::EvalReport report;
    auto r = engine->Evaluate(expr, Columns(kBatchRows), kBatchRows, {.tier = tier}, &report);
    if (!r.ok()) {
      state.SkipWithError(r.error().ToString().c_str());
      return;
    }
    unoptimized += report.tier != jit::Tier::kOptimized;
  }
  state.counters["unoptimized_share"] = static_cast<double>(unoptimized) / static_cast<double>(state.iterations());
}

std::string BenchCacheFolder() {
  return (std::filesystem::temp_directory_path() / fmt::format("rowjit-bench-cache-{}", ::getpid())).string();
}

// A fresh engine (its own JIT, an empty memory cache) whose disk cache holds the kernel: the
// first Evaluate of 64 rows reads, verifies and links the object. Engines are made outside the
// timing. The folder is this process's own and removed at the end.
void DiskHit(benchmark::State& state) {
  const std::string folder = BenchCacheFolder();
  const jit::EngineOptions options{.cache_dir = folder, .compile = jit::EngineOptions::Compile::kSynchronous};
  const ir::ExprPtr expr = Bind(Expression(3, 7), kSchema);
  {
    auto writer = MakeEngine(options);
    if (!writer->Evaluate(expr, Columns(kRows), kRows).ok()) std::abort();
  }
  double read_ms = 0, link_ms = 0;
  int64_t from_disk = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto engine = MakeEngine(options);
    state.ResumeTiming();
    jit::EvalReport report;
    auto r = engine->Evaluate(expr, Columns(kRows), kRows, {}, &report);
    state.PauseTiming();
    if (!r.ok()) {
      state.SkipWithError(r.error().ToString().c_str());
      return;
    }
    from_disk += report.source == jit::KernelSource::kDisk;
    read_ms += report.phases.read_ms;
    link_ms += report.phases.link_ms;
    engine.reset();
    state.ResumeTiming();
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["read_ms"] = read_ms / n;
  state.counters["link_ms"] = link_ms / n;
  state.counters["disk_share"] = static_cast<double>(from_disk) / n;
  std::error_code ec;
  std::filesystem::remove_all(folder, ec);
}

// 16 batches of 65,536 rows through a tiered engine: over a never-seen expression (the first
// batches run the fast tier until the optimized kernel is ready), or over one already compiled.
void BatchLoop(benchmark::State& state, bool warm) {
  static std::unique_ptr<jit::Engine> engine = MakeEngine(jit::EngineOptions{});
  const ir::ExprPtr compiled = Bind(Expression(3, 5), kSchema);
  if (warm) {
    (void)engine->Evaluate(compiled, Columns(kBatchRows), kBatchRows, {.tier = jit::Tier::kOptimized});
  }
  for (auto _ : state) {
    state.PauseTiming();
    engine->WaitForCompiles();
    const ir::ExprPtr expr = warm ? compiled : Bind(Expression(3, g_next_literal++), kSchema);
    state.ResumeTiming();
    for (int batch = 0; batch < 16; ++batch) {
      benchmark::DoNotOptimize(engine->Evaluate(expr, Columns(kBatchRows), kBatchRows));
    }
  }
}

const bool kRegistered = [] {
  for (int ops : {1, 3, 10, 30, 100, 300, 1000}) {
    const std::string c = "ops" + std::to_string(ops);
    benchmark::RegisterBenchmark(Name("compile", c, "cold").c_str(),
                                 [ops](benchmark::State& s) { Cold(s, ops, jit::Tier::kOptimized); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark(Name("compile", c, "fast").c_str(),
                                 [ops](benchmark::State& s) { Cold(s, ops, jit::Tier::kFast); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  // The engine's choice (the static tier covers a * b + c - k), and the fast tier forced.
  benchmark::RegisterBenchmark(Name("compile", "ops3", "first_result").c_str(),
                               [](benchmark::State& s) { FirstResult(s, std::nullopt); })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark(Name("compile", "ops3", "first_result_fast").c_str(),
                               [](benchmark::State& s) { FirstResult(s, jit::Tier::kFast); })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark(Name("compile", "ops3", "disk_hit").c_str(), DiskHit)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  for (bool warm : {false, true}) {
    benchmark::RegisterBenchmark(Name("compile", "ops3", warm ? "loop16_warm" : "loop16_new").c_str(),
                                 [warm](benchmark::State& s) { BatchLoop(s, warm); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  benchmark::RegisterBenchmark(Name("compile", "ops3", "cache_hit").c_str(), [](benchmark::State& state) {
    const ir::ExprPtr expr = Bind(Expression(3, 1), kSchema);
    std::vector<ir::InputSpec> specs;
    for (const ArrayPtr& c : Columns(kRows)) specs.push_back(ir::DescribeInput(*c));
    const jit::CacheKey key = *jit::PlanKernel(expr, specs, ir::Policy::kDense);
    if (!SynchronousEngine().KernelFor(key).ok()) std::abort();
    for (auto _ : state) benchmark::DoNotOptimize(SynchronousEngine().KernelFor(key));
  })->Unit(benchmark::kMicrosecond);
  // Per-call cost on a warm kernel, through Engine::Evaluate and through a prepared expression,
  // at 64 rows (one whole word) and under 64 (a short batch: its own tail-folded loop, in place).
  for (const int64_t rows : {int64_t{64}, int64_t{8}, int64_t{16}, int64_t{48}, int64_t{49}, int64_t{63}}) {
    benchmark::RegisterBenchmark(Name("compile", "ops3", fmt::format("evaluate_{}_rows", rows)).c_str(),
                                 [rows](benchmark::State& state) {
      const ir::ExprPtr expr = Bind(Expression(3, 1), kSchema);
      const std::vector<ArrayPtr>& cols = Columns(rows);
      if (!SynchronousEngine().Evaluate(expr, cols, rows).ok()) std::abort();
      for (auto _ : state) benchmark::DoNotOptimize(SynchronousEngine().Evaluate(expr, cols, rows));
    })->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(Name("compile", "ops3", fmt::format("prepared_{}_rows", rows)).c_str(),
                                 [rows](benchmark::State& state) {
      const ir::ExprPtr expr = Bind(Expression(3, 1), kSchema);
      auto prepared = SynchronousEngine().PrepareExpression(expr);
      const std::vector<ArrayPtr>& cols = Columns(rows);
      if (!prepared.ok() || !(*prepared)->Evaluate(cols, rows).ok()) std::abort();
      for (auto _ : state) benchmark::DoNotOptimize((*prepared)->Evaluate(cols, rows));
    })->Unit(benchmark::kMicrosecond);
    // Into memory the bench lends, as a host reusing its output vectors does: EvaluateInto (an
    // array over that memory returned), WriteInto (the null count; the C API's call) and
    // WriteBuffers (the same from the columns' raw buffers).
    for (const auto& [impl, how] : {std::pair{"prepared_into", PreparedCall::kEvaluate},
                                     std::pair{"prepared_write_into", PreparedCall::kWriteInto},
                                     std::pair{"prepared_write_buffers", PreparedCall::kWriteBuffers}}) {
      benchmark::RegisterBenchmark(Name("compile", "ops3", fmt::format("{}_{}_rows", impl, rows)).c_str(),
                                   [rows, how](benchmark::State& state) {
        const ir::ExprPtr expr = Bind(Expression(3, 1), kSchema);
        auto prepared = SynchronousEngine().PrepareExpression(expr);
        const std::vector<ArrayPtr>& cols = Columns(rows);
        std::vector<jit::ColumnBuffers> raw;
        for (const ArrayPtr& c : cols) raw.push_back(BuffersOf(c));
        std::vector<uint64_t> values(static_cast<size_t>(rows)), validity(1);
        const jit::OutputBuffers out{values.data(), rows * 8, validity.data(), 8};
        // kEvaluate here is EvaluateInto: the call that returns an array over `out`.
        auto call = [&] {
          if (how == PreparedCall::kEvaluate) return (*prepared)->EvaluateInto(cols, rows, out).ok();
          if (how == PreparedCall::kWriteInto) return (*prepared)->WriteInto(cols, rows, out).ok();
          return (*prepared)->WriteBuffers(raw, rows, out).ok();
        };
        if (!prepared.ok() || !call()) std::abort();
        for (auto _ : state) benchmark::DoNotOptimize(call());
      })->Unit(benchmark::kMicrosecond);
    }
  }
  return true;
}();

}  // namespace
}  // namespace rowjit::bench
