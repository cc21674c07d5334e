// Filters and selections (bench). `filter`: Engine::Filter of `a*b+c > 0` (i32, about half the
// rows pass) to a selection vector, beside Evaluate of the same predicate to a bool bitmap.
// `selection`: `a*b+c` over 65,536 i32 rows under a selection of 1-100 % of the rows (the
// `valid` argument is the selected percentage): `jit` (Engine::Evaluate with the selection, the
// engine's choice), `jit_take_inputs` (take the selected rows of each input, compute them) and
// `jit_dense_take` (compute every row, take the result's selected rows), for flat inputs and for
// `a` a dictionary (decode cost 1): the calibration of the engine's choice. `project`: three
// expressions sharing `a * b` in one Engine::Project against three Evaluates.
#include <benchmark/benchmark.h>

#include <random>

#include "bench_support.h"
#include "runtime/selection.h"

namespace rowjit::bench {
namespace {

constexpr int64_t kRows = 65536;

std::vector<ArrayPtr> Inputs(bool dictionary) {
  std::vector<ColumnSpec> specs(3, ColumnSpec{TypeId::kI32, false, false});
  specs[0].dictionary = dictionary;
  return MakeColumns(specs, kRows, 1.0, NullLayout::kScattered, 17);
}

SelectionVector Selected(int pct) {
  std::mt19937_64 rng(static_cast<uint64_t>(pct) * 31 + 1);
  std::vector<uint32_t> rows;
  for (uint32_t i = 0; i < kRows; ++i) {
    if (static_cast<int>(rng() % 100) < pct) rows.push_back(i);
  }
  return *SelectionVector::FromIndices(rows, kRows);
}

void RegisterFilter() {
  const LazyExpr pred("a * b + c > 0:i32", "a:i32, b:i32, c:i32");
  benchmark::RegisterBenchmark("filter/i32_mul_add_gt0/jit", [pred](benchmark::State& state) {
    const std::vector<ArrayPtr> cols = Inputs(false);
    jit::Engine& engine = SharedEngine();
    auto warm = engine.Filter(pred.get(), cols, kRows);
    if (!warm.ok()) {
      state.SkipWithError(warm.error().ToString().c_str());
      return;
    }
    state.SetLabel(std::to_string(warm->size()) + " pass");
    for (auto _ : state) benchmark::DoNotOptimize(engine.Filter(pred.get(), cols, kRows));
    SetCounters(state, kRows, 8 * 12);
  })->Args({kRows, 100})->ArgNames({"rows", "valid"});
  benchmark::RegisterBenchmark("filter/i32_mul_add_gt0/jit_bitmap", [pred](benchmark::State& state) {
    RunJit(state, pred.get(), Inputs(false), kRows);
    SetCounters(state, kRows, 8 * 12);
  })->Args({kRows, 100})->ArgNames({"rows", "valid"});
}

void RegisterSelection() {
  for (bool dictionary : {false, true}) {
    const std::string base = std::string("selection/") + (dictionary ? "cost1" : "cost0") + "_i32_mul_add/";
    const LazyExpr expr("a * b + c", "a:i32, b:i32, c:i32");
    auto body = [expr, dictionary](benchmark::State& state, int how) {
      const std::vector<ArrayPtr> cols = Inputs(dictionary);
      const SelectionVector sel = Selected(static_cast<int>(state.range(1)));
      jit::Engine& engine = SharedEngine();
      auto run = [&]() -> Result<ArrayPtr> {
        if (how == 0) return engine.Evaluate(expr.get(), cols, kRows, sel);
        if (how == 1) {
          std::vector<ArrayPtr> taken;
          for (const ArrayPtr& c : cols) {
            ROWJIT_ASSIGN_OR_RETURN(ArrayPtr t, Take(*c, sel));
            taken.push_back(std::move(t));
          }
          return engine.Evaluate(expr.get(), taken, sel.size());
        }
        ROWJIT_ASSIGN_OR_RETURN(ArrayPtr all, engine.Evaluate(expr.get(), cols, kRows));
        return Take(*all, sel);
      };
      if (auto warm = run(); !warm.ok()) {
        state.SkipWithError(warm.error().ToString().c_str());
        return;
      }
      for (auto _ : state) benchmark::DoNotOptimize(run());
      SetCounters(state, kRows, 8 * 16);
    };
    const char* impls[] = {"jit", "jit_take_inputs", "jit_dense_take"};
    for (int how = 0; how < 3; ++how) {
      auto* b = benchmark::RegisterBenchmark((base + impls[how]).c_str(),
                                            [body, how](benchmark::State& state) { body(state, how); });
      for (int pct : {1, 10, 25, 50, 75, 90, 100}) b->Args({kRows, pct});
      b->ArgNames({"rows", "valid"});
    }
  }
}

// project: `a * b + c`, `a * b - c`, `a * b > c` over 65,536 i32 rows (all valid, or every input
// nullable at 50 %): Engine::Project (one kernel pass) against three Evaluates.
void RegisterProject() {
  for (int valid : {100, 50}) {
    const std::string schema = valid == 100 ? "a:i32, b:i32, c:i32" : "a:i32?, b:i32?, c:i32?";
    auto exprs = std::make_shared<std::vector<LazyExpr>>();
    for (const char* t : {"a * b + c", "a * b - c", "a * b > c"}) exprs->emplace_back(t, schema);
    auto inputs = [valid] {
      const std::vector<ColumnSpec> specs(3, ColumnSpec{TypeId::kI32, valid != 100, false});
      return MakeColumns(specs, kRows, valid / 100.0, NullLayout::kScattered, 23);
    };
    for (bool fused : {true, false}) {
      const std::string name = std::string("project/i32_three_sharing_mul/") + (fused ? "jit" : "jit_separate");
      benchmark::RegisterBenchmark(name.c_str(), [exprs, inputs, fused](benchmark::State& state) {
        const std::vector<ArrayPtr> cols = inputs();
        std::vector<ir::ExprPtr> bound;
        for (const LazyExpr& e : *exprs) bound.push_back(e.get());
        jit::Engine& engine = SharedEngine();
        auto run = [&]() -> Status {
          if (fused) return engine.Project(bound, cols, kRows).status();
          for (const ir::ExprPtr& e : bound) ROWJIT_RETURN_NOT_OK(engine.Evaluate(e, cols, kRows).status());
          return Status::OK();
        };
        if (Status warm = run(); !warm.ok()) {
          state.SkipWithError(warm.error().ToString().c_str());
          return;
        }
        for (auto _ : state) benchmark::DoNotOptimize(run());
        SetCounters(state, kRows, 8 * 12);
      })->Args({kRows, valid})->ArgNames({"rows", "valid"});
    }
  }
}

// project_call: the per-call cost of the same projection over 64 rows (all valid): Engine::Project
// (`jit`) against a PreparedProjection's call (`jit_prepared`).
void RegisterProjectCall() {
  constexpr int64_t kCallRows = 64;
  for (bool prepared : {false, true}) {
    const std::string name = std::string("project_call/i32_three_sharing_mul_64_rows/") + (prepared ? "jit_prepared" : "jit");
    benchmark::RegisterBenchmark(name.c_str(), [prepared](benchmark::State& state) {
      const std::string schema = "a:i32, b:i32, c:i32";
      std::vector<ir::ExprPtr> bound;
      for (const char* t : {"a * b + c", "a * b - c", "a * b > c"}) bound.push_back(Bind(t, schema));
      const std::vector<ArrayPtr> cols =
          MakeColumns(std::vector<ColumnSpec>(3, ColumnSpec{TypeId::kI32, false, false}), kCallRows, 1.0,
                      NullLayout::kScattered, 23);
      jit::Engine& engine = SharedEngine();
      auto handle = engine.PrepareProjection(bound);
      if (!handle.ok() || !engine.Project(bound, cols, kCallRows).ok() || !(*handle)->Project(cols, kCallRows).ok()) {
        state.SkipWithError("projection failed");
        return;
      }
      for (auto _ : state) {
        if (prepared) {
          benchmark::DoNotOptimize((*handle)->Project(cols, kCallRows));
        } else {
          benchmark::DoNotOptimize(engine.Project(bound, cols, kCallRows));
        }
      }
    })->Unit(benchmark::kMicrosecond);
  }
}

const bool kRegistered = [] {
  RegisterFilter();
  RegisterSelection();
  RegisterProject();
  RegisterProjectCall();
  return true;
}();

}  // namespace
}  // namespace rowjit::bench
