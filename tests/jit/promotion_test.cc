// SQL's implicit numeric casts through the engine: expressions over every pair of numeric column
// types, whose bound trees hold the binder's casts, against the reference evaluator (every
// policy and tier drawn at random), and the kernels of typical promoted expressions pass the IR
// gates: the casts vectorize with the arithmetic (jit).
#include <gtest/gtest.h>

#include <random>

#include "ir/binder.h"
#include "jit/api/engine.h"
#include "jit/gates/gate_report.h"
#include "jit/gates/gates.h"
#include "jit/gates/kernel_request.h"
#include "support/assert_ok.h"
#include "support/differential.h"
#include "support/random_data.h"

namespace rowjit::jit {
namespace {

constexpr const char* kTypes[] = {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64"};

// Where operands meet: arithmetic (checked: widened operands overflow where the common type
// does), comparisons, the null-aware calls, IN lists and BETWEEN, with untyped literals that
// fit and that do not.
constexpr const char* kExpressions[] = {
    "x + y",           "x * y - 1",       "x < y",          "coalesce(x, y, 300)", "greatest(x, y)",
    "if(x > 0, x, y)", "x in (y, 1, -1)", "x between y and 1000", "x / y",       "x = 255",
};

TEST(Promotion, PairsOfTypesEqualTheReference) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  int compared = 0, refused = 0;
  uint64_t seed = 0;
  for (const char* x : kTypes) {
    for (const char* y : kTypes) {
      std::mt19937_64 rng(++seed);
      const Schema schema = *ParseSchema(fmt::format("x:{}?, y:{}", x, y));
      const int64_t length = std::vector<int64_t>{200, 65, 1, 0}[seed % 4];
      const std::vector<ArrayPtr> cols = testing::RandomColumns(schema, length, rng);
      for (const char* text : kExpressions) {
        auto e = ir::ParseAndBind(text, schema);
        if (!e.ok()) {  // u64 beside a signed type: no common integer
          EXPECT_EQ(e.error().code(), ErrorCode::kTypeError) << text << " over " << x << ", " << y;
          ++refused;
          continue;
        }
        SCOPED_TRACE(fmt::format("seed {} {} over x:{}, y:{}: {}", seed, text, x, y, (*e)->ToString()));
        ASSERT_NE(test::CompareWithReference(*engine, *e, cols, length, rng), test::Compared::kMismatch);
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 900);
  EXPECT_GT(refused, 0);
}

// The kernels `rowjit check` would inspect for typical promoted expressions: vectorized, every
// gate passed (or excused by the exceptions file, as the catalog's own kernels may be).
TEST(Promotion, PromotedKernelsPassTheGates) {
  const std::pair<const char*, const char*> kernels[] = {
      {"a + b", "a:i32, b:f64"},   {"a + b", "a:i32, b:u32"},          {"a * b < c", "a:i16, b:u8, c:f32"},
      {"c < 300", "c:u8"},         {"coalesce(a, b)", "a:i8?, b:i64"}, {"sqrt(a) + b", "a:i32, b:f64"},
      {"a in (1, 2.5)", "a:i32"},
  };
  for (const auto& [expr, schema] : kernels) {
    KernelRequest request;
    request.expr = expr;
    request.schema = schema;
    request.policy = "dense";
    ASSERT_OK_AND_ASSIGN(PlannedKernel planned, PlanRequest(request));
    ASSERT_OK_AND_ASSIGN(KernelCheck check, CheckPlanned(planned));
    SCOPED_TRACE(FormatCheckText(check));
    for (const Violation& v : check.result.violations) {
      EXPECT_NE(v.exception, nullptr) << expr << " [" << schema << "]: " << FormatViolationText(v);
    }
    EXPECT_NE(check.report.MainLoop(), nullptr) << expr << " [" << schema << "]";
  }
}

}  // namespace
}  // namespace rowjit::jit
