// Hostile input to the Engine: limits, memory refused before allocation, huge expressions run in
// stages with results and errors equal to the reference (jit).
#include <gtest/gtest.h>

#include <random>

#include "ir/aggregate.h"
#include "ir/binder.h"
#include "ir/reference.h"
#include "jit/engine.h"
#include "runtime/builder.h"
#include "runtime/random.h"
#include "support/assert_ok.h"
#include "support/sanitized.h"
#include "support/random_data.h"

namespace rowjit::jit {
namespace {

std::unique_ptr<Engine> NewEngine(EngineOptions options = {}) {
  return std::move(Engine::Make(options)).value();  // aborts with the error's text on failure
}

// `terms` terms a * b + c - a * ... over three columns: one long chain.
// Long enough to need many stages; shorter under a sanitizer, where each stage's compile is slow.
constexpr int kLongTerms = testing::kSanitized ? 800 : 3'000;

std::string LongSum(int terms) {
  std::string out = "a";
  const char* ops[] = {" + b * ", " - c * ", " + a - "};
  for (int i = 1; i < terms; ++i) out += std::string(ops[i % 3]) + (i % 2 ? "c" : "b");
  return out;
}

TEST(Hostile, MemoryPastTheLimitIsRefusedBeforeAllocating) {
  auto engine = NewEngine(EngineOptions{.max_evaluation_bytes = 1 << 20});
  const Schema schema = *ParseSchema("a:i64, b:i64");
  ASSERT_OK_AND_ASSIGN(RecordBatch batch, RandomBatch(schema, 100'000, 1.0, 1));
  ASSERT_OK_AND_ASSIGN(ir::ExprPtr expr, ir::ParseAndBind("wrapping_add(a, b)", schema));
  auto out = engine->Evaluate(expr, batch);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().code(), ErrorCode::kOutOfMemory);
  EXPECT_NE(out.error().message().find("max_evaluation_bytes"), std::string::npos);
  ASSERT_OK_AND_ASSIGN(RecordBatch small, RandomBatch(schema, 1000, 1.0, 1));
  ASSERT_OK(engine->Evaluate(expr, small));
}

TEST(Hostile, EngineLimitsHoldForExpressionsBoundElsewhere) {
  auto engine = NewEngine(EngineOptions{.limits = {.max_depth = 8}});
  const Schema schema = *ParseSchema("a:i32");
  ASSERT_OK_AND_ASSIGN(ir::ExprPtr deep, ir::ParseAndBind("-(-(-(-(-(-(-(-(-(a)))))))))", schema));
  ASSERT_OK_AND_ASSIGN(RecordBatch batch, RandomBatch(schema, 10, 1.0, 1));
  auto out = engine->Evaluate(deep, batch);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().code(), ErrorCode::kInvalidInput);
  EXPECT_NE(out.error().message().find("Limits::max_depth"), std::string::npos);
}

// 3,000 terms run in stages of at most max_kernel_nodes nodes; values equal the reference (over
// integers that overflow, so does the error and its row).
TEST(Hostile, LongExpressionsRunInStages) {
  auto engine = NewEngine({.compile = EngineOptions::Compile::kSynchronous});  // counts compiles
  const Schema ints = *ParseSchema("a:i64?, b:i64, c:i64");
  ASSERT_OK_AND_ASSIGN(ir::ExprPtr checked, ir::ParseAndBind(LongSum(kLongTerms), ints));
  ASSERT_OK_AND_ASSIGN(RecordBatch int_batch, RandomBatch(ints, 2'000, 0.9, 7));
  auto failed = engine->Evaluate(checked, int_batch);
  auto failed_ref = ir::EvaluateReference(*checked, int_batch.columns, int_batch.length);
  ASSERT_EQ(failed.ok(), failed_ref.ok());
  if (!failed.ok()) {
    EXPECT_EQ(failed.error(), failed_ref.error());
  }

  const Schema schema = *ParseSchema("a:f64?, b:f64, c:f64");
  ASSERT_OK_AND_ASSIGN(ir::ExprPtr expr, ir::ParseAndBind(LongSum(kLongTerms), schema));
  ASSERT_OK_AND_ASSIGN(RecordBatch batch, RandomBatch(schema, 2'000, 0.9, 7));
  EvalReport report;
  auto out = engine->Evaluate(expr, batch, {}, &report);
  auto ref = ir::EvaluateReference(*expr, batch.columns, batch.length);
  ASSERT_TRUE(out.ok()) << out.error().ToString();
  ASSERT_TRUE(ref.ok()) << ref.error().ToString();
  EXPECT_EQ(report.strategy, Strategy::kStaged);
  EXPECT_TRUE(report.compiled);
  EXPECT_EQ(FirstDifference(**out, **ref), -1);
  EXPECT_GE(engine->cache_stats().compiles, kLongTerms * 3 / kDefaultMaxKernelNodes);
}

// Random expressions cut into tiny stages: values, nulls and first-failing-row errors equal the
// reference, also where a stage fails behind a null of a column only the whole expression reads.
TEST(Hostile, StagedEvaluationMatchesReference) {
  auto engine = NewEngine(EngineOptions{.max_kernel_nodes = 4});
  Schema schema;
  for (TypeId id : {TypeId::kI8, TypeId::kI32, TypeId::kI64, TypeId::kU16, TypeId::kF64, TypeId::kBool}) {
    schema.fields.push_back(Field{"n_" + std::string(TypeIdName(id)), DataType(id, true)});
    schema.fields.push_back(Field{"c_" + std::string(TypeIdName(id)), DataType(id, false)});
  }
  int staged = 0, errors = 0;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    std::mt19937_64 rng(seed);
    const TypeId want = std::vector<TypeId>{TypeId::kI32, TypeId::kI64, TypeId::kBool, TypeId::kF64}[rng() % 4];
    const std::string text = testing::RandomExpression(want, schema, 4, rng);
    ASSERT_OK_AND_ASSIGN(ir::ExprPtr expr, ir::ParseAndBind(text, schema));
    ASSERT_OK_AND_ASSIGN(RecordBatch batch, RandomBatch(schema, 1 + static_cast<int64_t>(rng() % 300),
                                                        rng() % 2 ? 0.5 : 0.95, seed));
    EvalReport report;
    auto out = engine->Evaluate(expr, batch, {}, &report);
    auto ref = ir::EvaluateReference(*expr, batch.columns, batch.length);
    staged += report.strategy == Strategy::kStaged;
    errors += !ref.ok();
    ASSERT_EQ(out.ok(), ref.ok()) << "seed " << seed << ": " << text << "\n  jit "
                                  << (out.ok() ? "ok" : out.error().ToString()) << "\n  reference "
                                  << (ref.ok() ? "ok" : ref.error().ToString());
    if (!out.ok()) {
      EXPECT_EQ(out.error(), ref.error()) << "seed " << seed << ": " << text;
    } else {
      EXPECT_EQ(FirstDifference(**out, **ref), -1) << "seed " << seed << ": " << text;
    }
  }
  EXPECT_GE(staged, 50);
  EXPECT_GE(errors, 5);
}

TEST(Hostile, LongAggregatesRunInStages) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:f64?, b:f64, c:f64");
  ASSERT_OK_AND_ASSIGN(ir::Aggregate agg, ir::ParseAndBindAggregate("sum(" + LongSum(kLongTerms / 3) + ")", schema));
  ASSERT_OK_AND_ASSIGN(RecordBatch batch, RandomBatch(schema, 5'000, 0.8, 3));
  EvalReport report;
  auto got = engine->Aggregate(agg, batch.columns, batch.length, &report);
  auto want = ir::EvaluateAggregateReference(agg, batch.columns, batch.length);
  ASSERT_TRUE(got.ok()) << got.error().ToString();
  ASSERT_TRUE(want.ok()) << want.error().ToString();
  EXPECT_EQ(*got, *want);
  EXPECT_EQ(report.strategy, Strategy::kStaged);  // the argument ran in stages, then its column folded
}

}  // namespace
}  // namespace rowjit::jit
