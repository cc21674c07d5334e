// Retry pressure (jit/plan/retry_pressure.h): one expression's memory is its own, whatever shares
// its slot, and a batch loop whose rows behind nulls keep failing compiles its kernels in its
// first call only (no timing: compile counts and strategies from the engine's reports and
// statistics).
#include "jit/plan/retry_pressure.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "fmt/format.h"
#include "ir/binder.h"
#include "ir/reference.h"
#include "jit/api/engine.h"
#include "kernels/bitmap.h"
#include "runtime/builder.h"
#include "support/assert_ok.h"

namespace rowjit::jit {
namespace {

using internal::RetryPressure;

std::unique_ptr<Engine> NewEngine() {
  return std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
}

ir::ExprPtr Bind(const std::string& text, const std::string& schema) {
  auto e = ir::ParseAndBind(text, *ParseSchema(schema));
  EXPECT_TRUE(e.ok()) << text << ": " << e.error().ToString();
  return *e;
}

// `a / b + k` for the smallest k >= 1 whose expression takes the slot of `target` (a different
// expression, with a different hash).
ir::ExprPtr SameSlotAs(const ir::ExprPtr& target, const std::string& schema) {
  for (int k = 1; k < 100000; ++k) {
    ir::ExprPtr e = Bind(fmt::format("a / b + {}", k), schema);
    if (RetryPressure::SlotOf(e->hash()) == RetryPressure::SlotOf(target->hash()) && e->hash() != target->hash()) {
      return e;
    }
  }
  ADD_FAILURE() << "no expression shares the slot of " << target->ToString();
  return nullptr;
}

// Columns a and b of `rows` rows, valid where a fixed draw falls under `valid_permille`: valid
// rows hold +-1..100 (b never 0), null rows hold `behind_nulls` in both (0: a division by zero
// behind every null, evidence that only a valid-only run does not raise).
template <typename T>
std::vector<ArrayPtr> Divisions(int64_t rows, int valid_permille, T behind_nulls) {
  std::mt19937_64 rng(99);
  BufferPtr bits = *AllocateBitmap(rows);
  std::vector<std::vector<T>> values(2, std::vector<T>(static_cast<size_t>(rows), behind_nulls));
  for (int64_t i = 0; i < rows; ++i) {
    if (static_cast<int>(rng() % 1000) >= valid_permille) continue;
    kernels::SetBitTo(bits->mutable_data(), i, true);
    for (auto& column : values) {
      const T y = static_cast<T>(1 + rng() % 100);
      column[static_cast<size_t>(i)] = rng() % 2 ? static_cast<T>(-y) : y;
    }
  }
  std::vector<ArrayPtr> cols;
  for (const auto& column : values) {
    BufferPtr buffer = *Buffer::Allocate(rows * static_cast<int64_t>(sizeof(T)));
    std::memcpy(buffer->mutable_data(), column.data(), column.size() * sizeof(T));
    cols.push_back(*PrimitiveArray::Make(DataType(TypeIdOf<T>(), true), rows, buffer,
                                         *Validity::FromBitmap(bits, 0, rows)));
  }
  return cols;
}

std::string Ran(const EvalReport& r) {
  return std::string(StrategyName(r.strategy)) + (r.retried ? "+retried" : "");
}

TEST(RetryPressure, AnExpressionReadsAndSpendsOnlyItsOwnCount) {
  const std::string schema = "a:i32?, b:i32?";
  const ir::ExprPtr div = Bind("a / b", schema);
  const ir::ExprPtr other = SameSlotAs(div, schema);
  ASSERT_NE(other, nullptr);
  RetryPressure pressure;
  pressure.Retried(*div);
  EXPECT_TRUE(pressure.Pressured(*div));
  EXPECT_FALSE(pressure.Pressured(*other));
  EXPECT_FALSE(pressure.PreferValidOnly(*other));  // spends nothing of div's
  for (int i = 0; i < RetryPressure::kPerRetry; ++i) EXPECT_TRUE(pressure.PreferValidOnly(*div)) << i;
  EXPECT_FALSE(pressure.PreferValidOnly(*div));
  EXPECT_FALSE(pressure.Pressured(*div));
}

// The table's bound: a retry of an expression whose slot another holds takes it over; the one
// dropped is no longer pressured (it runs dense once more), and never reads the newcomer's count.
TEST(RetryPressure, ARetryTakesOverASlotAnotherExpressionHolds) {
  const std::string schema = "a:i32?, b:i32?";
  const ir::ExprPtr div = Bind("a / b", schema);
  const ir::ExprPtr other = SameSlotAs(div, schema);
  ASSERT_NE(other, nullptr);
  RetryPressure pressure;
  pressure.Retried(*div);
  pressure.Retried(*other);
  EXPECT_FALSE(pressure.Pressured(*div));
  EXPECT_TRUE(pressure.Pressured(*other));
  for (int i = 0; i < RetryPressure::kPerRetry; ++i) EXPECT_TRUE(pressure.PreferValidOnly(*other)) << i;
  EXPECT_FALSE(pressure.PreferValidOnly(*other));
}

TEST(RetryPressure, RetriesBuyValidOnlyBatchesUpToTheCap) {
  const ir::ExprPtr div = Bind("a / b", "a:i32?, b:i32?");
  RetryPressure pressure;
  pressure.Retried(*div);
  pressure.Retried(*div);  // 2 * kPerRetry owed
  int owed = 0;
  while (pressure.PreferValidOnly(*div)) ++owed;
  EXPECT_EQ(owed, 2 * RetryPressure::kPerRetry);
  for (int i = 0; i < 100; ++i) pressure.Retried(*div);
  owed = 0;
  while (pressure.PreferValidOnly(*div)) ++owed;
  EXPECT_EQ(owed, RetryPressure::kCap);
}

// The conditions of `guarded/{i8,i32}_div/jit/rows:65536/valid:50`: `a / b` over nullable inputs
// with half the rows null and 0 behind every null. Policy auto runs dense with retry, retries,
// then branch-and-skip while the pressure lasts, dense again, ... Every kernel this needs is
// compiled in the first call (the dense one, and the branch-and-skip one of the calls its retry
// makes owe valid-only runs); the calls after it compile nothing, whether they run dense with
// retry or branch-and-skip, through Engine::Evaluate (its held handle from the second call) or a
// prepared handle.
template <typename T>
void CompilesOnlyInTheFirstCall(const std::string& type) {
  SCOPED_TRACE(type);
  constexpr int64_t kRows = 4096;
  const std::vector<ArrayPtr> cols = Divisions<T>(kRows, 500, 0);
  const ir::ExprPtr expr = Bind("a / b", fmt::format("a:{0}?, b:{0}?", type));
  ASSERT_OK_AND_ASSIGN(ArrayPtr expected, ir::EvaluateReference(*expr, cols, kRows));
  auto engine = NewEngine();
  EvalReport first;
  ASSERT_OK_AND_ASSIGN(ArrayPtr out, engine->Evaluate(expr, cols, kRows, {}, &first));
  EXPECT_EQ(Ran(first), "dense-retry+retried");
  EXPECT_TRUE(first.compiled);
  EXPECT_EQ(out->ToString(), expected->ToString());
  const int64_t compiles = engine->cache_stats().compiles;
  EXPECT_EQ(compiles, 2);  // the dense kernel and the branch-and-skip one
  ASSERT_OK_AND_ASSIGN(auto prepared, engine->PrepareExpression(expr));
  std::vector<std::string> ran;
  for (int i = 0; i < 12; ++i) {
    EvalReport report;
    auto again = i % 2 ? prepared->Evaluate(cols, kRows, &report) : engine->Evaluate(expr, cols, kRows, {}, &report);
    ASSERT_OK(again);
    EXPECT_EQ((*again)->ToString(), expected->ToString()) << i;
    EXPECT_FALSE(report.compiled) << i << ": " << Ran(report);
    EXPECT_FALSE(report.cold_pass) << i;
    ran.push_back(Ran(report));
  }
  EXPECT_EQ(engine->cache_stats().compiles, compiles);
  // Four valid-only calls a retry, then dense again (which retries).
  EXPECT_EQ(ran, (std::vector<std::string>{"branch-skip", "branch-skip", "branch-skip", "branch-skip",
                                           "dense-retry+retried", "branch-skip", "branch-skip", "branch-skip",
                                           "branch-skip", "dense-retry+retried", "branch-skip", "branch-skip"}));
}

TEST(RetryPressure, ABatchLoopWhoseRowsBehindNullsFailCompilesOnlyInItsFirstCall) {
  CompilesOnlyInTheFirstCall<int8_t>("i8");
  CompilesOnlyInTheFirstCall<int32_t>("i32");
}

// A forced dense-with-retry policy owes no valid-only runs: its retries rerun the dense kernel
// over the valid rows, and it compiles that kernel only.
TEST(RetryPressure, ForcedDenseRetryCompilesOnlyTheDenseKernel) {
  constexpr int64_t kRows = 4096;
  const std::vector<ArrayPtr> cols = Divisions<int32_t>(kRows, 500, 0);
  const ir::ExprPtr expr = Bind("a / b", "a:i32?, b:i32?");
  ASSERT_OK_AND_ASSIGN(ArrayPtr expected, ir::EvaluateReference(*expr, cols, kRows));
  auto engine = NewEngine();
  for (int i = 0; i < 4; ++i) {
    EvalReport report;
    ASSERT_OK_AND_ASSIGN(ArrayPtr out, engine->Evaluate(expr, cols, kRows, {ir::Policy::kDenseRetry}, &report));
    EXPECT_EQ(Ran(report), "dense-retry+retried") << i;
    EXPECT_EQ(report.compiled, i == 0) << i;
    EXPECT_EQ(out->ToString(), expected->ToString()) << i;
  }
  EXPECT_EQ(engine->cache_stats().compiles, 1);
}

// Few valid rows: the calls a retry makes owe valid-only runs run filter-and-scatter, whose
// kernel is the dense one (over the compacted valid rows), so the whole loop compiles one kernel.
TEST(RetryPressure, AtLowSurvivalValidOnlyRunsReuseTheDenseKernel) {
  constexpr int64_t kRows = 4096;
  const std::vector<ArrayPtr> cols = Divisions<int32_t>(kRows, 10, 0);  // 1% valid
  const ir::ExprPtr expr = Bind("a / b", "a:i32?, b:i32?");
  ASSERT_OK_AND_ASSIGN(ArrayPtr expected, ir::EvaluateReference(*expr, cols, kRows));
  auto engine = NewEngine();
  std::vector<std::string> ran;
  for (int i = 0; i < 6; ++i) {
    EvalReport report;
    ASSERT_OK_AND_ASSIGN(ArrayPtr out, engine->Evaluate(expr, cols, kRows, {}, &report));
    EXPECT_EQ(out->ToString(), expected->ToString()) << i;
    ran.push_back(Ran(report));
  }
  EXPECT_EQ(engine->cache_stats().compiles, 1);
  EXPECT_EQ(ran, (std::vector<std::string>{"dense-retry+retried", "filter-scatter", "filter-scatter",
                                           "filter-scatter", "filter-scatter", "dense-retry+retried"}));
}

// An expression's strategy is the same whatever unrelated expression retried before it in the
// engine, even one that shares its slot: `a / b` runs dense with retry on its first call, as in a
// fresh engine, and does not spend the other's valid-only batches.
TEST(RetryPressure, StrategyDoesNotDependOnAnUnrelatedExpressionsRetries) {
  constexpr int64_t kRows = 4096;
  const std::string schema = "a:i32?, b:i32?";
  const ir::ExprPtr div = Bind("a / b", schema);
  const ir::ExprPtr other = SameSlotAs(div, schema);
  ASSERT_NE(other, nullptr);
  const std::vector<ArrayPtr> failing = Divisions<int32_t>(kRows, 500, 0);
  const std::vector<ArrayPtr> clean = Divisions<int32_t>(kRows, 500, 1);  // 1 / 1 behind nulls
  auto engine = NewEngine();
  EvalReport report;
  ASSERT_OK(engine->Evaluate(other, failing, kRows, {}, &report));
  EXPECT_EQ(Ran(report), "dense-retry+retried");
  for (int i = 0; i < 2; ++i) {
    ASSERT_OK(engine->Evaluate(div, clean, kRows, {}, &report));
    EXPECT_EQ(Ran(report), "dense-retry") << i;
  }
  ASSERT_OK(engine->Evaluate(other, failing, kRows, {}, &report));
  EXPECT_EQ(Ran(report), "branch-skip");  // its own pressure, unspent by div's calls
}

}  // namespace
}  // namespace rowjit::jit
