// Logical types (decimals, dates, times, timestamps, durations) through the JIT against the
// reference evaluator: comparisons, if/coalesce/between/is_null and folds over their storage, the
// logical type kept on results, every policy and tier, constants, slices; and the binder's
// refusals where a rule does not exist yet (jit).
#include <gtest/gtest.h>

#include <random>

#include "ir/aggregate.h"
#include "ir/binder.h"
#include "ir/reference.h"
#include "jit/api/engine.h"
#include "runtime/builder.h"
#include "runtime/random.h"
#include "support/assert_ok.h"
#include "support/refusals.h"

namespace rowjit::jit {
namespace {

constexpr const char* kTypes[] = {
    "decimal32(9,2)", "decimal64(18,4)", "decimal64(12,2)", "date32",        "date64",
    "time32(s)",      "time32(ms)",      "time64(us)",      "time64(ns)",    "timestamp(s)",
    "timestamp(ms)",  "timestamp(us)",   "timestamp(ns)",   "timestamp(us, UTC)",
    "timestamp(ns, Europe/Paris)",       "duration(s)",     "duration(ns)",
};

// A column of `type` whose rows repeat `like`'s rows three times in ten (so equality holds
// often), sliced from `offset`.
ArrayPtr LogicalColumn(DataType type, int64_t length, double valid, const ArrayPtr& like, std::mt19937_64& rng) {
  const int64_t offset = std::vector<int64_t>{0, 3, 64}[rng() % 3];
  std::vector<Scalar> rows;
  for (int64_t i = 0; i < offset + length; ++i) {
    if (std::uniform_real_distribution<double>(0, 1)(rng) >= valid) {
      rows.push_back(Scalar::Null(type.id));
    } else if (like != nullptr && i >= offset && rng() % 10 < 3) {
      rows.push_back(like->GetScalar(i - offset));
    } else {
      rows.push_back(RandomLogicalValue(type, rng));
    }
  }
  auto full = MakeArray(type.WithNullable(true), rows);
  EXPECT_TRUE(full.ok()) << full.error().ToString();
  return *(*full)->Slice(offset, length);
}

TEST(Logical, KernelsEqualTheReference) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  const ir::Policy kPolicies[] = {ir::Policy::kAuto, ir::Policy::kDense, ir::Policy::kDenseRetry,
                                  ir::Policy::kBranchSkip, ir::Policy::kFilterScatter};
  const char* const kExprs[] = {"x = y", "x != y", "x < y", "x <= y", "x > y", "x >= y", "between(x, y, z)",
                                "if(x < y, x, y)", "coalesce(x, y, z)", "is_null(x)", "is_not_null(y)",
                                "if(is_null(x), y, x) = z", "x = y and y < z or x > z", "if(x < y, null, z)",
                                "coalesce(x, null, z)"};
  int compared = 0;
  for (uint64_t seed = 0; seed < 3 * std::size(kTypes); ++seed) {
    std::mt19937_64 rng(seed);
    const DataType type = *ParseDataType(kTypes[seed % std::size(kTypes)]);
    const int64_t length = std::vector<int64_t>{0, 1, 63, 64, 65, 1000}[seed % 6];
    const double valid = std::vector<double>{0.8, 1.0, 0.0, 0.5}[seed % 4];
    const ArrayPtr x = LogicalColumn(type, length, valid, nullptr, rng);
    const ArrayPtr y = LogicalColumn(type, length, 0.9, x, rng);
    ArrayPtr z = LogicalColumn(type, length, 1.0, y, rng);
    if (seed % 5 == 4) z = *ConstantArray::Make(RandomLogicalValue(type, rng), length, true);
    const Schema schema{{{"x", type.WithNullable(true)}, {"y", type.WithNullable(true)}, {"z", z->type()}}};
    const std::vector<ArrayPtr> cols = {x, y, z};
    for (const char* text : kExprs) {
      SCOPED_TRACE(fmt::format("seed {} {} rows {}: {}", seed, type.ToString(), length, text));
      ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind(text, schema));
      ASSERT_OK_AND_ASSIGN(ArrayPtr want, ir::EvaluateReference(*e, cols, length));
      const ir::Policy policy = kPolicies[rng() % std::size(kPolicies)];
      const Tier tier = rng() % 3 == 0 ? Tier::kFast : Tier::kOptimized;
      ASSERT_OK_AND_ASSIGN(ArrayPtr got, engine->Evaluate(e, cols, length, {.policy = policy, .tier = tier}));
      ASSERT_EQ(got->type().ToString(), want->type().ToString());
      ASSERT_EQ(got->type().SameType(type), e->type().SameType(type));  // if/coalesce keep the logical type
      const int64_t diff = FirstDifference(*got, *want);
      ASSERT_EQ(diff, -1) << "policy " << ir::PolicyName(policy) << " row " << diff << ": got "
                          << got->GetScalar(diff).ToString() << ", want " << want->GetScalar(diff).ToString();
      ++compared;
    }
    for (const char* text : {"min(x)", "max(y)", "min_max(x)", "count(x)", "sum(x)", "min(if(x < y, x, y))"}) {
      SCOPED_TRACE(fmt::format("seed {} {} rows {}: {}", seed, type.ToString(), length, text));
      auto agg = ir::ParseAndBindAggregate(text, schema);
      const bool summed = type.logical == LogicalKind::kDecimal || type.logical == LogicalKind::kDuration;
      if (std::string_view(text) == "sum(x)" && !summed) {
        ASSERT_FALSE(agg.ok());
        EXPECT_EQ(agg.error().code(), ErrorCode::kTypeError);
        continue;
      }
      ASSERT_TRUE(agg.ok()) << agg.error().ToString();
      const auto want = ir::EvaluateAggregateReference(*agg, cols, length);
      const auto got = engine->Aggregate(*agg, cols, length);
      ASSERT_EQ(got.ok(), want.ok()) << (want.ok() ? got.error().ToString() : want.error().ToString());
      if (!want.ok()) {  // a duration's sum past i64
        EXPECT_EQ(got.error().ToString(), want.error().ToString());
        continue;
      }
      EXPECT_EQ(got->ToString(agg->kind), want->ToString(agg->kind));
      EXPECT_EQ(got->value.type().ToString(), agg->result.WithNullable(got->value.is_null()).ToString());
      ++compared;
    }
  }
  EXPECT_GT(compared, 900);
}

TEST(Logical, DecimalSumsAreExactAtTheLimits) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  const DataType d = *ParseDataType("decimal64(18,2)");
  const Schema schema{{{"x", d.WithNullable(true)}}};
  auto agg = *ir::ParseAndBindAggregate("sum(x)", schema);
  EXPECT_EQ(agg.result.ToString(), "decimal(38,2)?");
  // 999 rows (one of 1,000 null) of the largest decimal(18,2): 999 * (10^18 - 1) hundredths, far past i64.
  const int64_t max = 999'999'999'999'999'999;
  std::vector<Scalar> rows(1000, Scalar::Of<int64_t>(max).As(d));
  rows[17] = Scalar::Null(TypeId::kI64);
  std::vector<ArrayPtr> cols = {*MakeArray(d.WithNullable(true), rows)};
  ASSERT_OK_AND_ASSIGN(ir::AggregateResult got, engine->Aggregate(agg, cols, 1000));
  EXPECT_EQ(got.value.ToString(), "9989999999999999990.01:decimal(38,2)");
  EXPECT_EQ(ir::EvaluateAggregateReference(agg, cols, 1000)->value.ToString(), got.value.ToString());
  ASSERT_OK_AND_ASSIGN(ir::AggregateResult m, engine->Aggregate(*ir::ParseAndBindAggregate("min(x)", schema), cols, 1000));
  EXPECT_EQ(m.value.ToString(), "9999999999999999.99:decimal64(18,2)");
}

TEST(Logical, BinderRefusesWhatHasNoRuleYet) {
  const Schema schema = *ParseSchema(
      "d:date32?, e:date32, t:timestamp(us), u:timestamp(us, UTC), p:timestamp(us, Asia/Kolkata), "
      "q:timestamp(ms, UTC), m:decimal64(12,2), n:decimal64(12,3), w:decimal(30,2), i:interval_months, k:i64");
  const test::Refusal refused[] = {
      {"d + e", ErrorCode::kTypeError, "add does not take date32"},
      {"m % m", ErrorCode::kTypeError, "mod does not take decimal64(12,2)"},
      {"d = 5", ErrorCode::kTypeError, "share one logical type"},
      {"t = k", ErrorCode::kTypeError, "share one logical type"},
      {"d < t", ErrorCode::kTypeError, "share one logical type"},
      {"t = u", ErrorCode::kTypeError, "share one logical type"},   // local time against an instant
      {"u = q", ErrorCode::kTypeError, "share one logical type"},   // units differ
      {"m = d", ErrorCode::kTypeError, "date32 is not a decimal operand"},
      {"w % w", ErrorCode::kTypeError, "mod does not take decimal(30,2)"},
      {"abs(i)", ErrorCode::kTypeError, "abs does not take interval_months"},
      {"cast(d, i64)", ErrorCode::kTypeError, "cast does not take date32"},
      {"if(u = p, u, p)", ErrorCode::kTypeError, "share one logical type"},  // whose zone would it be?
  };
  test::ExpectRefused(schema, refused);
  // Instants compare across zones; nullness reads any type; equal types pass through.
  for (const char* ok : {"u = p", "u < p", "is_null(w)", "is_not_null(i)", "d = e", "coalesce(d, e)", "w = w", "i = i"}) {
    EXPECT_TRUE(ir::ParseAndBind(ok, schema).ok()) << ok;
  }
  EXPECT_EQ((*ir::ParseAndBind("coalesce(d, e)", schema))->type().ToString(), "date32");
  EXPECT_EQ((*ir::ParseAndBind("if(d < e, d, e)", schema))->type().ToString(), "date32?");
  EXPECT_EQ((*ir::ParseAndBind("if(d < e, d, null)", schema))->type().ToString(), "date32?");  // a null joins
  EXPECT_EQ((*ir::ParseAndBind("coalesce(null, e)", schema))->type().ToString(), "date32");
  for (const char* agg : {"sum(d)", "sum(t)", "sum(m < m)"}) {
    EXPECT_FALSE(ir::ParseAndBindAggregate(agg, schema).ok()) << agg;
  }
  EXPECT_EQ(ir::ParseAndBindAggregate("min(i)", schema)->result.ToString(), "interval_months?");
  EXPECT_EQ(ir::ParseAndBindAggregate("sum(i)", schema)->result.ToString(), "interval_month_day_nano?");
  EXPECT_EQ(ir::ParseAndBindAggregate("count(w)", schema)->result.ToString(), "i64");
  EXPECT_EQ(ir::ParseAndBindAggregate("sum(w)", schema)->result.ToString(), "decimal(38,2)?");  // 128-bit decimals fold
  EXPECT_EQ(ir::ParseAndBindAggregate("max(w)", schema)->result.ToString(), "decimal(30,2)?");
}

TEST(Logical, NullnessAndCountOverSixteenByteStorage) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  for (const char* type_text : {"decimal(38,10)", "interval_month_day_nano"}) {
    const DataType type = *ParseDataType(type_text);
    std::mt19937_64 rng(7);
    for (int64_t length : {0, 5, 64, 130}) {
      const ArrayPtr w = LogicalColumn(type, length, 0.6, nullptr, rng);
      const Schema schema{{{"w", type.WithNullable(true)}}};
      const std::vector<ArrayPtr> cols = {w};
      for (const char* text : {"is_null(w)", "is_not_null(w)"}) {
        ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind(text, schema));
        ASSERT_OK_AND_ASSIGN(ArrayPtr want, ir::EvaluateReference(*e, cols, length));
        ASSERT_OK_AND_ASSIGN(ArrayPtr got, engine->Evaluate(e, cols, length));
        EXPECT_EQ(FirstDifference(*got, *want), -1) << type_text << " " << text << " rows " << length;
      }
      auto count = ir::ParseAndBindAggregate("count(w)", schema);
      ASSERT_TRUE(count.ok());
      ASSERT_OK_AND_ASSIGN(ir::AggregateResult got, engine->Aggregate(*count, cols, length));
      EXPECT_EQ(got.value.value<int64_t>(), length - w->NullCount()) << type_text;
    }
  }
}

}  // namespace
}  // namespace rowjit::jit
