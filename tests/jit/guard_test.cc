// Guarded evaluation (SQL semantics, ir/reference.h): an error inside `if`, `coalesce`, `and`
// and `or` counts only in rows where its argument is taken. Fixed cases with hand-computed
// answers, then the JIT against the reference over data where the guards hide errors in some
// rows and not in others, for every integer type, every policy and tier, offsets, lengths around
// 64, nullable and not, in row kernels and folds (jit).
#include <gtest/gtest.h>

#include <random>

#include "ir/aggregate.h"
#include "ir/binder.h"
#include "ir/reference.h"
#include "jit/api/engine.h"
#include "runtime/builder.h"

namespace rowjit::jit {
namespace {

std::unique_ptr<Engine> NewEngine() { return std::move(Engine::Make()).value(); }

ArrayPtr I32s(const std::vector<std::optional<int32_t>>& rows) { return *MakeArray<int32_t>(rows); }

std::string Text(const Result<ArrayPtr>& r) { return r.ok() ? (*r)->ToString() : "error " + r.error().ToString(); }

// Evaluated by the JIT (optimized and fast tier, every policy) and the reference: all the same.
std::string Agreed(Engine& engine, const char* text, const Schema& schema, const std::vector<ArrayPtr>& cols) {
  auto expr = ir::ParseAndBind(text, schema);
  EXPECT_TRUE(expr.ok()) << text;
  const int64_t n = cols[0]->length();
  const std::string ref = Text(ir::EvaluateReference(**expr, cols, n));
  for (ir::Policy p : {ir::Policy::kAuto, ir::Policy::kDense, ir::Policy::kBranchSkip, ir::Policy::kFilterScatter}) {
    for (Tier t : {Tier::kOptimized, Tier::kFast}) {
      EXPECT_EQ(Text(engine.Evaluate(*expr, cols, n, EvalOptions{.policy = p, .tier = t})), ref)
          << text << " policy " << ir::PolicyName(p) << " tier " << TierName(t);
    }
  }
  return ref;
}

TEST(Guards, SqlCaseWhenNeverFailsWhereTheBranchIsNotTaken) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32?, b:i32?, c:i32?");
  const std::vector<ArrayPtr> cols = {I32s({10, 7, -9, 5, std::nullopt}), I32s({2, 0, 3, 0, 0}),
                                      I32s({1, std::nullopt, 0, 4, 2})};
  // CASE WHEN b <> 0 THEN a / b ELSE 0 END: rows where b = 0 take the else branch.
  EXPECT_EQ(Agreed(*engine, "if(b != 0, a / b, 0)", schema, cols), "[5, 0, -3, 0, 0]");
  // Unguarded, the same division fails at the first zero.
  EXPECT_EQ(Agreed(*engine, "a / b", schema, cols), "error division by zero: div at row 1: division by zero");
  // A null condition takes the else branch.
  EXPECT_EQ(Agreed(*engine, "if(c > 1, a / b, 7)", schema, cols),
            "error division by zero: div at row 3: division by zero");
  EXPECT_EQ(Agreed(*engine, "if(c < 1, 7, a / b)", schema, cols),
            "error division by zero: div at row 3: division by zero");
  // coalesce: a later argument's errors only where every earlier one is null.
  EXPECT_EQ(Agreed(*engine, "coalesce(if(b > 2, a, null:i32), a / b)", schema, cols),
            "error division by zero: div at row 1: division by zero");
  // An error behind a null (a column the expression reads is null in the row) is not raised,
  // guard or not: row 1 has c null.
  EXPECT_EQ(Agreed(*engine, "coalesce(c, a / b)", schema, cols), "[1, null, 0, 4, 2]");
  EXPECT_EQ(Agreed(*engine, "coalesce(if(b != 0, a, null:i32), 0, a / b)", schema, cols), "[10, 0, -9, 0, 0]");
  // and / or: the right operand's errors only where the left does not decide.
  EXPECT_EQ(Agreed(*engine, "b = 0 or a / b > 1", schema, cols), "[true, true, false, true, true]");
  EXPECT_EQ(Agreed(*engine, "b != 0 and a / b > 1", schema, cols), "[true, false, false, false, false]");
  EXPECT_EQ(Agreed(*engine, "c > 0 and a / b > 1", schema, cols),
            "error division by zero: div at row 3: division by zero");
  // Nested: the inner guard holds inside the outer one; the outer else branch is unguarded.
  EXPECT_EQ(Agreed(*engine, "if(a > 0, if(b != 0, a / b, a), b / a)", schema, cols), "[5, 7, 0, 5, null]");
  EXPECT_EQ(Agreed(*engine, "if(a > 0, if(b != 0, a / b, a), a / b)", schema, cols), "[5, 7, -3, 5, null]");
  EXPECT_EQ(Agreed(*engine, "if(a > 0, a / b, 0)", schema, cols),
            "error division by zero: div at row 1: division by zero");
}

// Values with zeros and extremes, so that divisions and checked arithmetic fail in some rows.
ArrayPtr GuardColumn(TypeId t, int64_t length, double valid, std::mt19937_64& rng) {
  std::vector<Scalar> rows;
  std::bernoulli_distribution is_valid(valid);
  const int bits = BitWidth(t);
  for (int64_t i = 0; i < length; ++i) {
    if (!is_valid(rng)) {
      rows.push_back(Scalar::Null(t));
      continue;
    }
    const uint64_t pick = rng() % 8;
    uint64_t v = pick < 2 ? 0 : pick == 2 ? ~uint64_t{0} : pick == 3 ? (uint64_t{1} << (bits - 1)) : rng() % 50;
    if (bits < 64) v &= (uint64_t{1} << bits) - 1;
    rows.push_back(Scalar::FromBits(t, v));
  }
  return *MakeArray(DataType(t, true), rows);
}

constexpr const char* kGuarded[] = {
    "if(b != 0, a / b, 0)",
    "if(b = 0, c, a % b)",
    "coalesce(if(b != 0, a, null:T), a / b)",
    "coalesce(a, b / c, c / b)",
    "b = 0 or a / b > c",
    "b != 0 and a / b > c",
    "if(a > c, if(b != 0, a / b, a * c), b / a)",
    "if(b != 0, a / b, 0) + c",
    "if(is_null(b) or b = 0, a, a / b)",
    "between(a / b, c, a)",
    // SQL's forms, parsed into the calls above (ir/parser.cc).
    "a in (b, c, 1)",
    "a / b not in (c, 0)",
    "case when b = 0 then a else a / b end",
    "case a when b then c / a when c then 1 end",
    "nullif(a, b) + c",
    "a is distinct from b / c",
    "(a > b) is not true or a / b > 0",
    "a between b and c is null",
};

TEST(Guards, JitMatchesReferenceWhereGuardsHideSomeErrors) {
  auto engine = NewEngine();
  std::mt19937_64 rng(77);
  int cases = 0, errors = 0, clean = 0;
  const ir::Policy policies[] = {ir::Policy::kAuto, ir::Policy::kDense, ir::Policy::kDenseRetry,
                                 ir::Policy::kBranchSkip, ir::Policy::kFilterScatter};
  for (TypeId t : {TypeId::kI8, TypeId::kI16, TypeId::kI32, TypeId::kI64, TypeId::kU8, TypeId::kU32,
                   TypeId::kU64}) {
    const std::string type(TypeIdName(t));
    const Schema schema = *ParseSchema(fmt::format("a:{0}?, b:{0}?, c:{0}?", type));
    for (std::string text : kGuarded) {
      if (const size_t at = text.find(":T"); at != std::string::npos) text.replace(at + 1, 1, type);
      auto expr = ir::ParseAndBind(text, schema);
      ASSERT_TRUE(expr.ok()) << text << " " << type << ": " << expr.error().ToString();
      for (int k = 0; k < 12; ++k) {
        const uint64_t seed = rng();
        std::mt19937_64 data(seed);
        const int64_t length = std::vector<int64_t>{1, 63, 64, 65, 300}[data() % 5];
        const int64_t offset = data() % 2 ? 0 : 5;
        const double valid = k % 3 == 0 ? 1.0 : 0.7;
        std::vector<ArrayPtr> cols;
        for (int c = 0; c < 3; ++c) cols.push_back(*GuardColumn(t, length + offset, valid, data)->Slice(offset, length));
        const ir::Policy policy = policies[k % std::size(policies)];
        const Tier tier = k % 2 ? Tier::kFast : Tier::kOptimized;
        auto ref = ir::EvaluateReference(**expr, cols, length);
        auto jit = engine->Evaluate(*expr, cols, length, EvalOptions{.policy = policy, .tier = tier});
        ASSERT_EQ(Text(jit), Text(ref)) << text << " " << type << " length " << length << " offset " << offset
                                        << " policy " << ir::PolicyName(policy) << " seed " << seed;
        ++cases;
        (ref.ok() ? clean : errors) += 1;
        if (IsNumeric((*expr)->type().id)) {
          auto agg = ir::ParseAndBindAggregate("sum(" + text + ")", schema);
          ASSERT_TRUE(agg.ok()) << text;
          auto fold = engine->Aggregate(*agg, cols, length);
          auto fold_ref = ir::EvaluateAggregateReference(*agg, cols, length);
          ASSERT_EQ(fold.ok() ? fold->ToString(agg->kind) : fold.error().ToString(),
                    fold_ref.ok() ? fold_ref->ToString(agg->kind) : fold_ref.error().ToString())
              << "sum(" << text << ") " << type << " seed " << seed;
        }
      }
    }
  }
  // The data makes guards matter: some cases fail (unguarded or taken errors), most do not.
  EXPECT_GT(errors, cases / 10);
  EXPECT_GT(clean, cases / 3);
}

}  // namespace
}  // namespace rowjit::jit
