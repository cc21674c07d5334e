// The route of a call (jit layer, plan room): the one decision of how a call runs. Every call —
// Engine::Evaluate, Filter, Aggregate, Project and each prepared handle's — asks these functions
// which way it goes, from what the expression is (its facts), what the batch is (encodings,
// length) and the call's options; a route that runs one kernel then asks the planner
// (plan/planner.h) for its strategy and kernel. Nothing else chooses: the engine and the
// handles dispatch on the value returned here, and EvalReport::route is that value.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "ir/aggregate.h"
#include "ir/expr.h"
#include "jit/plan/planner.h"
#include "runtime/array.h"

namespace rowjit::jit {

enum class Route : uint8_t {
  // Rows (Evaluate, Filter, prepared expressions)
  kKernel,          // one kernel (or none: an empty batch, constants) under the planner's strategy
  kAsIs,            // a string-valued column or literal: answered as it is
  kStrings,         // string-valued calls computed a column at a time first (exec/strings_materialize.cc),
                    // then the rest routed again over those columns
  kNested,          // reads of nested columns computed a column at a time first — each vector function
                    // (dot, l2_distance, ...) by its own vector kernel, each struct field (s.x) as its
                    // child column, each list function and constructor by its column form — then the
                    // rest routed again over those columns (as kStrings)
  kOverDictionary,  // the expression once per value of its one dictionary-encoded string column,
                    // its results gathered through the codes (exec/dictionary.cc)
  kStaged,          // too large for one kernel: stages of bounded size, each its own kernel, their
                    // results materialized as columns (plan/staging.h)
  // Aggregates
  kFold,             // a reduction template: the argument and its fold in one kernel pass
  kFoldIntervals,    // sum/min/max of intervals: the argument's rows, then a static fold
  kFoldSixteenByte,  // sum/min/max of decimals of 19-38 digits: the rows, then a static fold
  kFoldStringValues, // min/max of strings: the rows, then a static fold (bytewise order)
  kFoldSliced,       // an integer sum over more rows than one kernel call keeps exact: slices of
                     // EngineOptions::fold_slice_rows rows, their sums added in 128 bits
  kFoldStrings,      // string-valued calls and vector functions in the argument computed first, then the
                     // fold routed again
  kFoldStaged,       // an argument too large for one kernel: evaluated in stages, its column folded
  // Projections
  kProjectOneKernel,       // every output in one kernel pass
  kProjectDenseWithNulls,  // strict outputs over inputs with nulls: the dense kernel, each output
                           // taking the AND of its own columns' validity (the exact kernel when
                           // evidence may come from rows behind nulls)
  kProjectSeparately,      // the outputs evaluated one by one (constants, staged outputs)
  kProjectStrings,         // outputs with strings or vector functions: string-valued ones as Evaluate
                           // computes them, the rest as one projection over their materialized columns
};
std::string_view RouteName(Route route);

// What a route reads of a call besides the expression.
struct CallFacts {
  std::span<const ArrayPtr> columns;  // one per schema column (any encoding)
  int64_t length = 0;
  ir::Policy policy = ir::Policy::kAuto;
  bool into = false;  // the caller lent memory for the result(s)
  int64_t max_kernel_nodes = kDefaultMaxKernelNodes;
  int64_t fold_slice_rows = int64_t{1} << 31;  // EngineOptions::fold_slice_rows
};

// The route of an evaluation: kAsIs, kStrings, kOverDictionary, kStaged or kKernel.
Route RouteEvaluation(const ir::Expr& expr, const CallFacts& call);
// The route of an aggregate: one of the fold routes.
Route RouteAggregate(const ir::Aggregate& aggregate, const CallFacts& call);

// The route of an evaluation over described inputs rather than arrays (PlanKernel for rowjit
// check and the gates, Engine::Prepare): kStaged or kKernel, the kernel being that of the
// expression as written.
Route RouteDescribed(const ir::Expr& expr, int64_t max_kernel_nodes);

// A projection's route and what it runs: `plan` the kernel over every output (the dense one for
// kProjectDenseWithNulls, whose `exact` is the kernel computing validity row by row that answers
// when the dense kernel's evidence may come from rows behind nulls). Before its batch is read a
// projection with string outputs takes kProjectStrings (RouteProjectionStrings, which returns
// nothing for the others); with the batch read, the planner's plan of the whole root decides.
struct ProjectionRoute {
  Route route = Route::kProjectSeparately;
  Plan plan;
  std::optional<Plan> exact;
};
std::optional<Route> RouteProjectionStrings(std::span<const ir::ExprPtr> outputs);
// `root`: ir::MakeProjection of the outputs.
ProjectionRoute RouteProjection(const ir::ExprPtr& root, const BatchFacts& batch, ir::Policy policy,
                                int64_t max_kernel_nodes);

// Evaluation under a selection: every row computed and the result's selected rows taken
// (kWhole), or each input's selected rows taken and only they computed (kGathered), by the
// fraction selected and the decode cost of the expression and its inputs.
enum class SelectionWay : uint8_t { kWhole, kGathered };
SelectionWay RouteSelection(const ir::Expr& expr, std::span<const ArrayPtr> columns, int64_t length,
                            int64_t selected);

// Expression facts the routes read, for the executors of those routes.
// Whether `expr` holds a call that no kernel of its rows computes (one building a string, a vector
// function), computed a column at a time first, or is a string-valued call.
bool NeedsColumnsFirst(const ir::Expr& expr);
// kOverDictionary's column: the one column `expr` reads, when the route is kOverDictionary's.
std::optional<int> OverDictionaryColumn(const ir::Expr& expr, std::span<const ArrayPtr> columns, int64_t length);

}  // namespace rowjit::jit
