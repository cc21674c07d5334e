// Routes (jit/plan/route.h): every route a call can take, taken by a real call, and the report
// naming the route the route function returns for that call (the engine and the prepared
// handles dispatch on that value and set no route of their own; tools/check-layers checks that
// no file outside jit/plan/ chooses one). The random-expression agreement is in
// differential_test.cc (EngineRunsTheRouteAndKernelThePlannerNames).
#include <gtest/gtest.h>

#include "ir/aggregate.h"
#include "ir/binder.h"
#include "ir/temporal.h"
#include "jit/api/engine.h"
#include "jit/plan/route.h"
#include "runtime/builder.h"
#include "support/assert_ok.h"

namespace rowjit::jit {
namespace {

ArrayPtr Col(DataType t, std::string_view text) {
  auto a = ArrayFromText(t, text);
  EXPECT_TRUE(a.ok()) << a.error().ToString();
  return *a;
}

std::unique_ptr<Engine> NewEngine(EngineOptions options = {}) {
  options.compile = EngineOptions::Compile::kSynchronous;
  return std::move(Engine::Make(options)).value();
}

// One batch of every kind of column the routes tell apart.
struct Batch {
  Schema schema;
  std::vector<ArrayPtr> columns;
  int64_t length;
};

Batch MakeBatch() {
  const DataType i32(TypeId::kI32, true), utf8(TypeId::kUtf8, true);
  auto codes = std::static_pointer_cast<const PrimitiveArray>(Col(DataType(TypeId::kU8), "[0, 1, 0, 1, 0, 1]"));
  auto dict = std::move(DictionaryArray::Make(codes, Col(utf8, "['ab', 'cd']"))).value();
  const DataType dec = DataType::Decimal(30, 2)->WithNullable(true);
  const DataType interval = DataType::Interval(IntervalUnit::kMonthDayNano).WithNullable(true);
  std::vector<Scalar> intervals;
  for (int k = 0; k < 6; ++k) intervals.push_back(ir::MonthDayNano(k, 2 * k, 0));
  Batch b{.schema = {}, .columns = {}, .length = 6};
  b.schema = std::move(ParseSchema("a:i32?, s:utf8?, d:utf8?, w:decimal(30,2)?, i:interval_month_day_nano?")).value();
  b.columns = {Col(i32, "[1, null, 3, 4, 5, 6]"), Col(utf8, "['x', 'ab', null, 'abc', 'q', 'zz']"), dict,
               Col(dec, "[100, 250, null, 7, 8, 9]"),
               *MakeArray(interval, intervals)};
  return b;
}

TEST(Route, EveryEvaluationRouteIsTakenAndReported) {
  const Batch b = MakeBatch();
  struct Expect {
    const char* text;
    Route route;
    int64_t max_kernel_nodes;
  };
  const Expect cases[] = {
      {"a * 2 + 1", Route::kKernel, kDefaultMaxKernelNodes},
      {"s", Route::kAsIs, kDefaultMaxKernelNodes},
      {"lower(s) = 'ab'", Route::kStrings, kDefaultMaxKernelNodes},
      {"d like 'a%'", Route::kOverDictionary, kDefaultMaxKernelNodes},
      {"a + a + a + a + a + a + a + a", Route::kStaged, kMinKernelNodes},
  };
  for (const Expect& c : cases) {
    SCOPED_TRACE(c.text);
    auto engine = NewEngine({.max_kernel_nodes = c.max_kernel_nodes});
    ASSERT_OK_AND_ASSIGN(ir::ExprPtr expr, ir::ParseAndBind(c.text, b.schema));
    const CallFacts call{.columns = b.columns, .length = b.length, .max_kernel_nodes = c.max_kernel_nodes};
    EXPECT_EQ(RouteEvaluation(*expr, call), c.route) << RouteName(RouteEvaluation(*expr, call));
    EvalReport report;
    // A first call, then one through the held handle and one through a prepared handle: all
    // report the route.
    for (int k = 0; k < 2; ++k) {
      ASSERT_OK(engine->Evaluate(expr, b.columns, b.length, {}, &report).status());
      EXPECT_EQ(report.route, c.route) << RouteName(report.route);
    }
    ASSERT_OK_AND_ASSIGN(auto prepared, engine->PrepareExpression(expr));
    ASSERT_OK(prepared->Evaluate(b.columns, b.length, &report).status());
    EXPECT_EQ(report.route, c.route) << RouteName(report.route);
  }
}

TEST(Route, EveryAggregateRouteIsTakenAndReported) {
  const Batch b = MakeBatch();
  struct Expect {
    const char* text;
    Route route;
    EngineOptions options;
  };
  const Expect cases[] = {
      {"sum(a * 2)", Route::kFold, {}},
      {"sum(i)", Route::kFoldIntervals, {}},
      {"max(w)", Route::kFoldSixteenByte, {}},
      {"min(s)", Route::kFoldStringValues, {}},
      {"sum(a)", Route::kFoldSliced, {.fold_slice_rows = 4}},
      {"count(lower(s))", Route::kFoldStrings, {}},
      {"sum(a + a + a + a + a + a + a)", Route::kFoldStaged, {.max_kernel_nodes = kMinKernelNodes}},
  };
  for (const Expect& c : cases) {
    SCOPED_TRACE(c.text);
    auto engine = NewEngine(c.options);
    ASSERT_OK_AND_ASSIGN(ir::Aggregate agg, ir::ParseAndBindAggregate(c.text, b.schema));
    const CallFacts call{.columns = b.columns, .length = b.length, .max_kernel_nodes = c.options.max_kernel_nodes,
                         .fold_slice_rows = c.options.fold_slice_rows};
    EXPECT_EQ(RouteAggregate(agg, call), c.route) << RouteName(RouteAggregate(agg, call));
    EvalReport report;
    for (int k = 0; k < 2; ++k) {
      ASSERT_OK(engine->Aggregate(agg, b.columns, b.length, &report).status());
      EXPECT_EQ(report.route, c.route) << RouteName(report.route);
    }
    ASSERT_OK_AND_ASSIGN(auto prepared, engine->PrepareAggregate(agg));
    ASSERT_OK(prepared->Aggregate(b.columns, b.length, &report).status());
    EXPECT_EQ(report.route, c.route) << RouteName(report.route);
  }
}

TEST(Route, EveryProjectionRouteIsTakenAndReported) {
  const Batch b = MakeBatch();
  const std::vector<ArrayPtr> valid = {Col(DataType(TypeId::kI32), "[1, 2, 3, 4, 5, 6]"), b.columns[1], b.columns[2],
                                       b.columns[3], b.columns[4]};
  ASSERT_OK_AND_ASSIGN(auto constant, ConstantArray::Make(Scalar::Of<int32_t>(3), b.length, false));
  const std::vector<ArrayPtr> constants = {constant, b.columns[1], b.columns[2], b.columns[3], b.columns[4]};
  struct Expect {
    std::vector<const char*> texts;
    const std::vector<ArrayPtr>* columns;
    Route route;
  };
  const Expect cases[] = {
      {{"a + 1", "a * 2"}, &valid, Route::kProjectOneKernel},
      {{"a + 1", "a * 2"}, &b.columns, Route::kProjectDenseWithNulls},
      {{"a + 1", "a * 2"}, &constants, Route::kProjectSeparately},
      {{"lower(s)", "a + 1"}, &b.columns, Route::kProjectStrings},
  };
  for (const Expect& c : cases) {
    SCOPED_TRACE(std::string(c.texts[0]) + " over " + std::string(RouteName(c.route)));
    auto engine = NewEngine();
    std::vector<ir::ExprPtr> exprs;
    for (const char* text : c.texts) {
      ASSERT_OK_AND_ASSIGN(exprs.emplace_back(), ir::ParseAndBind(text, b.schema));
    }
    EvalReport report;
    ASSERT_OK(engine->Project(exprs, *c.columns, b.length, {}, &report).status());
    EXPECT_EQ(report.route, c.route) << RouteName(report.route);
  }
}

TEST(Route, SelectionsGatherBelowTheirFractionAndTakeTheWholeBatchAbove) {
  const Batch b = MakeBatch();
  ASSERT_OK_AND_ASSIGN(ir::ExprPtr expr, ir::ParseAndBind("a * 2", b.schema));
  EXPECT_EQ(RouteSelection(*expr, b.columns, 100, 1), SelectionWay::kGathered);
  EXPECT_EQ(RouteSelection(*expr, b.columns, 100, 90), SelectionWay::kWhole);
  EXPECT_EQ(RouteSelection(*expr, b.columns, 100, 0), SelectionWay::kGathered);
  // A dictionary input's decode is compacted by the gather: it pays off further.
  ASSERT_OK_AND_ASSIGN(ir::ExprPtr over_dict, ir::ParseAndBind("d = 'ab'", b.schema));
  EXPECT_EQ(RouteSelection(*over_dict, b.columns, 100, 50), SelectionWay::kGathered);
}

TEST(Route, RoutesReadOnlyTheColumnsThatAreThere) {
  // A call's inputs are checked after its route is decided: a missing column routes as a kernel,
  // and the check refuses the call.
  const Batch b = MakeBatch();
  ASSERT_OK_AND_ASSIGN(ir::ExprPtr expr, ir::ParseAndBind("d like 'a%'", b.schema));
  const std::vector<ArrayPtr> none;
  EXPECT_EQ(RouteEvaluation(*expr, CallFacts{.columns = none, .length = 6}), Route::kKernel);
  auto engine = NewEngine();
  EXPECT_FALSE(engine->Evaluate(expr, none, 6).ok());
}

}  // namespace
}  // namespace rowjit::jit
