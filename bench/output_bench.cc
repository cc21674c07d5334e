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

// `stream`: a*b+c at 4M rows through Engine::Evaluate with streaming output stores (the default
// past the last-level cache) and without (an engine whose streaming threshold is off).
void RunStream(benchmark::State& state, const ir::ExprPtr& expr, TypeId type, bool streaming) {
  const int64_t rows = state.range(0);
  const std::vector<ColumnSpec> specs(3, ColumnSpec{type, false, false});
  const std::vector<ArrayPtr> cols = MakeColumns(specs, rows, 1.0, NullLayout::kScattered, 31);
  static jit::Engine& plain = *jit::Engine::Make({.stream_output_bytes = -1,
                                                  .compile = jit::EngineOptions::Compile::kSynchronous})->release();
  jit::Engine& engine = streaming ? SharedEngine() : plain;
  jit::EvalReport report;
  if (Status warm = engine.Evaluate(expr, cols, rows, {}, &report).status(); !warm.ok()) {
    state.SkipWithError(warm.error().ToString().c_str());
    return;
  }
  const bool streamed = report.kernel && report.kernel->shape.stream_output;
  state.SetLabel(std::string(jit::StrategyName(report.strategy)) + (streamed ? " streaming" : ""));
  for (auto _ : state) benchmark::DoNotOptimize(engine.Evaluate(expr, cols, rows));
  SetCounters(state, rows, 4 * ByteWidth(type) * 8);
}

const bool kRegistered = [] {
  for (TypeId type : {TypeId::kI32, TypeId::kF64}) {
    const std::string t(TypeIdName(type));
    const LazyExpr expr("a * b + c", fmt::format("a:{0}, b:{0}, c:{0}", t));
    for (bool streaming : {true, false}) {
      auto* b = benchmark::RegisterBenchmark(
          fmt::format("stream/{}_mul_add/{}", t, streaming ? "jit" : "jit_no_stream").c_str(),
          [expr, type, streaming](benchmark::State& state) { RunStream(state, expr.get(), type, streaming); });
      b->Args({kLargeRows})->ArgNames({"rows"});
    }
  }
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
