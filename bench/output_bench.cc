// Caller outputs (bench). `into`: `a * b + c` over i32 columns (all valid, or every input nullable
// at 50 %) at 64, 65,536 and 4M rows, the result returned in fresh memory or written into memory
// the caller lends: `jit` (Engine::Evaluate), `jit_into` (Engine::EvaluateInto), `jit_prepared`
// and `jit_prepared_into` (a PreparedExpression, the batch loop a host writes). The lent buffers
// are allocated once, before the loop; the fresh outputs come from the engine's recycling pool.
#include <benchmark/benchmark.h>

#include "bench_support.h"

namespace rowjit::bench {
namespace {

enum class How : uint8_t { kEvaluate, kInto, kPrepared, kPreparedInto };

void RunInto(benchmark::State& state, const ir::ExprPtr& expr, How how) {
  const int64_t rows = state.range(0);
  const bool nulls = state.range(1) != 100;
  const std::vector<ColumnSpec> specs(3, ColumnSpec{TypeId::kI32, nulls, false});
  const std::vector<ArrayPtr> cols = MakeColumns(specs, rows, state.range(1) / 100.0, NullLayout::kScattered, 29);
  jit::Engine& engine = SharedEngine();
  auto prepared = engine.PrepareExpression(expr);
  BufferPtr values = *Buffer::Allocate(rows * 4), validity = *Buffer::Allocate(kernels::NumWords(rows) * 8);
  const jit::OutputBuffers out{values->mutable_data(), values->size(), validity->mutable_data(), validity->size()};
  jit::EvalReport report;
  auto run = [&](jit::EvalReport* rep) -> Status {
    switch (how) {
      case How::kEvaluate: return engine.Evaluate(expr, cols, rows, {}, rep).status();
      case How::kInto: return engine.EvaluateInto(expr, cols, rows, out, {}, rep).status();
      case How::kPrepared: return (*prepared)->Evaluate(cols, rows, rep).status();
      case How::kPreparedInto: return (*prepared)->EvaluateInto(cols, rows, out, rep).status();
    }
    return Status::OK();
  };
  if (Status warm = run(&report); !warm.ok()) {
    state.SkipWithError(warm.error().ToString().c_str());
    return;
  }
  state.SetLabel(std::string(jit::StrategyName(report.strategy)) + (report.output_copied ? " copied" : ""));
  for (auto _ : state) benchmark::DoNotOptimize(run(nullptr));
  SetCounters(state, rows, 8 * 16);
}

const bool kRegistered = [] {
  for (int valid : {100, 50}) {
    const LazyExpr expr("a * b + c", valid == 100 ? "a:i32, b:i32, c:i32" : "a:i32?, b:i32?, c:i32?");
    const std::pair<How, const char*> impls[] = {{How::kEvaluate, "jit"},
                                                 {How::kInto, "jit_into"},
                                                 {How::kPrepared, "jit_prepared"},
                                                 {How::kPreparedInto, "jit_prepared_into"}};
    for (const auto& [how, name] : impls) {
      auto* b = benchmark::RegisterBenchmark((std::string("into/i32_mul_add/") + name).c_str(),
                                            [expr, how](benchmark::State& state) { RunInto(state, expr.get(), how); });
      for (int64_t rows : {int64_t{64}, kSmallRows, kLargeRows}) b->Args({rows, valid});
      b->ArgNames({"rows", "valid"});
    }
  }
  return true;
}();

}  // namespace
}  // namespace rowjit::bench
