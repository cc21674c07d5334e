// Prepared handles beyond Evaluate (jit): a prepared projection, a prepared predicate as a
// filter, and a prepared expression under a selection give, batch after batch, what the engine's
// calls give and what the reference gives, over random expressions, layouts met repeatedly and in
// random order, every policy, lengths around 64, nulls, offsets, encodings and selections.
#include <gtest/gtest.h>

#include <random>

#include "ir/binder.h"
#include "ir/reference.h"
#include "jit/api/engine.h"
#include "runtime/random.h"
#include "runtime/selection.h"
#include "support/random_data.h"
#include "support/result_text.h"

namespace rowjit::jit {
namespace {

std::unique_ptr<Engine> NewEngine() { return std::move(Engine::Make()).value(); }

const ir::Policy kPolicies[] = {ir::Policy::kAuto, ir::Policy::kDense, ir::Policy::kDenseRetry,
                                ir::Policy::kBranchSkip, ir::Policy::kFilterScatter};

// A few batch shapes a handle meets again and again: the same seed gives the same layout.
std::vector<ArrayPtr> Batch(const Schema& schema, int64_t length, uint64_t layout_seed, std::mt19937_64& rng) {
  std::mt19937_64 layout(layout_seed);
  std::vector<ArrayPtr> cols = testing::RandomColumns(schema, length, layout);
  // Fresh values each time (the layout's encodings, offsets and densities kept): only the
  // columns' values change between batches of one layout.
  std::vector<ArrayPtr> fresh = testing::RandomColumns(schema, length, rng);
  for (size_t c = 0; c < cols.size(); ++c) {
    if (cols[c]->encoding() == fresh[c]->encoding() && (cols[c]->NullCount() > 0) == (fresh[c]->NullCount() > 0)) {
      cols[c] = fresh[c];
    }
  }
  return cols;
}

TEST(Prepared, ProjectionsMatchTheEngineBatchAfterBatch) {
  auto engine = NewEngine();
  const Schema schema = testing::WideSchema();
  int cases = 0, failing = 0;
  size_t layouts = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    std::mt19937_64 rng(seed);
    const TypeId t = kAllTypeIds[1 + rng() % (std::size(kAllTypeIds) - 1)];  // numeric
    const std::string shared = testing::RandomExpression(t, schema, 2, rng);
    const std::vector<std::string> texts = {shared, fmt::format("({0}) * ({0})", shared),
                                            testing::RandomExpression(TypeId::kBool, schema, 2, rng)};
    std::vector<ir::ExprPtr> exprs;
    for (const std::string& text : texts) exprs.push_back(*ir::ParseAndBind(text, schema));
    // A forced tier: a tiered engine's first calls run the fast kernel, which a handle does not
    // hold while the optimized one compiles.
    const EvalOptions o{.policy = kPolicies[rng() % std::size(kPolicies)], .tier = seed % 2 ? Tier::kFast : Tier::kOptimized};
    auto handle = engine->PrepareProjection(exprs, o);
    ASSERT_TRUE(handle.ok()) << handle.error().ToString();
    for (int k = 0; k < 12; ++k) {
      const int64_t length = std::vector<int64_t>{1, 63, 64, 65, 700}[rng() % 5];
      const std::vector<ArrayPtr> cols = Batch(schema, length, seed * 100 + rng() % 3, rng);
      const std::string where = fmt::format("seed {} case {} length {} policy {}: {}", seed, k, length,
                                            ir::PolicyName(o.policy), fmt::join(texts, " | "));
      const auto got = (*handle)->Project(cols, length);
      ASSERT_EQ(testing::ResultText(got), testing::ResultText(engine->Project(exprs, cols, length, o))) << where;
      // Into caller memory: the same rows.
      std::vector<std::vector<uint64_t>> memory;
      std::vector<OutputBuffers> outs;
      for (size_t i = 0; i < exprs.size(); ++i) {
        memory.emplace_back(static_cast<size_t>(length) + 1);
        memory.emplace_back(static_cast<size_t>(length) / 64 + 1);
      }
      for (size_t i = 0; i < exprs.size(); ++i) {
        std::vector<uint64_t>& v = memory[2 * i];
        std::vector<uint64_t>& b = memory[2 * i + 1];
        outs.push_back({v.data(), static_cast<int64_t>(v.size() * 8), b.data(), static_cast<int64_t>(b.size() * 8)});
      }
      ASSERT_EQ(testing::ResultText((*handle)->ProjectInto(cols, length, outs)), testing::ResultText(got)) << where << " (into)";
      const SelectionVector sel = testing::RandomSelection(length, rng);
      ASSERT_EQ(testing::ResultText((*handle)->Project(cols, length, sel)), testing::ResultText(engine->Project(exprs, cols, length, sel, o)))
          << where << " (selection)";
      ++cases;
      failing += !got.ok();
    }
    layouts += (*handle)->layouts();
  }
  EXPECT_EQ(cases, 480);
  EXPECT_GT(failing, 5);
  EXPECT_GT(layouts, 40u);  // held layouts ran the later batches
}

TEST(Prepared, FiltersAndSelectionsMatchTheEngineBatchAfterBatch) {
  auto engine = NewEngine();
  const Schema schema = testing::WideSchema();
  int cases = 0;
  size_t layouts = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    std::mt19937_64 rng(seed);
    const std::string text = testing::RandomExpression(TypeId::kBool, schema, 1 + static_cast<int>(rng() % 3), rng);
    const ir::ExprPtr predicate = *ir::ParseAndBind(text, schema);
    const EvalOptions o{.policy = kPolicies[rng() % std::size(kPolicies)]};
    auto handle = engine->PrepareExpression(predicate, o);
    ASSERT_TRUE(handle.ok()) << handle.error().ToString();
    for (int k = 0; k < 8; ++k) {
      const int64_t length = std::vector<int64_t>{1, 63, 64, 65, 700, 4100}[rng() % 6];
      const std::vector<ArrayPtr> cols = Batch(schema, length, seed * 100 + rng() % 3, rng);
      const std::string where = fmt::format("seed {} case {} length {} policy {}: {}", seed, k, length,
                                            ir::PolicyName(o.policy), text);
      ASSERT_EQ(testing::ResultText((*handle)->Filter(cols, length)), testing::ResultText(engine->Filter(predicate, cols, length, o))) << where;
      const SelectionVector sel = testing::RandomSelection(length, rng);
      ASSERT_EQ(testing::ResultText((*handle)->Filter(cols, length, sel)), testing::ResultText(engine->Filter(predicate, cols, length, sel, o)))
          << where << " (selection)";
      ASSERT_EQ(testing::ResultText((*handle)->Evaluate(cols, length, sel)), testing::ResultText(engine->Evaluate(predicate, cols, length, sel, o)))
          << where << " (evaluate under the selection)";
      ++cases;
    }
    layouts += (*handle)->layouts();
  }
  EXPECT_EQ(cases, 480);
  EXPECT_GT(layouts, 60u);
  // Only a bool expression filters.
  auto numeric = engine->PrepareExpression(*ir::ParseAndBind("c_i32 + 1", schema));
  ASSERT_TRUE(numeric.ok());
  std::mt19937_64 rng(1);
  const std::vector<ArrayPtr> cols = testing::RandomColumns(schema, 10, rng);
  EXPECT_EQ(testing::ResultText((*numeric)->Filter(cols, 10)), "error type error: a filter's predicate is bool, not i32");
}

}  // namespace
}  // namespace rowjit::jit
