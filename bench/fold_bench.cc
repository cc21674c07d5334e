// Masked folds over 15,000 rows (and 1M: `fold_1m`) beside the run-walking and per-row-branch
// baselines, i32/i64/f64, nulls scattered or clustered at valid fractions 0.5-1.0, and the JIT's
// fold of the same column (Engine::Aggregate; `jit_prepared`: a PreparedAggregate's call, at half
// and all rows valid) (bench). The `fused` family: sum(a * b) in one pass against materializing
// a * b with the JIT and folding it with the static masked fold.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench_support.h"
#include "ir/aggregate.h"
#include "kernels/baseline_folds.h"
#include "kernels/dispatch.h"
#include "kernels/fold.h"

namespace {

using rowjit::kernels::BitSpan;
namespace k = rowjit::kernels;

constexpr int64_t kRows = 15000;
constexpr double kFractions[] = {0.5, 0.9, 0.95, 0.97, 0.99, 1.0};

// Scattered: each row valid independently. Clustered: alternating null and valid runs with a
// mean null run of 64 rows, sized so the valid fraction comes out right.
std::vector<uint8_t> MakeValidity(double fraction, bool clustered, uint32_t seed, int64_t rows = kRows) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> bits(k::NumBytes(rows), 0);
  if (!clustered) {
    std::bernoulli_distribution valid(fraction);
    for (int64_t i = 0; i < rows; ++i) k::SetBitTo(bits.data(), i, valid(rng));
    return bits;
  }
  const double null_run = 64, valid_run = fraction >= 1 ? 1e18 : null_run * fraction / (1 - fraction);
  std::exponential_distribution<double> nulls(1 / null_run), valids(1 / valid_run);
  int64_t i = 0;
  while (i < rows) {
    for (int64_t n = static_cast<int64_t>(valids(rng)) + 1; n > 0 && i < rows; --n) k::SetBitTo(bits.data(), i++, true);
    for (int64_t n = static_cast<int64_t>(nulls(rng)) + 1; n > 0 && i < rows && fraction < 1; --n) i++;
  }
  return bits;
}

template <typename T>
std::vector<T> MakeValues(uint32_t seed, int64_t rows = kRows) {
  std::mt19937 rng(seed);
  std::vector<T> v(static_cast<size_t>(rows));
  for (auto& x : v) x = static_cast<T>(static_cast<int32_t>(rng() % 2000001) - 1000000);
  return v;
}

enum class Op { kSum, kMinMax };
enum class Impl { kStatic, kStaticBaselineLevel, kRunWalk, kPerRowBranch, kJit, kJitPrepared };

// The column the JIT folds: the same values and validity bits, borrowed.
template <typename T>
rowjit::ArrayPtr ColumnOf(const std::vector<T>& values, const std::vector<uint8_t>* bits) {
  using namespace rowjit;
  const auto rows = static_cast<int64_t>(values.size());
  const DataType type(TypeIdOf<T>(), bits != nullptr);
  BufferPtr v = Buffer::Borrow(values.data(), rows * static_cast<int64_t>(sizeof(T)), nullptr);
  Validity validity = Validity::AllValid();
  if (bits != nullptr) {
    validity = *Validity::FromBitmap(Buffer::Borrow(bits->data(), static_cast<int64_t>(bits->size()), nullptr), 0, rows);
  }
  return *PrimitiveArray::Make(type, rows, v, validity);
}

rowjit::ir::Aggregate AggregateOf(Op op, const char* type, bool nullable) {
  const std::string schema = std::string("a:") + type + (nullable ? "?" : "");
  auto agg = rowjit::ir::ParseAndBindAggregate(op == Op::kSum ? "sum(a)" : "min_max(a)", *rowjit::ParseSchema(schema));
  if (!agg.ok()) std::abort();
  return *agg;
}

// Engine::Aggregate every call (Impl::kJit), or a PreparedAggregate's call on its held layout
// (Impl::kJitPrepared).
void RunJitFold(benchmark::State& state, const rowjit::ir::Aggregate& agg, const rowjit::ArrayPtr& col,
                int64_t rows, Impl impl = Impl::kJit) {
  rowjit::jit::Engine& engine = rowjit::bench::SharedEngine();
  const std::vector<rowjit::ArrayPtr> cols = {col};
  auto warm = engine.Aggregate(agg, cols, rows);
  if (!warm.ok()) {
    state.SkipWithError(warm.error().ToString().c_str());
    return;
  }
  if (impl != Impl::kJitPrepared) {
    for (auto _ : state) benchmark::DoNotOptimize(engine.Aggregate(agg, cols, rows));
    return;
  }
  auto handle = engine.PrepareAggregate(agg);
  if (!handle.ok() || !(*handle)->Aggregate(cols, rows).ok()) {
    state.SkipWithError("prepare failed");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize((*handle)->Aggregate(cols, rows));
}

template <typename T>
auto RunOnce(Op op, Impl impl, const T* v, BitSpan validity, int64_t rows = kRows) {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
  if (impl == Impl::kStatic || impl == Impl::kStaticBaselineLevel) {
    if (op == Op::kSum) return static_cast<Acc>(k::Sum(v, rows, validity).value);
    const auto mm = k::MinMax(v, rows, validity, k::NanMode::kSkip);
    return static_cast<Acc>(mm->min) + static_cast<Acc>(mm->max);
  }
  auto run = [&](auto init, auto fn) {
    return impl == Impl::kRunWalk ? k::baseline::RunWalkFold(v, kRows, validity, init, fn)
                                  : k::baseline::PerRowBranchFold(v, kRows, validity, init, fn);
  };
  if (op == Op::kSum) return run(Acc{0}, [](Acc a, T x) { return a + static_cast<Acc>(x); });
  struct MM { T mn, mx; };
  const MM r = run(MM{v[0], v[0]}, [](MM a, T x) {
    return MM{x < a.mn ? x : a.mn, a.mx < x ? x : a.mx};
  });
  return static_cast<Acc>(r.mn) + static_cast<Acc>(r.mx);
}

template <typename T>
void Register(const char* type, Op op) {
  static const std::vector<T> values = MakeValues<T>(7);
  const std::pair<Impl, const char*> impls[] = {{Impl::kStatic, "static"},
                                                {Impl::kStaticBaselineLevel, "static_baseline_level"},
                                                {Impl::kRunWalk, "run_walk"},
                                                {Impl::kPerRowBranch, "per_row_branch"},
                                                {Impl::kJit, "jit"},
                                                {Impl::kJitPrepared, "jit_prepared"}};
  for (bool clustered : {false, true}) {
    for (double fraction : kFractions) {
      auto bits = std::make_shared<std::vector<uint8_t>>(MakeValidity(fraction, clustered, 11));
      char frac[16];
      std::snprintf(frac, sizeof frac, "%g", fraction);
      for (auto [impl, impl_name] : impls) {
        if (impl == Impl::kJitPrepared && (clustered || (fraction != 0.5 && fraction != 1.0))) continue;
        const std::string name = std::string("fold/") + (op == Op::kSum ? "sum_" : "min_max_") +
                                 type + (clustered ? "_clustered_" : "_scattered_") + frac + "/" + impl_name;
        benchmark::RegisterBenchmark(name.c_str(), [bits, impl = impl, op, type](benchmark::State& state) {
          const BitSpan validity{bits->data(), 0, kRows};
          if (impl == Impl::kJit || impl == Impl::kJitPrepared) {
            RunJitFold(state, AggregateOf(op, type, true), ColumnOf(values, bits.get()), kRows, impl);
            state.SetItemsProcessed(state.iterations() * kRows);
            state.SetBytesProcessed(state.iterations() * kRows * static_cast<int64_t>(sizeof(T)));
            return;
          }
          // The level in force before (ROWJIT_KERNEL_LEVEL's) is restored, not the best one.
          const k::KernelLevel level = k::ActiveKernelLevel();
          if (impl == Impl::kStaticBaselineLevel) (void)k::SetKernelLevel(k::KernelLevel::kBaseline);
          for (auto _ : state) benchmark::DoNotOptimize(RunOnce(op, impl, values.data(), validity));
          (void)k::SetKernelLevel(level);
          state.SetItemsProcessed(state.iterations() * kRows);
          state.SetBytesProcessed(state.iterations() * kRows * static_cast<int64_t>(sizeof(T)));
        });
      }
    }
  }
  // No bitmap at all: the dense form of the same kernel.
  const std::string name = std::string("fold/") + (op == Op::kSum ? "sum_" : "min_max_") + type + "_no_bitmap/static";
  benchmark::RegisterBenchmark(name.c_str(), [op](benchmark::State& state) {
    for (auto _ : state) benchmark::DoNotOptimize(RunOnce(op, Impl::kStatic, values.data(), BitSpan{}));
    state.SetItemsProcessed(state.iterations() * kRows);
    state.SetBytesProcessed(state.iterations() * kRows * static_cast<int64_t>(sizeof(T)));
  });
  const std::string jit_name = std::string("fold/") + (op == Op::kSum ? "sum_" : "min_max_") + type + "_no_bitmap/jit";
  benchmark::RegisterBenchmark(jit_name.c_str(), [op, type](benchmark::State& state) {
    RunJitFold(state, AggregateOf(op, type, false), ColumnOf(values, nullptr), kRows);
    state.SetItemsProcessed(state.iterations() * kRows);
    state.SetBytesProcessed(state.iterations() * kRows * static_cast<int64_t>(sizeof(T)));
  });
}

// fold_1m: the same folds over 1M rows (values 4-8 MiB: past L2), static and JIT, at half and
// all rows valid, nulls scattered.
template <typename T>
void Register1M(const char* type, Op op) {
  constexpr int64_t kRows1M = int64_t{1} << 20;
  static const std::vector<T> values = MakeValues<T>(7, kRows1M);
  for (double fraction : {0.5, 1.0}) {
    auto bits = std::make_shared<std::vector<uint8_t>>(MakeValidity(fraction, false, 11, kRows1M));
    char frac[16];
    std::snprintf(frac, sizeof frac, "%g", fraction);
    const std::string base = std::string("fold_1m/") + (op == Op::kSum ? "sum_" : "min_max_") + type +
                             "_scattered_" + frac + "/";
    benchmark::RegisterBenchmark((base + "static").c_str(), [bits, op](benchmark::State& state) {
      const BitSpan validity{bits->data(), 0, kRows1M};
      for (auto _ : state) benchmark::DoNotOptimize(RunOnce(op, Impl::kStatic, values.data(), validity, kRows1M));
      state.SetItemsProcessed(state.iterations() * kRows1M);
    });
    benchmark::RegisterBenchmark((base + "jit").c_str(), [bits, op, type](benchmark::State& state) {
      RunJitFold(state, AggregateOf(op, type, true), ColumnOf(values, bits.get()), kRows1M);
      state.SetItemsProcessed(state.iterations() * kRows1M);
    });
  }
}

// fused: sum(a * b) over nullable i32 (1M rows, nulls scattered in both inputs) in one pass
// (`jit`), against `jit_materialize_static`: Engine::Evaluate(a * b), then the static masked
// fold over its values and validity.
void RegisterFused() {
  using namespace rowjit;
  constexpr int64_t kFusedRows = int64_t{1} << 20;
  for (int valid_pct : {50, 90, 100}) {
    const std::string base = "fused/sum_i32_mul_scattered_" + std::to_string(valid_pct) + "/";
    auto inputs = [valid_pct] {
      static std::map<int, std::vector<ArrayPtr>> cache;
      auto it = cache.find(valid_pct);
      if (it == cache.end()) {
        const std::vector<bench::ColumnSpec> specs(2, bench::ColumnSpec{TypeId::kI32, true, false});
        it = cache.emplace(valid_pct, bench::MakeColumns(specs, kFusedRows, valid_pct / 100.0,
                                                         NullLayout::kScattered, 42)).first;
      }
      return it->second;
    };
    benchmark::RegisterBenchmark((base + "jit").c_str(), [inputs](benchmark::State& state) {
      auto agg = *ir::ParseAndBindAggregate("sum(a * b)", *ParseSchema("a:i32?, b:i32?"));
      const std::vector<ArrayPtr> cols = inputs();
      jit::Engine& engine = bench::SharedEngine();
      jit::EvalReport report;
      if (auto warm = engine.Aggregate(agg, cols, kFusedRows, &report); !warm.ok()) {
        state.SkipWithError(warm.error().ToString().c_str());
        return;
      }
      for (auto _ : state) benchmark::DoNotOptimize(engine.Aggregate(agg, cols, kFusedRows));
      bench::SetCounters(state, kFusedRows, 64);
    });
    benchmark::RegisterBenchmark((base + "jit_materialize_static").c_str(), [inputs](benchmark::State& state) {
      const ir::ExprPtr expr = bench::Bind("a * b", "a:i32?, b:i32?");
      const std::vector<ArrayPtr> cols = inputs();
      jit::Engine& engine = bench::SharedEngine();
      auto fold = [&]() -> int64_t {
        auto product = engine.Evaluate(expr, cols, kFusedRows);
        if (!product.ok()) return 0;
        const auto& p = static_cast<const PrimitiveArray&>(**product);
        const BitSpan valid = p.validity().has_bitmap() ? p.validity().Span(kFusedRows) : BitSpan{};
        return k::Sum(p.values<int32_t>(), kFusedRows, valid).value;
      };
      if (!engine.Evaluate(expr, cols, kFusedRows).ok()) {
        state.SkipWithError("a * b failed");
        return;
      }
      for (auto _ : state) benchmark::DoNotOptimize(fold());
      bench::SetCounters(state, kFusedRows, 64);
    });
  }
}

// fused_l2: the same sum(a * b) over 16,384 i32 rows (128 KiB of input: the kernel's own
// arithmetic, not the cache's read rate, sets its time), without nulls (`100`) and with half the
// rows of each input null, scattered (`50`), fused (`jit`) and materialized.
void RegisterFusedL2() {
  using namespace rowjit;
  constexpr int64_t kRows = 16384;
  for (int valid_pct : {100, 50}) {
    const bool nullable = valid_pct < 100;
    const std::string base = "fused_l2/sum_i32_mul_" + std::to_string(valid_pct) + "/";
    const std::string schema = nullable ? "a:i32?, b:i32?" : "a:i32, b:i32";
    auto cols = std::make_shared<const std::vector<ArrayPtr>>(
        bench::MakeColumns(std::vector<bench::ColumnSpec>(2, bench::ColumnSpec{TypeId::kI32, nullable, false}), kRows,
                           valid_pct / 100.0, NullLayout::kScattered, 42));
    benchmark::RegisterBenchmark((base + "jit").c_str(), [cols, schema](benchmark::State& state) {
      auto agg = *ir::ParseAndBindAggregate("sum(a * b)", *ParseSchema(schema));
      jit::Engine& engine = bench::SharedEngine();
      if (auto warm = engine.Aggregate(agg, *cols, kRows); !warm.ok()) {
        state.SkipWithError(warm.error().ToString().c_str());
        return;
      }
      for (auto _ : state) benchmark::DoNotOptimize(engine.Aggregate(agg, *cols, kRows));
      bench::SetCounters(state, kRows, 64);
    });
    benchmark::RegisterBenchmark((base + "jit_materialize_static").c_str(), [cols, schema](benchmark::State& state) {
      const ir::ExprPtr expr = bench::Bind("a * b", schema);
      jit::Engine& engine = bench::SharedEngine();
      auto fold = [&]() -> int64_t {
        auto product = engine.Evaluate(expr, *cols, kRows);
        if (!product.ok()) return 0;
        const auto& p = static_cast<const PrimitiveArray&>(**product);
        const BitSpan valid = p.validity().has_bitmap() ? p.validity().Span(kRows) : BitSpan{};
        return k::Sum(p.values<int32_t>(), kRows, valid).value;
      };
      if (!engine.Evaluate(expr, *cols, kRows).ok()) {
        state.SkipWithError("a * b failed");
        return;
      }
      for (auto _ : state) benchmark::DoNotOptimize(fold());
      bench::SetCounters(state, kRows, 64);
    });
  }
}

// fold_call: per-call cost of a fold over 64 rows (i32, half valid, nulls scattered): Engine::
// Aggregate (`jit`) against a PreparedAggregate's call (`jit_prepared`); the kernel's work is a
// few nanoseconds, so the figure is the call's own overhead.
void RegisterCall() {
  constexpr int64_t kCallRows = 64;
  static const std::vector<int32_t> values = MakeValues<int32_t>(7, kCallRows);
  static const std::vector<uint8_t> bits = MakeValidity(0.5, false, 11, kCallRows);
  for (auto [impl, impl_name] : {std::pair{Impl::kJit, "jit"}, std::pair{Impl::kJitPrepared, "jit_prepared"}}) {
    const std::string name = std::string("fold_call/min_max_i32_64_rows/") + impl_name;
    benchmark::RegisterBenchmark(name.c_str(), [impl = impl](benchmark::State& state) {
      RunJitFold(state, AggregateOf(Op::kMinMax, "i32", true), ColumnOf(values, &bits), kCallRows, impl);
    });
  }
}

const bool kRegistered = [] {
  for (Op op : {Op::kSum, Op::kMinMax}) {
    Register<int32_t>("i32", op);
    Register<int64_t>("i64", op);
    Register<double>("f64", op);
    Register1M<int32_t>("i32", op);
    Register1M<int64_t>("i64", op);
    Register1M<double>("f64", op);
  }
  RegisterFused();
  RegisterFusedL2();
  RegisterCall();
  return true;
}();

}  // namespace
