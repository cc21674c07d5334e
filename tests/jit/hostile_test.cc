// Hostile input to the Engine: limits, memory refused before allocation, huge expressions run in
// stages with results and errors equal to the reference (jit).
#include <gtest/gtest.h>

#include <random>

#include "ir/aggregate.h"
#include "ir/binder.h"
#include "ir/reference.h"
#include "jit/api/engine.h"
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

// `expr` evaluated in stages, with the reference's values and the expression's type.
EvalReport ExpectStagedAsReference(Engine& engine, const ir::ExprPtr& expr, const RecordBatch& batch) {
  EvalReport report;
  auto out = engine.Evaluate(expr, batch, {}, &report);
  auto ref = ir::EvaluateReference(*expr, batch.columns, batch.length);
  EXPECT_TRUE(out.ok() && ref.ok()) << (out.ok() ? "" : out.error().ToString()) << (ref.ok() ? "" : ref.error().ToString());
  if (!out.ok() || !ref.ok()) return report;
  EXPECT_EQ(report.route, Route::kStaged);
  EXPECT_EQ((*out)->type().ToString(), expr->type().ToString());
  EXPECT_EQ(FirstDifference(**out, **ref), -1);
  return report;
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
  const EvalReport report = ExpectStagedAsReference(*engine, expr, batch);
  EXPECT_TRUE(report.compiled);
  EXPECT_GE(engine->cache_stats().compiles, kLongTerms * 3 / kDefaultMaxKernelNodes);
}

// A variadic call of more arguments than a kernel holds (coalesce of hundreds of columns) runs
// in stages of grouped arguments (a stage that could not shrink it would recurse until the stack
// overflows); in a fold too, and with the smallest kernel limit. A limit below one call's nodes
// is refused.
TEST(Hostile, WideVariadicCallsRunInStages) {
  const Schema schema = *ParseSchema("a:i32?, b:i32?, c:i32");
  ASSERT_OK_AND_ASSIGN(RecordBatch batch, RandomBatch(schema, 300, 0.3, 5));
  for (int64_t limit : {kDefaultMaxKernelNodes, kMinKernelNodes}) {
    auto engine = NewEngine({.max_kernel_nodes = limit, .compile = EngineOptions::Compile::kSynchronous});
    for (int n : {200, 1000}) {
      std::string text = n == 200 ? "greatest(" : "coalesce(";
      for (int i = 0; i < n; ++i) text += i % 2 ? "b, " : "a, ";
      text += "c)";
      SCOPED_TRACE(fmt::format("limit {}, {} arguments", limit, n + 1));
      ASSERT_OK_AND_ASSIGN(ir::ExprPtr expr, ir::ParseAndBind(text, schema));
      ExpectStagedAsReference(*engine, expr, batch);
      ASSERT_OK_AND_ASSIGN(ir::Aggregate agg, ir::ParseAndBindAggregate("sum(" + text + ")", schema));
      auto fold = engine->Aggregate(agg, batch.columns, batch.length);
      auto fold_ref = ir::EvaluateAggregateReference(agg, batch.columns, batch.length);
      ASSERT_TRUE(fold.ok() && fold_ref.ok());
      EXPECT_TRUE(*fold == *fold_ref);
    }
  }
  auto refused = Engine::Make({.max_kernel_nodes = kMinKernelNodes - 1});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code(), ErrorCode::kInvalidInput);
}

// A null computed for a constant batch keeps the expression's logical type: the reference's null
// of a strict call over a null, typed by its storage, would give a broadcast constant that type
// (i64 for a decimal), which a later stage refuses.
TEST(Hostile, NullConstantsKeepTheirLogicalType) {
  auto engine = NewEngine({.max_kernel_nodes = kMinKernelNodes});
  const Schema schema = *ParseSchema("d:decimal64(12,2)?, t:timestamp(us, UTC)?");
  ASSERT_OK_AND_ASSIGN(ArrayPtr d, ConstantArray::Make(Scalar::Null(TypeId::kI64).As(schema.fields[0].type), 64, true));
  ASSERT_OK_AND_ASSIGN(ArrayPtr t, ConstantArray::Make(Scalar::Null(TypeId::kI64).As(schema.fields[1].type), 64, true));
  const std::vector<ArrayPtr> cols = {d, t};
  for (const char* text : {"-(if(d < d, d, d))", "cast(coalesce(d, d), decimal(20,4))", "if(t < t, t, t)",
                           "-(if(d < d, d, d)) + (-(if(d < d, d, d)) * (d - d)) + cast(coalesce(d, d), decimal64(12,2))"}) {
    ASSERT_OK_AND_ASSIGN(ir::ExprPtr expr, ir::ParseAndBind(text, schema));
    auto out = engine->Evaluate(expr, cols, 64);
    ASSERT_TRUE(out.ok()) << text << ": " << out.error().ToString();
    EXPECT_EQ((*out)->type().ToString(), expr->type().ToString()) << text;
    EXPECT_EQ((*out)->NullCount(), 64) << text;
  }
}

// Random expressions cut into tiny stages: values, nulls and first-failing-row errors equal the
// reference, also where a stage fails behind a null of a column only the whole expression reads.
TEST(Hostile, StagedEvaluationMatchesReference) {
  auto engine = NewEngine(EngineOptions{.max_kernel_nodes = 5});
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
    staged += report.route == Route::kStaged;
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
  EXPECT_EQ(report.route, Route::kFoldStaged);  // the argument ran in stages, then its column folded
}

}  // namespace
}  // namespace rowjit::jit
