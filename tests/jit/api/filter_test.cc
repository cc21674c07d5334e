// Filters to selections and evaluation under a selection (jit): fixed cases with hand-computed
// answers, then the JIT against the reference over random expressions, selections of every
// density (none, sparse, half, dense, all), lengths around 64, offsets, encodings, policies and
// tiers, with errors inside and outside the selection.
#include <gtest/gtest.h>

#include <random>

#include "ir/binder.h"
#include "ir/reference.h"
#include "jit/api/engine.h"
#include "runtime/builder.h"
#include "runtime/random.h"
#include "runtime/selection.h"
#include "support/random_data.h"

namespace rowjit::jit {
namespace {

std::unique_ptr<Engine> NewEngine() { return std::move(Engine::Make()).value(); }

std::string Rows(const Result<SelectionVector>& s) {
  if (!s.ok()) return "error " + s.error().ToString();
  std::string out = "[";
  for (int64_t i = 0; i < s->size(); ++i) out += (i ? ", " : "") + std::to_string((*s)[i]);
  return out + "]";
}

std::string Text(const Result<ArrayPtr>& r) { return r.ok() ? (*r)->ToString() : "error " + r.error().ToString(); }

SelectionVector Pick(std::vector<uint32_t> rows, int64_t length) {
  return SelectionVector::FromIndices(rows, length).value();
}

TEST(Filter, TrueRowsOnlyNullIsFalse) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32?, b:i32");
  const std::vector<ArrayPtr> cols = {*MakeArray<int32_t>({5, -1, std::nullopt, 3, 0, 8}),
                                      *MakeArray<int32_t>({1, 0, 2, 0, 4, 2}, false)};
  auto pred = [&](const char* t) { return *ir::ParseAndBind(t, schema); };
  EXPECT_EQ(Rows(engine->Filter(pred("a > 0"), cols, 6)), "[0, 3, 5]");
  EXPECT_EQ(Rows(engine->Filter(pred("a > 100"), cols, 6)), "[]");
  EXPECT_EQ(Rows(engine->Filter(pred("is_null(a) or a = 0"), cols, 6)), "[2, 4]");
  EXPECT_EQ(Rows(engine->Filter(pred("true"), cols, 6)), "[0, 1, 2, 3, 4, 5]");
  EXPECT_EQ(Rows(engine->Filter(pred("null:bool"), cols, 6)), "[]");
  // Under a selection: only its rows, and only they can fail.
  const SelectionVector sel = Pick({0, 2, 4, 5}, 6);
  EXPECT_EQ(Rows(engine->Filter(pred("a > 0"), cols, 6, sel)), "[0, 5]");
  EXPECT_EQ(Rows(engine->Filter(pred("a / b > 0"), cols, 6, sel)), "[0, 5]");  // b is 0 in rows 1, 3
  EXPECT_EQ(Rows(engine->Filter(pred("a / b > 0"), cols, 6)),
            "error division by zero: div at row 1: division by zero");
  EXPECT_EQ(Rows(engine->Filter(pred("a / b > 0"), cols, 6, Pick({0, 3, 5}, 6))),
            "error division by zero: div at row 3: division by zero");
  // Not a bool: a type error; a selection of another batch: an input error.
  EXPECT_EQ(engine->Filter(pred("a + 1"), cols, 6).error().code(), ErrorCode::kTypeError);
  EXPECT_EQ(engine->Filter(pred("a > 0"), cols, 6, Pick({0}, 7)).error().code(), ErrorCode::kInvalidInput);
}

TEST(Filter, EvaluateUnderASelectionHasOneRowPerSelectedRow) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32?, b:i32");
  const std::vector<ArrayPtr> cols = {*MakeArray<int32_t>({5, -1, std::nullopt, 3, 0, 8}),
                                      *MakeArray<int32_t>({1, 0, 2, 0, 4, 2}, false)};
  auto expr = [&](const char* t) { return *ir::ParseAndBind(t, schema); };
  for (ir::Policy p : {ir::Policy::kAuto, ir::Policy::kBranchSkip, ir::Policy::kFilterScatter}) {
    const EvalOptions o{.policy = p};
    EXPECT_EQ(Text(engine->Evaluate(expr("a * 2 + b"), cols, 6, Pick({0, 2, 5}, 6), o)), "[11, null, 18]");
    EXPECT_EQ(Text(engine->Evaluate(expr("a / b"), cols, 6, Pick({0, 4, 5}, 6), o)), "[5, 0, 4]");
    // Dense (every row selected but one): the failing unselected row does not count.
    EXPECT_EQ(Text(engine->Evaluate(expr("a / b"), cols, 6, Pick({0, 2, 4, 5}, 6), o)), "[5, null, 0, 4]");
    EXPECT_EQ(Text(engine->Evaluate(expr("a / b"), cols, 6, Pick({0, 1, 2, 4, 5}, 6), o)),
              "error division by zero: div at row 1: division by zero");
    EXPECT_EQ(Text(engine->Evaluate(expr("a / b"), cols, 6, Pick({}, 6), o)), "[]");
  }
}

// Bad input is an error whatever fraction is selected (the gathered way reads only the selected
// rows, but the whole batch is checked either way): a column bound non-nullable holding a null.
TEST(Filter, BadInputFailsAtEverySelectedFraction) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32");
  std::vector<std::optional<int32_t>> rows(100, 1);
  rows[99] = std::nullopt;
  const std::vector<ArrayPtr> cols = {*MakeArray<int32_t>(rows)};
  auto expr = *ir::ParseAndBind("a + 1", schema);
  for (uint32_t n : {1u, 5u, 50u, 90u}) {
    std::vector<uint32_t> picked;
    for (uint32_t i = 0; i < n; ++i) picked.push_back(i);
    auto out = engine->Evaluate(expr, cols, 100, Pick(picked, 100));
    ASSERT_FALSE(out.ok()) << n << " selected";
    EXPECT_EQ(out.error().code(), ErrorCode::kInvalidInput) << out.error().ToString();
  }
}

// A random selection of `length` rows at one of six densities (`kind` 0-5), from none to all.
SelectionVector RandomSelection(int64_t length, int kind, std::mt19937_64& rng) {
  const double p[] = {0.0, 0.01, 0.1, 0.5, 0.9, 1.0};
  std::bernoulli_distribution keep(p[kind]);
  std::vector<uint32_t> rows;
  for (int64_t i = 0; i < length; ++i) {
    if (keep(rng)) rows.push_back(static_cast<uint32_t>(i));
  }
  return Pick(rows, length);
}

// The reference under a selection: the reference over the taken rows, an error at its batch row.
Result<ArrayPtr> ReferenceUnder(const ir::Expr& e, const std::vector<ArrayPtr>& cols, const SelectionVector& s) {
  std::vector<ArrayPtr> taken(cols.size());
  for (size_t c = 0; c < cols.size(); ++c) {
    if (cols[c] != nullptr) taken[c] = *Take(*cols[c], s);
  }
  auto r = ir::EvaluateReference(e, taken, s.size());
  if (!r.ok() && r.error().row()) {
    Error err = std::move(r).TakeError();
    std::string f = err.function();
    const int64_t row = s[*err.row()];
    return std::move(err).WithRow(std::move(f), row);
  }
  return r;
}

TEST(Filter, SelectionsAgainstReference) {
  auto engine = NewEngine();
  const Schema schema = testing::WideSchema();
  int compared = 0, errors = 0, filters = 0;
  const ir::Policy policies[] = {ir::Policy::kAuto, ir::Policy::kDense, ir::Policy::kDenseRetry,
                                 ir::Policy::kBranchSkip, ir::Policy::kFilterScatter};
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    std::mt19937_64 rng(seed);
    const bool predicate = seed % 2 == 0;
    const TypeId want = predicate ? TypeId::kBool : kAllTypeIds[rng() % std::size(kAllTypeIds)];
    auto expr = ir::ParseAndBind(testing::RandomExpression(want, schema, 1 + static_cast<int>(rng() % 4), rng), schema);
    ASSERT_TRUE(expr.ok()) << "seed " << seed;
    for (int k = 0; k < 6; ++k) {
      const int64_t length = std::vector<int64_t>{0, 1, 63, 64, 65, 1000}[rng() % 6];
      const int64_t offset = rng() % 3 == 0 ? 3 : 0;
      std::vector<ArrayPtr> cols(schema.fields.size());
      for (int c : ir::ReferencedColumns(**expr)) {
        const DataType t = schema.fields[static_cast<size_t>(c)].type;
        cols[static_cast<size_t>(c)] = RandomFlatArray(
            {t, length, k % 3 == 0 ? 1.0 : 0.7, offset, NullLayout::kScattered, rng() % 2 ? ValueMode::kModerate : ValueMode::kMixed},
            rng);
        if (rng() % 5 == 0) {
          ArrayPtr& a = cols[static_cast<size_t>(c)];
          a = t.id == TypeId::kBool ? AsByteBool(a) : AsDictionary(a, rng);
        }
      }
      const SelectionVector sel = RandomSelection(length, static_cast<int>(rng() % 6), rng);
      const EvalOptions o{.policy = policies[rng() % std::size(policies)],
                          .tier = rng() % 3 == 0 ? std::optional<Tier>(Tier::kFast) : std::nullopt};
      const std::string where = fmt::format("seed {} case {}: {} length {} selected {} policy {}", seed, k,
                                            (*expr)->ToString(), length, sel.size(), ir::PolicyName(o.policy));
      const Result<ArrayPtr> ref = ReferenceUnder(**expr, cols, sel);
      ASSERT_EQ(Text(engine->Evaluate(*expr, cols, length, sel, o)), Text(ref)) << where;
      ++compared;
      errors += !ref.ok();
      if (!predicate) continue;
      // The filter: the selected rows where the reference is true.
      std::string want_rows = ref.ok() ? "[" : "error " + ref.error().ToString();
      if (ref.ok()) {
        int64_t n = 0;
        for (int64_t i = 0; i < sel.size(); ++i) {
          const Scalar v = (*ref)->GetScalar(i);
          if (!v.is_null() && v.value<bool>()) want_rows += (n++ ? ", " : "") + std::to_string(sel[i]);
        }
        want_rows += "]";
      }
      ASSERT_EQ(Rows(engine->Filter(*expr, cols, length, sel, o)), want_rows) << where;
      if (sel.size() == length) {
        ASSERT_EQ(Rows(engine->Filter(*expr, cols, length, o)), want_rows) << where;
      }
      ++filters;
    }
  }
  EXPECT_EQ(compared, 900);
  EXPECT_GT(errors, 20);   // errors inside the selection occur ...
  EXPECT_GT(filters, 400);
}

}  // namespace
}  // namespace rowjit::jit
