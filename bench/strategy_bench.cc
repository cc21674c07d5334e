// The null-strategy crossover (bench): checked a * b + c over 1M i32 rows with `a` null at valid
// fractions 0.01 ... 1, forced dense / branch-and-skip / filter-and-scatter beside the executor's
// own choice (`jit`), for inputs of decode cost 0 (flat), 1 (a dictionary) and 2 (a and b
// dictionaries: the executor adds 1 per dictionary input).
#include <string>
#include <vector>

#include "bench_support.h"

namespace rowjit::bench {
namespace {

constexpr int64_t kRows = int64_t{1} << 20;
constexpr int64_t kValidPcts[] = {1, 5, 10, 25, 50, 75, 90, 99, 100};

const std::vector<ArrayPtr>& Inputs(int cost, int64_t valid_pct) {
  static std::vector<ArrayPtr> cache[3][101];
  std::vector<ArrayPtr>& cols = cache[cost][valid_pct];
  if (cols.empty()) {
    cols = MakeColumns({{TypeId::kI32, true, cost >= 1}, {TypeId::kI32, false, cost >= 2},
                        {TypeId::kI32, false, false}},
                       kRows, static_cast<double>(valid_pct) / 100.0, NullLayout::kScattered, 7);
  }
  return cols;
}

const bool kRegistered = [] {
  const LazyExpr expr("a * b + c", "a:i32?, b:i32, c:i32");
  const std::pair<const char*, ir::Policy> impls[] = {{"jit", ir::Policy::kAuto},
                                                      {"jit_dense", ir::Policy::kDenseRetry},
                                                      {"jit_branch_skip", ir::Policy::kBranchSkip},
                                                      {"jit_filter_scatter", ir::Policy::kFilterScatter}};
  for (int cost = 0; cost < 3; ++cost) {
    for (auto [impl, policy] : impls) {
      auto* b = benchmark::RegisterBenchmark(
          Name("strategy", "cost" + std::to_string(cost) + "_i32_mul_add", impl).c_str(),
          [expr, cost, policy = policy](benchmark::State& state) {
            const std::vector<ArrayPtr>& cols = Inputs(cost, state.range(1));
            RunJit(state, expr.get(), cols, kRows, policy);
            SetCounters(state, kRows, 8 * 16);
          });
      for (int64_t v : kValidPcts) b->Args({kRows, v});
      b->ArgNames({"rows", "valid"});
    }
  }
  return true;
}();

}  // namespace
}  // namespace rowjit::bench
