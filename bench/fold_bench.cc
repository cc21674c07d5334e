// Masked folds over 15,000 rows beside the run-walking and per-row-branch baselines, i32/i64/f64,
// nulls scattered or clustered at valid fractions 0.5-1.0 (bench).
#include <benchmark/benchmark.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

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
std::vector<uint8_t> MakeValidity(double fraction, bool clustered, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> bits(k::NumBytes(kRows), 0);
  if (!clustered) {
    std::bernoulli_distribution valid(fraction);
    for (int64_t i = 0; i < kRows; ++i) k::SetBitTo(bits.data(), i, valid(rng));
    return bits;
  }
  const double null_run = 64, valid_run = fraction >= 1 ? 1e18 : null_run * fraction / (1 - fraction);
  std::exponential_distribution<double> nulls(1 / null_run), valids(1 / valid_run);
  int64_t i = 0;
  while (i < kRows) {
    for (int64_t n = static_cast<int64_t>(valids(rng)) + 1; n > 0 && i < kRows; --n) k::SetBitTo(bits.data(), i++, true);
    for (int64_t n = static_cast<int64_t>(nulls(rng)) + 1; n > 0 && i < kRows && fraction < 1; --n) i++;
  }
  return bits;
}

template <typename T>
std::vector<T> MakeValues(uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(kRows);
  for (auto& x : v) x = static_cast<T>(static_cast<int32_t>(rng() % 2000001) - 1000000);
  return v;
}

enum class Op { kSum, kMinMax };
enum class Impl { kStatic, kStaticBaselineLevel, kRunWalk, kPerRowBranch };

template <typename T>
auto RunOnce(Op op, Impl impl, const T* v, BitSpan validity) {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
  if (impl == Impl::kStatic || impl == Impl::kStaticBaselineLevel) {
    if (op == Op::kSum) return static_cast<Acc>(k::Sum(v, kRows, validity).value);
    const auto mm = k::MinMax(v, kRows, validity, k::NanMode::kSkip);
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
                                                {Impl::kPerRowBranch, "per_row_branch"}};
  for (bool clustered : {false, true}) {
    for (double fraction : kFractions) {
      auto bits = std::make_shared<std::vector<uint8_t>>(MakeValidity(fraction, clustered, 11));
      char frac[16];
      std::snprintf(frac, sizeof frac, "%g", fraction);
      for (auto [impl, impl_name] : impls) {
        const std::string name = std::string("fold/") + (op == Op::kSum ? "sum_" : "min_max_") +
                                 type + (clustered ? "_clustered_" : "_scattered_") + frac + "/" + impl_name;
        benchmark::RegisterBenchmark(name.c_str(), [bits, impl = impl, op](benchmark::State& state) {
          const BitSpan validity{bits->data(), 0, kRows};
          if (impl == Impl::kStaticBaselineLevel) (void)k::SetKernelLevel(k::KernelLevel::kBaseline);
          for (auto _ : state) benchmark::DoNotOptimize(RunOnce(op, impl, values.data(), validity));
          (void)k::SetKernelLevel(k::BestKernelLevel());
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
}

const bool kRegistered = [] {
  for (Op op : {Op::kSum, Op::kMinMax}) {
    Register<int32_t>("i32", op);
    Register<int64_t>("i64", op);
    Register<double>("f64", op);
  }
  return true;
}();

}  // namespace
