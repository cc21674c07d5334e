// Projections (jit): several expressions in one kernel pass, against the reference evaluated
// expression by expression — values, nulls, and the first failing row over all outputs with the
// output it names — over random expressions sharing subexpressions, every policy and tier,
// lengths around 64, offsets, nulls and encodings, with and without a selection.
#include <gtest/gtest.h>

#include <random>

#include "ir/binder.h"
#include "ir/reference.h"
#include "jit/api/engine.h"
#include "runtime/builder.h"
#include "runtime/random.h"
#include "runtime/selection.h"
#include "support/random_data.h"
#include "support/result_text.h"

namespace rowjit::jit {
namespace {

std::unique_ptr<Engine> NewEngine() { return std::move(Engine::Make()).value(); }

// The reference, expression by expression: every output, or the lowest failing row over them
// (at it, the first failing output), its message naming the output.
Result<std::vector<ArrayPtr>> Reference(const std::vector<ir::ExprPtr>& exprs, std::span<const ArrayPtr> cols,
                                        int64_t length) {
  std::vector<ArrayPtr> out;
  std::optional<Error> first;
  size_t at = 0;
  for (size_t k = 0; k < exprs.size(); ++k) {
    auto r = ir::EvaluateReference(*exprs[k], cols, length);
    if (r.ok()) {
      out.push_back(*r);
    } else if (!first || (r.error().row() && *r.error().row() < *first->row())) {
      first = std::move(r).TakeError();
      at = k;
    }
  }
  if (!first) return out;
  std::string f = first->function();
  Error named(first->code(), fmt::format("expression {}: {}", at, first->message()));
  return first->row() ? std::move(named).WithRow(std::move(f), *first->row()) : named;
}

// The reference over the selected rows, a failing row named by its batch row.
Result<std::vector<ArrayPtr>> ReferenceUnder(const std::vector<ir::ExprPtr>& exprs, std::span<const ArrayPtr> cols,
                                             const SelectionVector& sel) {
  std::vector<ArrayPtr> taken(cols.size());
  for (size_t c = 0; c < cols.size(); ++c) taken[c] = *Take(*cols[c], sel);
  auto want = Reference(exprs, taken, sel.size());
  if (want.ok() || !want.error().row()) return want;
  Error e = std::move(want).TakeError();
  std::string f = e.function();
  const int64_t row = sel[*e.row()];
  return std::move(e).WithRow(std::move(f), row);
}

TEST(Project, OutputsKeepTheirTypesAndNullsAndErrorsNameTheOutput) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32?, b:i32");
  const std::vector<ArrayPtr> cols = {*MakeArray<int32_t>({5, std::nullopt, -3, 7}),
                                      *MakeArray<int32_t>({2, 4, 0, 1}, false)};
  std::vector<ir::ExprPtr> exprs;
  for (const char* t : {"a * b + 1", "a * b > 6", "if(b != 0, a / b, 0)", "b - 1"}) {
    exprs.push_back(*ir::ParseAndBind(t, schema));
  }
  EvalReport report;
  EXPECT_EQ(testing::ResultText(engine->Project(exprs, cols, 4, {}, &report)),
            "i32? [11, null, 1, 8]\nbool? [true, null, false, true]\ni32? [2, null, 0, 7]\ni32 [1, 3, -1, 0]\n");
  EXPECT_EQ(report.strategy, Strategy::kValidity);
  // Row 2 fails in output 1 (b = 0), row 3 in output 0 (overflow): the lowest row wins.
  std::vector<ir::ExprPtr> failing = {*ir::ParseAndBind("a * 1000000000", schema), *ir::ParseAndBind("a / b", schema)};
  const std::vector<ArrayPtr> cols2 = {*MakeArray<int32_t>({1, 0, 0, 7}), *MakeArray<int32_t>({1, 1, 0, 1}, false)};
  EXPECT_EQ(testing::ResultText(engine->Project(failing, cols2, 4)),
            "error division by zero: div at row 2: expression 1: division by zero");
  // Under a selection: rows 0 and 3 only, where output 0 fails at batch row 3.
  const SelectionVector sel = *SelectionVector::FromIndices(std::vector<uint32_t>{0, 3}, 4);
  EXPECT_EQ(testing::ResultText(engine->Project(failing, cols2, 4, sel)),
            "error overflow: mul at row 3: expression 0: mul result does not fit i32");
  EXPECT_EQ(engine->Project(std::vector<ir::ExprPtr>{}, cols, 4).error().code(), ErrorCode::kInvalidInput);
}

TEST(Project, RandomProjectionsAgainstReference) {
  auto engine = NewEngine();
  const Schema schema = testing::WideSchema();
  const ir::Policy policies[] = {ir::Policy::kAuto, ir::Policy::kDense, ir::Policy::kDenseRetry,
                                 ir::Policy::kBranchSkip, ir::Policy::kFilterScatter};
  int cases = 0, errors = 0, fused = 0;
  for (uint64_t seed = 1; seed <= 120; ++seed) {
    std::mt19937_64 rng(seed);
    // A shared subexpression and outputs built on it, plus an unrelated one.
    const TypeId t = kAllTypeIds[rng() % std::size(kAllTypeIds)];
    const std::string shared = testing::RandomExpression(t, schema, 1 + static_cast<int>(rng() % 3), rng);
    std::vector<std::string> texts = {shared, testing::RandomExpression(TypeId::kBool, schema, 2, rng)};
    if (IsNumeric(t)) {
      texts.push_back(fmt::format("({0}) + ({0})", shared));
      texts.push_back(fmt::format("({}) < ({})", shared, testing::RandomExpression(t, schema, 1, rng)));
    } else {
      texts.push_back(fmt::format("is_null({})", shared));
    }
    std::vector<ir::ExprPtr> exprs;
    for (const std::string& text : texts) {
      auto e = ir::ParseAndBind(text, schema);
      ASSERT_TRUE(e.ok()) << "seed " << seed << ": " << text << ": " << e.error().ToString();
      exprs.push_back(*e);
    }
    for (int k = 0; k < 5; ++k) {
      const int64_t length = std::vector<int64_t>{0, 1, 63, 64, 65, 700}[rng() % 6];
      const std::vector<ArrayPtr> cols = testing::RandomColumns(schema, length, rng);
      const EvalOptions o{.policy = policies[rng() % std::size(policies)],
                          .tier = rng() % 3 == 0 ? std::optional<Tier>(Tier::kFast) : std::nullopt};
      const std::string where = fmt::format("seed {} case {} length {} policy {}: {}", seed, k, length,
                                            ir::PolicyName(o.policy), fmt::join(texts, " | "));
      EvalReport report;
      const auto got = engine->Project(exprs, cols, length, o, &report);
      const auto want = Reference(exprs, cols, length);
      ASSERT_EQ(testing::ResultText(got), testing::ResultText(want)) << where;
      ++cases;
      errors += !want.ok();
      fused += report.kernel.has_value();
      // Under a random selection: the selected rows only.
      std::vector<uint32_t> rows;
      for (uint32_t r = 0; r < length; ++r) {
        if (rng() % 3 == 0) rows.push_back(r);
      }
      const SelectionVector sel = *SelectionVector::FromIndices(rows, length);
      const auto want_sel = ReferenceUnder(exprs, cols, sel);
      ASSERT_EQ(testing::ResultText(engine->Project(exprs, cols, length, sel, o)), testing::ResultText(want_sel)) << where << " (selection)";
    }
  }
  EXPECT_EQ(cases, 600);
  EXPECT_GT(errors, 30);
  EXPECT_GT(fused, 300);  // most cases ran one projection kernel
}


// Projections with strings: string-valued outputs (computed as Evaluate computes them) beside
// numeric outputs over string-valued calls (computed a column at a time, then one projection
// kernel), against the reference output by output; errors, selections, prepared projections,
// and caller buffers (numbers only: a string output there is a clear error).
TEST(Project, StringOutputsAndStringValuedCalls) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("s:utf8?, t:utf8_view, a:i32?, b:i32");
  const std::vector<std::vector<std::string>> sets = {
      {"lower(s)", "a + b", "length(lower(s)) * cast(b, i64)", "concat(s, t)", "s", "coalesce(s, t)",
       "length(trim(t)) > cast(a, i64)"},
      {"length(upper(t))", "a * b", "starts_with(lower(s), 'a')"},
      {"upper(t)", "a * 1000000000", "length(s || t) / cast(b, i64)", "cast(a, utf8)"},
      {"substr(t, a, b)", "if(a > 0, lower(s), t)", "cast(b, utf8) || s"}};
  const ir::Policy policies[] = {ir::Policy::kAuto, ir::Policy::kDense, ir::Policy::kBranchSkip};
  int cases = 0, errors = 0;
  for (uint64_t seed = 1; seed <= 24; ++seed) {
    std::mt19937_64 rng(seed);
    const std::vector<std::string>& texts = sets[seed % sets.size()];
    std::vector<ir::ExprPtr> exprs;
    for (const std::string& text : texts) {
      auto e = ir::ParseAndBind(text, schema);
      ASSERT_TRUE(e.ok()) << text << ": " << e.error().ToString();
      exprs.push_back(*e);
    }
    const int64_t length = std::vector<int64_t>{0, 1, 63, 64, 65, 700}[seed % 6];
    const std::vector<ArrayPtr> cols = testing::RandomColumns(schema, length, rng);
    const EvalOptions o{.policy = policies[rng() % std::size(policies)]};
    const std::string where = fmt::format("seed {} length {}: {}", seed, length, fmt::join(texts, " | "));
    const auto want = Reference(exprs, cols, length);
    ASSERT_EQ(testing::ResultText(engine->Project(exprs, cols, length, o)), testing::ResultText(want)) << where;
    auto prepared = engine->PrepareProjection(exprs, o);
    ASSERT_TRUE(prepared.ok()) << prepared.error().ToString();
    for (int twice = 0; twice < 2; ++twice) {
      ASSERT_EQ(testing::ResultText((*prepared)->Project(cols, length)), testing::ResultText(want)) << where << " (prepared)";
    }
    const SelectionVector sel = testing::RandomSelection(length, rng);
    const auto want_sel = ReferenceUnder(exprs, cols, sel);
    ASSERT_EQ(testing::ResultText(engine->Project(exprs, cols, length, sel, o)), testing::ResultText(want_sel))
        << where << " (selection)";
    ++cases;
    errors += !want.ok();
    // Caller buffers: the numeric outputs (string-valued calls inside them are computed first).
    std::vector<ir::ExprPtr> numeric;
    for (const ir::ExprPtr& e : exprs) {
      if (!IsString(e->type().id)) numeric.push_back(e);
    }
    std::vector<std::vector<uint64_t>> memory(2 * exprs.size(), std::vector<uint64_t>(static_cast<size_t>(length) + 8));
    std::vector<OutputBuffers> outs;
    for (size_t k = 0; k < exprs.size(); ++k) {
      outs.push_back({.values = memory[2 * k].data(), .values_bytes = static_cast<int64_t>(memory[2 * k].size() * 8),
                      .validity = memory[2 * k + 1].data(), .validity_bytes = static_cast<int64_t>(memory[2 * k + 1].size() * 8)});
    }
    if (!numeric.empty()) {
      ASSERT_EQ(testing::ResultText(engine->ProjectInto(numeric, cols, length, std::span(outs).first(numeric.size()), o)),
                testing::ResultText(Reference(numeric, cols, length))) << where << " (into)";
    }
    if (numeric.size() < exprs.size()) {
      auto refused = engine->ProjectInto(exprs, cols, length, outs, o);
      ASSERT_FALSE(refused.ok()) << where;
      EXPECT_EQ(refused.error().code(), ErrorCode::kUnsupported) << refused.error().ToString();
    }
  }
  EXPECT_EQ(cases, 24);
  EXPECT_GE(errors, 3);
}

}  // namespace
}  // namespace rowjit::jit
